import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { processTree, stopProcesses } from '../../src/sandbox/process-freezer.js';

// The freezer without cgroups (how a bwrap sandbox is stopped when not run as root), on a process
// tree of the test's own: a shell with a background job and a `setsid` child that keep forking.

/** The state letter of every thread of `pid` ('T' stopped), or [] once it is gone. */
function states(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    });
  } catch {
    return [];
  }
}

describe('stopProcesses over processTree', () => {
  it('stops a tree that keeps forking, setsid children included, and resumes it', async () => {
    // Each loop forks a short-lived `true` many times a second; the setsid one is in its own session.
    const loop = 'while :; do /bin/true; done';
    const root = spawn('/bin/bash', ['-c', `${loop} & setsid /bin/bash -c '${loop}' & wait`], {
      stdio: 'ignore',
    });
    try {
      await sleep(300);
      const tree = () => processTree([root.pid!]);
      expect(tree().length).toBeGreaterThanOrEqual(3);
      const stopped = await stopProcesses(tree);
      const frozen = tree();
      for (const pid of frozen) {
        for (const state of states(pid)) expect(['T', 'Z', 'X'], `process ${pid}`).toContain(state);
      }
      // Nothing forks while stopped: the same processes a while later.
      await sleep(200);
      expect(tree().sort()).toEqual(frozen.sort());
      await stopped.resume();
      await sleep(200);
      expect(tree().some((pid) => states(pid).some((state) => state !== 'T'))).toBe(true);
    } finally {
      for (const pid of processTree([root.pid!]).reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone.
        }
      }
    }
  }, 30_000);
});
