import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a route handler gets. */
export interface RouteRequest {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly url: URL;
  /** Values of the path's `:name` and `*name` segments. */
  readonly params: Readonly<Record<string, string>>;
}

export type RouteHandler = (route: RouteRequest) => Promise<void> | void;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly handler: RouteHandler;
  readonly open: boolean;
}

/** A route found, or why none was. */
export type RouteMatch =
  | { readonly handler: RouteHandler; readonly params: Record<string, string>; readonly open: boolean }
  | { readonly error: 'NOT_FOUND' }
  | { readonly error: 'METHOD_NOT_ALLOWED'; readonly allow: readonly string[] };

/**
 * The server's routing table: a method and a path pattern per route. `:name` matches one segment,
 * `*name` one or more (a dataset id holds a `/`). A path that exists under another method is
 * METHOD_NOT_ALLOWED (with the methods it takes), otherwise NOT_FOUND.
 */
export class RouteTable {
  readonly #routes: Route[] = [];

  /** Adds a route; `open` routes need no token (`GET /health`). */
  add(method: string, path: string, handler: RouteHandler, options: { open?: boolean } = {}): this {
    const names: string[] = [];
    const source = path
      .split('/')
      .map((segment) => {
        if (segment.startsWith(':')) {
          names.push(segment.slice(1));
          return '([^/]+)';
        }
        if (segment.startsWith('*')) {
          names.push(segment.slice(1));
          return '(.+)';
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    this.#routes.push({
      method,
      pattern: new RegExp(`^${source}$`),
      names,
      handler,
      open: options.open === true,
    });
    return this;
  }

  match(method: string, pathname: string): RouteMatch {
    const allow: string[] = [];
    for (const route of this.#routes) {
      const found = route.pattern.exec(pathname);
      if (!found) continue;
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) {
        allow.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(found[i + 1] ?? '');
      });
      return { handler: route.handler, params, open: route.open };
    }
    return allow.length > 0 ? { error: 'METHOD_NOT_ALLOWED', allow } : { error: 'NOT_FOUND' };
  }
}
