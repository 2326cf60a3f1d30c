import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cacheDir } from '../../src/core/host/cache-dir.js';
import { test } from './fixtures.js';
import { MIRROR } from './project.js';
import { REQUIRE_ALL, skipIfMissing } from './skip-if-missing.js';

// The fixtures undo what a test made: each pair of tests below makes something, then checks that it
// is gone (tests of a file run in order).
const before = { cache: process.env.INTERCODE_CACHE_DIR, marker: process.env.INTERCODE_TEST_MARKER };
let dir = '';
let server: Server | undefined;

describe('test fixtures', () => {
  test('tempDir makes an empty folder of its own', ({ tempDir }) => {
    dir = tempDir('fixture');
    expect(readdirSync(dir)).toEqual([]);
    writeFileSync(join(dir, 'left.txt'), 'left behind');
  });

  test('… which is gone after the test, with what was in it', () => {
    expect(dir).not.toBe('');
    expect(existsSync(dir)).toBe(false);
  });

  test('setEnv sets a variable of this process for the test', ({ setEnv }) => {
    setEnv('INTERCODE_TEST_MARKER', 'set');
    setEnv('INTERCODE_TEST_MARKER', 'set again');
    expect(process.env.INTERCODE_TEST_MARKER).toBe('set again');
  });

  test('… and puts it back after the test', () => {
    expect(process.env.INTERCODE_TEST_MARKER).toBe(before.marker);
  });

  test('cache is an empty INTERCODE_CACHE_DIR of the file, and the cli runs with it', ({ cache, cli }) => {
    expect(cache).not.toBe(before.cache);
    expect(process.env.INTERCODE_CACHE_DIR).toBe(cache);
    expect(cacheDir()).toBe(cache);
    expect(cli.cache).toBe(cache);
  });

  test('mirror points INTERCODE_DATA_MIRROR at the local mirror', ({ mirror }) => {
    expect(mirror).toBe(MIRROR);
    expect(process.env.INTERCODE_DATA_MIRROR).toBe(MIRROR);
  });

  test('serve serves a folder over HTTP', async ({ serve, tempDir }) => {
    const root = tempDir('served');
    writeFileSync(join(root, 'a.txt'), 'served');
    const folder = await serve(root);
    server = folder.server;
    expect(await (await fetch(`${folder.url}/a.txt`)).text()).toBe('served');
    expect(folder.requests).toEqual(['/a.txt']);
  });

  test('… and closes the server after the test', () => {
    expect(server?.listening).toBe(false);
  });
});

describe('skipIfMissing', () => {
  /** A stand-in for `context.skip`: records the note it was called with. */
  const skipper = () => {
    const skipped: string[] = [];
    const skip = (note?: string): never => {
      skipped.push(String(note));
      throw new Error('skipped');
    };
    return { skipped, skip };
  };

  test('does nothing when nothing is missing', () => {
    const { skipped, skip } = skipper();
    skipIfMissing(skip, null);
    expect(skipped).toEqual([]);
  });

  test('skips with the reason, or under INTERCODE_REQUIRE_ALL fails naming it', ({ setEnv }) => {
    setEnv(REQUIRE_ALL, undefined);
    const { skipped, skip } = skipper();
    expect(() => skipIfMissing(skip, 'no frobnicator here')).toThrow('skipped');
    expect(skipped).toEqual(['no frobnicator here']);
    setEnv(REQUIRE_ALL, '1');
    expect(() => skipIfMissing(skip, 'no frobnicator here')).toThrow(
      /^no frobnicator here \(INTERCODE_REQUIRE_ALL is set/,
    );
    expect(skipped).toHaveLength(1);
  });

  test('lets INTERCODE_REQUIRE_DOCKER fail the docker tests alone', ({ setEnv }) => {
    setEnv(REQUIRE_ALL, undefined);
    setEnv('INTERCODE_REQUIRE_DOCKER', '1');
    const { skipped, skip } = skipper();
    expect(() => skipIfMissing(skip, 'no daemon', 'docker')).toThrow(/^no daemon \(/);
    expect(() => skipIfMissing(skip, 'no server')).toThrow('skipped');
    expect(skipped).toEqual(['no server']);
  });

  test('is the needs fixture of a test (here under INTERCODE_REQUIRE_ALL)', ({ needs, setEnv }) => {
    setEnv(REQUIRE_ALL, '1');
    needs(null);
    needs(undefined);
    expect(() => needs('no frobnicator here')).toThrow(/^no frobnicator here \(INTERCODE_REQUIRE_ALL/);
  });
});
