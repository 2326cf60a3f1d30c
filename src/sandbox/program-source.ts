import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SandboxError } from '../core/errors.js';

/**
 * A program shipped beside the module that runs it (a `.py` or `.pl` file that the build copies into
 * dist/ at the same relative place), read on first use and kept: it is sent as an argument
 * (`python3 -c <source>`, `perl -e <source>`) every time it starts.
 */
export function programSource(url: URL): () => string {
  let source: string | undefined;
  return () => {
    if (source === undefined) {
      try {
        source = readFileSync(url, 'utf8');
      } catch (cause) {
        throw new SandboxError(
          'SANDBOX_UNAVAILABLE',
          `the program ${fileURLToPath(url)} is missing: reinstall intercode (in a clone: npm run build)`,
          { cause },
        );
      }
    }
    return source;
  };
}
