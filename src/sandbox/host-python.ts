import { existsSync } from 'node:fs';

/** Debian's interpreter starts ten times faster than a pyenv shim; prefer it. */
export function hostPython(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}
