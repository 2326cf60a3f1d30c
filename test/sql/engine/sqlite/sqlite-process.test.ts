/**
 * A SQLite session process ends with its parent, and past its memory limit, on both of its paths:
 * started through `setpriv --pdeathsig` (the kernel ends it with its parent, and the parent watches
 * its memory) and, on a machine without `setpriv`, with its own watchdog thread doing both.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryDir } from '../../../support/temp-dirs.js';

const OWNER = fileURLToPath(new URL('./sqlite-process-owner.js', import.meta.url));
const dirs = temporaryDir('sqlite-process');
afterAll(() => dirs.remove());

/** Both start paths: with `setpriv` found on PATH, and without any PATH. */
const PATHS = [
  ['with setpriv', process.env.PATH ?? ''],
  ['without setpriv', ''],
] as const;

/** Runs the owner script and resolves with its first line of output, parsed, and the process. */
function owner(mode: string, path: string, name: string) {
  const child = spawn(process.execPath, [OWNER, join(dirs.dir, `${name}.sqlite`), mode], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { PATH: path },
  });
  const line = new Promise<Record<string, unknown>>((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) resolve(JSON.parse(text.slice(0, text.indexOf('\n'))));
    });
    child.once('exit', (code) => reject(new Error(`the owner exited (${code}) before it reported`)));
  });
  return { child, line };
}

/** The process is gone (or a zombie waiting for its new parent). */
function ended(pid: number): boolean {
  try {
    return /^\S+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe('SQLite session process', () => {
  for (const [name, path] of PATHS) {
    it(`ends with its parent while it runs a statement that never ends (${name})`, async () => {
      const { child, line } = owner('runaway', path, `runaway-${name.replaceAll(' ', '-')}`);
      const { pid } = (await line.catch((error: unknown) => {
        child.kill('SIGKILL');
        throw error;
      })) as { pid: number };
      expect(ended(pid)).toBe(false);
      child.kill('SIGKILL');
      for (let i = 0; i < 400 && !ended(pid); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      const gone = ended(pid);
      if (!gone) process.kill(pid, 'SIGKILL');
      expect(gone).toBe(true);
    });

    it(`is ended past its memory limit, and says so (${name})`, async () => {
      const { child, line } = owner('memory', path, `memory-${name.replaceAll(' ', '-')}`);
      try {
        expect(await line).toEqual({
          reason: expect.stringMatching(/^memory limit exceeded \(\d+ MiB\)$/),
        });
      } finally {
        child.kill('SIGKILL');
      }
    });
  }
});
