import type { ShellProcess } from '../persistent-shell.js';
import type { SupervisedExec } from './supervised-exec.js';

/** How long a killed shell may take to go before it is dropped anyway. */
const KILL_GRACE_MS = 3_000;

/** A Docker sandbox's `bash` as a persistent shell drives it: over an attached, supervised exec. */
export function dockerShellProcess(exec: SupervisedExec): ShellProcess {
  exec.go();
  return {
    write: (data) => exec.write(data),
    kill: () => exec.kill(),
    exited: exec.exited,
    // A restart replaces the container: dropping the connection makes the supervisor end the tree.
    release: async () => exec.destroy(),
    stop: async () => {
      exec.kill();
      await Promise.race([exec.exited, new Promise((resolve) => setTimeout(resolve, KILL_GRACE_MS))]);
      exec.destroy();
    },
    drop: () => exec.destroy(),
    stderrText: async () => exec.stderr,
  };
}
