import { RegistryError } from './errors.js';

/**
 * An explicit, typed registry of factories by id. Nothing registers itself on import:
 * built-ins are added by a call, so bundlers can never drop a registration.
 */
export class Registry<T> {
  readonly #kind: string;
  readonly #entries = new Map<string, { readonly value: T; readonly description: string }>();

  constructor(kind: string) {
    this.#kind = kind;
  }

  register(id: string, value: T, description = ''): this {
    if (this.#entries.has(id)) {
      throw new RegistryError('REGISTRY_DUPLICATE', `${this.#kind} "${id}" is already registered`);
    }
    this.#entries.set(id, { value, description });
    return this;
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  get(id: string): T {
    const entry = this.#entries.get(id);
    if (!entry) {
      const known = [...this.#entries.keys()].sort().join(', ') || 'none';
      throw new RegistryError('REGISTRY_UNKNOWN', `unknown ${this.#kind} "${id}" (known: ${known})`);
    }
    return entry.value;
  }

  list(): { id: string; description: string }[] {
    return [...this.#entries].map(([id, entry]) => ({ id, description: entry.description }));
  }
}
