/** Process environment variables set for a while, each put back as it was (or unset) by `restore`. */
export class EnvVars {
  readonly #saved = new Map<string, string | undefined>();

  /** Sets (or with `undefined`, unsets) `name`; the first value seen is what `restore` puts back. */
  set(name: string, value: string | undefined): void {
    if (!this.#saved.has(name)) this.#saved.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }

  restore(): void {
    for (const [name, value] of [...this.#saved].reverse()) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    this.#saved.clear();
  }
}
