import { describe, expect, it } from 'vitest';
import { PersistentShell, type ShellProcess } from '../../src/sandbox/persistent-shell.js';
import { RENEW_COMMAND, WIRE_TOKENS } from '../../src/sandbox/shell-protocol.js';

// The persistent shell's reset in place against a scripted controller (the protocol of
// shell-protocol.ts: `command NUL nonce` in, `nonce:exit-code:cwd NUL` out): every renewal that
// does not happen says why, and the reset then starts a new shell. The real controller's side is
// tested in real sandboxes (test/sandbox/bwrap-renew-in-place.test.ts).

interface Script {
  /** Exit code of the controller's answer to each request, by command ('' is the readiness check). */
  answer(command: string): number;
  renewed: boolean;
}

function scriptedController(script: Script, log: string[]) {
  let launches = 0;
  const missed: string[] = [];
  const launch = async (onData: (chunk: Buffer) => void): Promise<ShellProcess> => {
    launches += 1;
    let exit: (code: number | null) => void = () => {};
    const exited = new Promise<number | null>((resolve) => {
      exit = resolve;
    });
    return {
      write: (data) => {
        const text = data.toString();
        if (text === 'go\n') {
          log.push('go');
          return;
        }
        const [wire = '', nonce = ''] = text.split('\0');
        // The renewal request travels as its token (`wireCommand`), as the real controller reads it.
        const command = wire === WIRE_TOKENS.renew ? RENEW_COMMAND : wire;
        log.push(command === RENEW_COMMAND ? 'renew-command' : `run:${command}`);
        const code = script.answer(command);
        setImmediate(() => onData(Buffer.from(`${nonce}:${code}:/\0`)));
      },
      kill: () => exit(null),
      exited,
      release: async () => exit(0),
      stop: async () => exit(0),
      drop: () => exit(null),
      stderrText: async () => '',
      renew: async () => {
        log.push('renew');
        return script.renewed;
      },
      renewMissed: (why) => missed.push(why),
    };
  };
  return { launch, missed, launches: () => launches };
}

async function resetOnce(script: Script) {
  const log: string[] = [];
  const controller = scriptedController(script, log);
  const shell = await PersistentShell.open({
    launch: controller.launch,
    cwd: '/',
    timeoutMs: 2_000,
    maxOutputBytes: 4096,
  });
  let between = 0;
  await shell.restart(
    async () => {
      between += 1;
    },
    async () => {},
  );
  await shell.close();
  return { log, missed: controller.missed, launches: controller.launches(), between };
}

describe('PersistentShell reset in place', () => {
  it('renews without a new shell when every step answers', async () => {
    const done = await resetOnce({ answer: () => 0, renewed: true });
    expect(done.missed).toEqual([]);
    expect(done.launches).toBe(1);
    expect(done.between).toBe(0);
    expect(done.log).toEqual(['run:', 'renew-command', 'renew', 'go', 'run:']);
  });

  it("says why when the controller's end of the other processes fails, and starts a new shell", async () => {
    const done = await resetOnce({ answer: (command) => (command === RENEW_COMMAND ? 1 : 0), renewed: true });
    expect(done.missed).toEqual(["processes of the sandbox outlived the shell's rounds of SIGKILL"]);
    expect(done.log).not.toContain('renew');
    expect(done.launches).toBe(2);
    expect(done.between).toBe(1);
  });

  it('names any other exit code of that step', async () => {
    const done = await resetOnce({ answer: (command) => (command === RENEW_COMMAND ? 3 : 0), renewed: true });
    expect(done.missed).toEqual(["the shell's end of the other processes failed (exit code 3)"]);
    expect(done.launches).toBe(2);
  });

  it('says why when the renewed shell does not answer ready, and starts a new shell', async () => {
    let readiness = 0;
    const done = await resetOnce({
      // The first readiness check is the shell's start; the second follows the renewal.
      answer: (command) => (command === '' && ++readiness === 2 ? 1 : 0),
      renewed: true,
    });
    expect(done.missed).toEqual(['the renewed shell did not start']);
    expect(done.log.slice(0, 5)).toEqual(['run:', 'renew-command', 'renew', 'go', 'run:']);
    expect(done.launches).toBe(2);
    expect(done.between).toBe(1);
  });

  it("leaves a refusal of the backend's own to the backend (nothing missed here)", async () => {
    const done = await resetOnce({ answer: () => 0, renewed: false });
    expect(done.missed).toEqual([]);
    expect(done.log).not.toContain('go');
    expect(done.launches).toBe(2);
  });
});
