/** Polls until `check` is true (or fails after `timeoutMs`). */
export async function waitFor(check: () => boolean, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
