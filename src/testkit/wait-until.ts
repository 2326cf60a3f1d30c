/**
 * Polls `probe` until `done` accepts its value or `timeoutMs` passes; returns the last value either
 * way, so the caller's assertion shows what was seen.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 5000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
