import { existsSync } from 'node:fs';

/** Debian's interpreter starts ten times faster than a pyenv shim; prefer it. */
export function hostPython(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/**
 * The flags of every Python program intercode runs on the host (`python -I -c <source>`): isolated
 * mode, so neither the current directory (a `selectors.py` or `json.py` there would run in place of
 * the standard module, as root in the mount helper) nor `PYTHONPATH`, `PYTHONHOME` or the user's
 * site folder decide what it imports.
 */
export const HOST_PYTHON_FLAGS: readonly string[] = ['-I'];

/**
 * The environment of a host-side helper program: `PATH` (to find its tools), `HOME` (a `python3`
 * found on PATH may be a pyenv shim, which needs it) and what `extra` names; nothing else of this
 * process's environment (API keys, credentials).
 */
export function hostHelperEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const { PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', HOME } = process.env;
  return { PATH, ...(HOME === undefined ? {} : { HOME }), ...extra };
}
