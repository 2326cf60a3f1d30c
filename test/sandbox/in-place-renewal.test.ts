import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoxProcess } from '../../src/sandbox/bwrap/box-process.js';
import { InPlaceRenewal, observeController } from '../../src/sandbox/bwrap/in-place-renewal.js';
import type { MountHelper } from '../../src/sandbox/overlay/mount-helper.js';

// Why a bwrap reset did not renew its sandbox in place, for every kind of miss, and the one warning
// per process when the machine is the cause. The helper is a stand-in that fails as a machine
// without the renewal's system calls does; the controller is a real process with one child (as
// bwrap's init has its controller), which `observeController` reads from /proc. The renewal itself
// runs in real sandboxes in test/sandbox/bwrap-renew-in-place.test.ts.

let init: ChildProcess;

beforeAll(async () => {
  init = spawn('/bin/sh', ['-c', 'sleep 60 & wait'], { stdio: 'ignore' });
  // Until the shell has its child.
  for (let tries = 0; tries < 200 && observeController(init.pid!) === null; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
});

afterAll(() => {
  init.kill('SIGKILL');
});

function renewal(helper: Partial<MountHelper>, warnings: string[]) {
  return new InPlaceRenewal({
    helper: helper as MountHelper,
    dir: '/nonexistent',
    lowers: [],
    diskBytes: 1,
    binds: [],
    warn: (message) => warnings.push(message),
  });
}

const box = () => ({ innerPid: init.pid! }) as BoxProcess;

describe('InPlaceRenewal', () => {
  it('keeps the reason of a renewal its shell could not carry out', () => {
    const renewals = renewal({}, []);
    const hooks = renewals.shellHooks(
      box(),
      () => [],
      () => null,
    );
    hooks.renewMissed("processes of the sandbox outlived the shell's rounds of SIGKILL");
    expect(renewals.stats()).toEqual({
      inPlace: 0,
      kept: 0,
      relaunched: 0,
      lastRefusal: "processes of the sandbox outlived the shell's rounds of SIGKILL",
    });
  });

  it('names a controller that was never observed', async () => {
    const renewals = renewal({}, []);
    expect(
      await renewals
        .shellHooks(
          box(),
          () => [],
          () => null,
        )
        .renew({}),
    ).toBe(false);
    expect(renewals.stats().lastRefusal).toMatch(/not observed when it started/);
  });

  it("keeps the helper's refusal without a warning", async () => {
    const warnings: string[] = [];
    const renewals = renewal(
      { renew: async () => ({ renewed: false, why: 'a POSIX message queue exists' }) },
      warnings,
    );
    const baseline = observeController(init.pid!);
    expect(baseline).not.toBeNull();
    expect(await renewals.renew(box(), [], baseline)).toBe(false);
    expect(renewals.stats().lastRefusal).toBe('a POSIX message queue exists');
    expect(warnings).toEqual([]);
  });

  it('asks the helper to keep the sandbox on a trusted reset only, and counts what it did', async () => {
    const asked: boolean[] = [];
    const replies = [
      { renewed: true, kept: true },
      { renewed: true, kept: false, keepRefused: 'its writable layer holds files' },
      { renewed: true, kept: false },
    ] as const;
    const renewals = renewal(
      {
        renew: async (request) => {
          asked.push(request.keep === true);
          return replies[asked.length - 1]!;
        },
      },
      [],
    );
    const baseline = observeController(init.pid!);
    const hooks = renewals.shellHooks(
      box(),
      () => [],
      () => baseline,
    );
    expect(await hooks.renew({ trusted: true })).toBe(true);
    expect(renewals.stats()).toEqual({ inPlace: 1, kept: 1, relaunched: 0 });
    expect(await hooks.renew({ trusted: true })).toBe(true);
    expect(renewals.stats()).toEqual({
      inPlace: 2,
      kept: 1,
      relaunched: 0,
      lastRefusal: 'not kept: its writable layer holds files',
    });
    expect(await hooks.renew({})).toBe(true);
    expect(renewals.stats()).toMatchObject({ inPlace: 3, kept: 1 });
    expect(asked).toEqual([true, true, false]);
  });

  it("warns once per process when the helper fails for the machine's reason, and keeps each reason", async () => {
    const warnings: string[] = [];
    const failing = { renew: () => Promise.reject(new Error('open_tree: function not implemented')) };
    const first = renewal(failing, warnings);
    const second = renewal(failing, warnings);
    const baseline = observeController(init.pid!);
    expect(await first.renew(box(), [], baseline)).toBe(false);
    expect(await second.renew(box(), [], baseline)).toBe(false);
    expect(await first.renew(box(), [], baseline)).toBe(false);
    expect(first.stats().lastRefusal).toBe('open_tree: function not implemented');
    expect(second.stats().lastRefusal).toBe('open_tree: function not implemented');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /could not renew its sandbox in place \(open_tree: function not implemented\)/,
    );
  });
});
