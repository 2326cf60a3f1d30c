import { shellQuote } from '../../core/shell-quote.js';
import { ShlexError, shlexSplit } from './shlex-split.js';

/**
 * Upstream's path normalisation for its emulated `cd`: an absolute argument starts over, `..`
 * goes up, `.` and empty parts are dropped (so `cd ~` goes to `/~`).
 */
export function simplifyPath(current: string, argument: string): string {
  if (argument === '') return current;
  const parts = argument.startsWith('/') ? [] : current.split('/').filter(Boolean);
  for (const part of argument.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/**
 * The command line upstream actually ran for an action: `/bin/bash -c "<action>"` split by
 * `shlex.split` (no escaping, so inner double quotes end the string early and spaces inside them
 * split words), re-quoted here so a shell runs exactly that argument vector. Null where upstream
 * reported "Malformed command" (shlex could not split it).
 */
export function upstreamCommandLine(action: string): string | null {
  try {
    return shlexSplit(`/bin/bash -c "${action.trim()}"`).map(shellQuote).join(' ');
  } catch (error) {
    if (error instanceof ShlexError) return null;
    throw error;
  }
}
