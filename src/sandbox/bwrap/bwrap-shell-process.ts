import { SandboxError } from '../../core/errors.js';
import type { ShellProcess } from '../persistent-shell.js';
import type { BoxProcess } from './box-process.js';

/**
 * A bwrap sandbox's shell controller as a persistent shell drives it: requests on the box's private
 * channel (fd 5, which bwrap's init does not hold, unlike stdin), replies on its stdout.
 */
export function bwrapShellProcess(
  box: BoxProcess,
  onData: (chunk: Buffer) => void,
  extra: Pick<ShellProcess, 'started' | 'renew' | 'renewMissed'> = {},
): ShellProcess {
  const channel = box.channel;
  if (!channel)
    throw new SandboxError('SANDBOX_START_FAILED', 'the shell box was started without its channel');
  box.stdout.on('data', onData);
  const stop = async () => {
    box.kill();
    await box.exited;
  };
  return {
    write: (data) => channel.write(data),
    kill: () => box.kill(),
    exited: box.exited,
    // The sandbox's processes must be gone before its file system is reset.
    release: stop,
    stop,
    drop: () => box.kill(),
    stderrText: () => box.stderrText(),
    ...extra,
  };
}
