import { readFileSync } from 'node:fs';
import type { MountHelper } from '../overlay/mount-helper.js';
import type { ShellProcess } from '../persistent-shell.js';
import type { SandboxResetOptions, SandboxStats } from '../sandbox.js';
import { RESTART_SKIPPED_PIDS } from '../shell-protocol.js';
import type { BoxProcess } from './box-process.js';
import { type Bind, CONTROLLER_PATH } from './controller-binary.js';

/** What a bwrap sandbox's renewal in place needs of it. */
export interface RenewableSandbox {
  readonly helper: MountHelper;
  readonly dir: string;
  readonly lowers: readonly string[];
  readonly diskBytes: number;
  readonly binds: readonly Bind[];
  /** Told once per process when a renewal fails for a reason of this machine (not of the sandbox). */
  readonly warn: (message: string) => void;
}

/** Whether this process has warned that renewals fail here (once is enough: every sandbox shares the cause). */
let warnedRenewalError = false;

/**
 * The resets of one bwrap sandbox: renewed in place around its running shell where the sandbox
 * allows it (`renew-root.py`), else with a new bwrap (counted by the sandbox's `renew`).
 */
export class InPlaceRenewal {
  readonly #sandbox: RenewableSandbox;
  #inPlace = 0;
  #kept = 0;
  #relaunched = 0;
  #lastRefusal = '';

  constructor(sandbox: RenewableSandbox) {
    this.#sandbox = sandbox;
  }

  /** A reset that started a new bwrap. */
  relaunched(): void {
    this.#relaunched += 1;
  }

  /**
   * What the persistent shell of the sandbox's controller `box` calls for a reset in place: the
   * renewal (`others`: the sandbox's other boxes; `baseline`: see {@link renew}), and the record of
   * a renewal its own side could not carry out (`ShellProcess.renewMissed`).
   */
  shellHooks(
    box: BoxProcess,
    others: () => readonly BoxProcess[],
    baseline: () => string | null,
  ): Required<Pick<ShellProcess, 'renew' | 'renewMissed'>> {
    return {
      renew: (options: SandboxResetOptions) =>
        this.renew(box, others(), baseline(), options.trusted === true),
      renewMissed: (why) => {
        this.#lastRefusal = why;
      },
    };
  }

  stats(): NonNullable<SandboxStats['resets']> {
    return {
      inPlace: this.#inPlace,
      kept: this.#kept,
      relaunched: this.#relaunched,
      ...(this.#lastRefusal ? { lastRefusal: this.#lastRefusal } : {}),
    };
  }

  /**
   * Renews the sandbox around the shell of `box`, whose controller has ended every other process of
   * its namespaces: the sandbox's `others` boxes end first, then the helper mounts a fresh overlay
   * and makes it the box's root. `baseline` is what {@link observeController} read when the
   * controller started (null: nothing read, no renewal), which it must still read: a command of the
   * same user may have changed the controller's limits or scheduling. False when either refused.
   * `trusted` (a trusted reset): the helper keeps the sandbox as it is when nothing of it changed.
   */
  async renew(
    box: BoxProcess,
    others: readonly BoxProcess[],
    baseline: string | null,
    trusted = false,
  ): Promise<boolean> {
    for (const other of others) other.kill();
    await Promise.all(others.map((other) => other.exited));
    if (baseline === null) {
      this.#lastRefusal =
        "the shell's controller was not observed when it started (or the sandbox is closing)";
      return false;
    }
    if (observeController(box.innerPid) !== baseline) {
      this.#lastRefusal = "the shell's limits or scheduling changed";
      return false;
    }
    const { helper, dir, lowers, diskBytes, binds } = this.#sandbox;
    try {
      const result = await helper.renew({
        dir,
        lowers,
        sizeBytes: diskBytes,
        initPid: box.innerPid,
        mounts: topMounts(binds),
        devMounts: [CONTROLLER_PATH.slice('/dev/'.length)],
        skippedPids: RESTART_SKIPPED_PIDS,
        ...(trusted ? { keep: true } : {}),
      });
      if (!result.renewed) {
        this.#lastRefusal = result.why;
        return false;
      }
      this.#inPlace += 1;
      if (result.kept) this.#kept += 1;
      if (result.keepRefused !== undefined) this.#lastRefusal = `not kept: ${result.keepRefused}`;
      return true;
    } catch (error) {
      // A machine without what the renewal needs (see `intercode doctor`): the reset starts anew.
      this.#lastRefusal = (error as Error).message;
      if (!warnedRenewalError) {
        warnedRenewalError = true;
        this.#sandbox.warn(
          `a bwrap reset could not renew its sandbox in place (${this.#lastRefusal}): such resets start a new bwrap, which takes longer (intercode doctor checks "resets in place")`,
        );
      }
      return false;
    }
  }
}

/** The mount points right below a sandbox's root: the binds not inside another, /proc and /dev. */
function topMounts(binds: readonly Bind[]): string[] {
  const targets = binds.map((bind) => (typeof bind === 'string' ? bind : bind.target).replace(/\/+$/, ''));
  const top = targets.filter(
    (target) => !targets.some((other) => other !== target && target.startsWith(`${other}/`)),
  );
  return [...new Set([...top, '/proc', '/dev'])];
}

/**
 * What a command of the sandbox could change on its controller from outside it (same user, no
 * capabilities): its limits, nice value, real-time priority and scheduling policy, CPU and memory
 * sets (the I/O class, which /proc does not show, `renew-root.py` checks). Read as the controller
 * starts and again before a renewal. Null when bwrap's init `initPid` has not exactly one child.
 */
export function observeController(initPid: number): string | null {
  try {
    const children = readFileSync(`/proc/${initPid}/task/${initPid}/children`, 'utf8').trim().split(' ');
    if (children.length !== 1 || children[0] === '') return null;
    const read = (name: string) => readFileSync(`/proc/${children[0]}/${name}`, 'utf8');
    const stat = read('stat');
    const fields = stat
      .slice(stat.lastIndexOf(')') + 1)
      .trim()
      .split(/\s+/);
    const sets = read('status')
      .split('\n')
      .filter((line) => line.startsWith('Cpus_allowed_list') || line.startsWith('Mems_allowed_list'));
    return [read('limits'), [fields[16], fields[37], fields[38]].join(' '), sets.join('\n')].join('\n');
  } catch {
    return null;
  }
}
