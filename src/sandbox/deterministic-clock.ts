import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_BASE_ENV } from './base-sandbox.js';
import { CLOCKLESS_DIR } from './clockless-layer.js';

/**
 * The instant a deterministic sandbox's clock shows: 2023-06-01 12:00:00 UTC, when the paper's runs
 * were made (NL2Bash's setup scripts date their "recent" files 2023-05-31, their old ones earlier).
 */
export const DETERMINISTIC_CLOCK_MS = Date.UTC(2023, 5, 1, 12, 0, 0);

/**
 * How long before the clock's instant a task's file system was made: what a deterministic layer's
 * files that its setup script created or changed "now" are dated (see `script-layer.ts`). Half an hour:
 * fresh, as the original's images were when its runs were made (`find -mmin -60` finds them, `-mmin +5`
 * too), and away from the round bounds tasks use.
 */
export const LAYER_AGE_MS = 30 * 60 * 1000;

/** Where Debian installs libfaketime (package `libfaketime`), per architecture, under an image's root. */
const LIBRARY_PATHS: Readonly<Record<string, string>> = {
  x64: '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  arm64: '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
};

/**
 * Shell code run before any user code in every sandbox shell: forgets the name of libfaketime's
 * shared semaphore. libfaketime 0.9.10 creates one per process that finds no name in its
 * environment and names it there (`FAKETIME_SHARED`); a forked copy of that process unlinks it when
 * it exits (the copy inherits "created here"). A shell forks for every command and subshell, so
 * its children would inherit a name that is soon stale, and a `bash` started with a stale name
 * exits at once with status 1 ("sem_open failed"). Without the name, each program makes its own.
 * Harmless where libfaketime is not loaded.
 */
export const FORGET_CLOCK_SHARE = 'unset FAKETIME_SHARED';

/** The path of libfaketime inside an image built for this machine's architecture. */
export function clockLibraryPath(): string | null {
  return LIBRARY_PATHS[process.arch] ?? null;
}

/** libfaketime's path inside an image whose root is the host directory `root`, or null when it has none. */
export function clockLibraryUnder(root: string): string | null {
  const path = clockLibraryPath();
  return path !== null && existsSync(join(root, path)) ? path : null;
}

/** `YYYY-MM-DD hh:mm:ss[.fff]` in UTC, libfaketime's start-at form. */
function startAt(epochMs: number): string {
  const iso = new Date(epochMs).toISOString().replace('T', ' ');
  return epochMs % 1000 === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
}

/**
 * The environment of every process of a deterministic sandbox. Pinned always: the time zone, the
 * locale and Python's string hashing (set and dict orders). With `library` (libfaketime inside the
 * image), the clock too: every program starts with it at `clockMs` and it runs from there within the
 * program (`date` prints the same instant in every sandbox, whenever it runs). File times are the
 * kernel's (stat is not faked): the files a command writes carry the real time. (libfaketime also
 * shifts the monotonic clock; leaving it alone breaks Python's `time.sleep` in libfaketime 0.9.10.)
 */
export function deterministicEnv(
  clock: { readonly clockMs: number; readonly shiftFileTimes?: boolean },
  library: string | null,
): Record<string, string> {
  const env: Record<string, string> = {
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONHASHSEED: '0',
  };
  if (library === null) return env;
  return {
    ...env,
    // The programs that hang under libfaketime are wrapped to run with the real clock.
    PATH: `${CLOCKLESS_DIR}:${SANDBOX_BASE_ENV.PATH}`,
    LD_PRELOAD: library,
    FAKETIME: `@${startAt(clock.clockMs)}`,
    ...(clock.shiftFileTimes ? {} : { NO_FAKE_STAT: '1' }),
  };
}
