import { test as base } from '../fixtures.js';
import { type ServedIntercode, serveIntercode } from './served-intercode.js';

/**
 * The project's `test` plus `intercodeServe`: starts `intercode serve --port 0 <args>` with the file's
 * private cache and the local mirror; every server it started is stopped (SIGTERM, then SIGKILL) when
 * the test file ends, also when a test fails.
 */
export const test = base.extend(
  'intercodeServe',
  { scope: 'file' },
  ({ cache, mirror: _mirror }, { onCleanup }) => {
    const servers: ServedIntercode[] = [];
    onCleanup(async () => {
      await Promise.all(servers.map((server) => server.stop()));
    });
    return async (
      args: readonly string[],
      env?: Readonly<Record<string, string>>,
    ): Promise<ServedIntercode> => {
      const server = await serveIntercode(args, { cache, ...(env ? { env } : {}) });
      servers.push(server);
      return server;
    };
  },
);

/** The same as `test`, for suites written with `it`. */
export const it = test;
