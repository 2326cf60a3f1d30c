import { PassThrough, Writable } from 'node:stream';
import type { SandboxProcess } from '../sandbox.js';
import type { SupervisedExec } from './supervised-exec.js';

/**
 * A supervised exec as a `SandboxProcess` (`Sandbox.spawn`): `start` starts it with the given
 * output and error sinks, `track` is told of it once started; it then runs at once, its standard
 * input goes through the supervisor's frames, and its streams end when it does.
 */
export async function startExecProcess(
  start: (onOutput: (chunk: Buffer) => void, onStderr: (chunk: Buffer) => void) => Promise<SupervisedExec>,
  track: (exec: SupervisedExec) => void,
): Promise<SandboxProcess> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const exec = await start(
    (chunk) => stdout.write(chunk),
    (chunk) => stderr.write(chunk),
  );
  track(exec);
  exec.exited.then(() => {
    stdout.end();
    stderr.end();
  });
  exec.go();
  const stdin = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      exec.write(chunk);
      callback();
    },
    final(callback) {
      exec.endInput();
      callback();
    },
  });
  return { stdin, stdout, stderr, exited: exec.exited, kill: () => exec.kill() };
}
