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
  // When the application handles the signal itself, it decides (it may finish cleanly first and
  // call reapAllNow); the exit handler still reaps whatever is left.
  if (process.listenerCount(signal) > 1) return;
  closeAll();
  // Restore the default action and re-raise, so the process ends as it would have without us.
  process.off(signal, onSignal);
  process.kill(process.pid, signal);
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
