/** Runs `action` so that a synchronous throw and a rejection both end up as a rejected promise. */
export function attempt<T>(action: () => Promise<T>): Promise<T> {
  return Promise.resolve().then(action);
}
