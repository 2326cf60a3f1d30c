import { test as base } from 'vitest';
import { PrivateRedis } from '../../src/queue/private-redis.js';
import { CliRunner } from './cli-runner.js';
import { EnvVars } from './env-vars.js';
import { MIRROR } from './project.js';
import { closeServer, type ServedFolder, serveFolder } from './serve-folder.js';
import { skipIfMissing } from './skip-if-missing.js';
import { TempDirs } from './temp-dirs.js';

// Vitest's `test` with fixtures that own what a test uses and undo it afterwards, also when the test
// fails: temporary folders, a private cache, the data mirror, environment variables, HTTP servers and
// CLI runs. File-scoped ones (`cache`, `mirror`, `fileTempDir`, `cli`) are made once per test file, on
// first use, and are also available in `test.beforeAll`/`test.afterAll`; the others are made per test.

/* biome-ignore-start lint/correctness/noEmptyPattern: Vitest reads fixture dependencies from a
   destructured first argument, so a fixture that needs none destructures nothing. */
export const test = base
  /** Makes a temporary folder (`prefix` names it) that is removed when the test file ends. */
  .extend('fileTempDir', { scope: 'file' }, ({}, { onCleanup }) => {
    const dirs = new TempDirs();
    onCleanup(() => dirs.removeAll());
    return (prefix: string): string => dirs.make(prefix);
  })
  /**
   * A private, empty INTERCODE_CACHE_DIR for the test file (so a developer's cache never hides a
   * missing build step): set in this process, put back and removed when the file ends.
   */
  .extend('cache', { scope: 'file' }, ({ fileTempDir }, { onCleanup }) => {
    const vars = new EnvVars();
    onCleanup(() => vars.restore());
    const dir = fileTempDir('cache');
    vars.set('INTERCODE_CACHE_DIR', dir);
    return dir;
  })
  /** INTERCODE_DATA_MIRROR set to the local mirror for the test file (put back when it ends). */
  .extend('mirror', { scope: 'file' }, ({}, { onCleanup }) => {
    const vars = new EnvVars();
    onCleanup(() => vars.restore());
    vars.set('INTERCODE_DATA_MIRROR', MIRROR);
    return MIRROR;
  })
  /** The compiled CLI with the file's cache and the local mirror; background runs are killed at the end. */
  .extend('cli', { scope: 'file' }, ({ cache }, { onCleanup }) => {
    const cli = new CliRunner(cache);
    onCleanup(() => cli.stopAll());
    return cli;
  })
  /** Makes a temporary folder (`prefix` names it) that is removed when the test ends. */
  .extend('tempDir', ({}, { onCleanup }) => {
    const dirs = new TempDirs();
    onCleanup(() => dirs.removeAll());
    return (prefix: string): string => dirs.make(prefix);
  })
  /** Sets (or with `undefined`, unsets) an environment variable of this process until the test ends. */
  .extend('setEnv', ({}, { onCleanup }) => {
    const vars = new EnvVars();
    onCleanup(() => vars.restore());
    return (name: string, value: string | undefined): void => vars.set(name, value);
  })
  /**
   * Skips the test when a component it needs is missing (`missing` says why, as the functions of
   * missing-components.ts do), or under INTERCODE_REQUIRE_ALL fails it.
   */
  .extend(
    'needs',
    ({ skip }) =>
      (missing: string | null | undefined, component?: 'docker'): void =>
        skipIfMissing(skip, missing, component),
  )
  /**
   * Starts a private redis-server on a free loopback port in its own folder (append-only file on, so
   * a restart keeps the data unless told to drop it); stopped by its pid and removed when the test ends.
   */
  .extend('startRedis', ({}, { onCleanup }) => {
    const servers: PrivateRedis[] = [];
    onCleanup(async () => {
      await Promise.all(servers.map((server) => server.close()));
    });
    return async (): Promise<PrivateRedis> => {
      const server = await PrivateRedis.start();
      servers.push(server);
      return server;
    };
  })
  /** Serves a folder over HTTP on 127.0.0.1 until the test ends. */
  .extend('serve', ({}, { onCleanup }) => {
    const served: ServedFolder[] = [];
    onCleanup(async () => {
      await Promise.all(served.map(({ server }) => closeServer(server)));
    });
    return async (root: string): Promise<ServedFolder> => {
      const folder = await serveFolder(root);
      served.push(folder);
      return folder;
    };
  });
/* biome-ignore-end lint/correctness/noEmptyPattern: see above */

/** The same as `test`, for suites written with `it`. */
export const it = test;
