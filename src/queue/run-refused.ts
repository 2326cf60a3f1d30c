/**
 * A worker cannot play a run (its model check failed: no key in this worker's environment, an
 * endpoint it cannot reach). Thrown while the run is opened; the worker then refuses the run with
 * this message, like a version mismatch, and its jobs go to other workers.
 */
export class RunRefused extends Error {
  override readonly name = 'RunRefused';
  readonly code = 'RUN_REFUSED';
}
