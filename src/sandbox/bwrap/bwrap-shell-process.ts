import type { ShellProcess } from '../persistent-shell.js';
import type { BoxProcess } from './box-process.js';

/** A bwrap sandbox's `bash` as a persistent shell drives it: over the box process's pipes. */
export function bwrapShellProcess(box: BoxProcess, onData: (chunk: Buffer) => void): ShellProcess {
  box.stdout.on('data', onData);
  const stop = async () => {
    box.kill();
    await box.exited;
  };
  return {
    write: (data) => box.stdin.write(data),
    kill: () => box.kill(),
    exited: box.exited,
    // The sandbox's processes must be gone before its file system is reset.
    release: stop,
    stop,
    drop: () => box.kill(),
    stderrText: () => box.stderrText(),
  };
}
