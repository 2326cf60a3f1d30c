/** Something that must not outlive this process. */
export interface SyncCloseable {
  /** Kills and removes synchronously; called from exit and signal handlers. */
  closeSync(): void;
}

const live = new Set<SyncCloseable>();
let installed = false;

function closeAll(): void {
  for (const item of [...live]) {
    try {
      item.closeSync();
    } catch {
      // Keep going: every other resource still needs its chance.
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  closeAll();
  // Restore the default action and re-raise, so the process ends as it would have without us,
  // unless the application has its own handler, which then decides.
  process.off(signal, onSignal);
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/**
 * Tracks a resource so that it is reaped on normal exit, on SIGINT/SIGTERM/SIGHUP, and (through
 * labels and the next start's reaper) after a crash. Returns the function that stops tracking.
 */
export function trackForExit(item: SyncCloseable): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', closeAll);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  }
  live.add(item);
  return () => live.delete(item);
}

/** Reaps every tracked resource now (the CLI calls it before exiting on a signal). */
export function reapAllNow(): void {
  closeAll();
}
