import { reapAllNow } from '../core/host/exit-cleanup.js';
import { EXIT } from './exit-codes.js';

const controller = new AbortController();
let graceful = false;

/** Aborted on the first Ctrl-C/SIGTERM when a command stops gracefully. */
export const interruptSignal: AbortSignal = controller.signal;

/** Declares that the running command watches `interruptSignal` and finishes cleanly on its own. */
export function stopGracefully(): void {
  graceful = true;
}

/** Resolves on the first Ctrl-C/SIGTERM (at once if it came already): how a server command waits for its end. */
export function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    if (interruptSignal.aborted) resolve();
    else interruptSignal.addEventListener('abort', () => resolve(), { once: true });
  });
}

function onSignal(): void {
  if (graceful && !controller.signal.aborted) {
    process.stderr.write(
      '\nintercode: interrupted; finishing cleanly (press Ctrl-C again to stop at once)\n',
    );
    controller.abort();
    return;
  }
  reapAllNow();
  process.stderr.write('\nintercode: interrupted; every sandbox was stopped\n');
  process.exit(EXIT.interrupted);
}

/** Installs the SIGINT/SIGTERM handlers of the command line. */
export function installInterruptHandlers(): void {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
