/**
 * The delay of a time-limit timer. Node fires timers longer than 2^31 - 1 ms (and `Infinity`) after
 * 1 ms, so an unlimited or very long limit gets the longest delay Node keeps (24.8 days).
 */
export function timerDelay(timeoutMs: number): number {
  return Math.min(Math.max(0, timeoutMs), 2 ** 31 - 1);
}

/**
 * The time limit of one statement on a database server: when it passes, `cancel` asks the server
 * to stop the statement; if the statement still runs `graceMs` later, `escalate` ends its
 * connection. The interruptions are sent from another connection, so they are in flight when the
 * statement returns: `stop` waits until every one has landed, so that none can hit the session's
 * next statement.
 */
export class StatementTimer {
  /** The limit passed (the statement was asked to stop). */
  timedOut = false;
  readonly #interruptions: Promise<void>[] = [];
  readonly #timer: NodeJS.Timeout;
  #escalation: NodeJS.Timeout | undefined;

  constructor(
    timeoutMs: number,
    graceMs: number,
    cancel: () => Promise<void>,
    escalate: () => Promise<void>,
  ) {
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#interruptions.push(cancel());
      this.#escalation = setTimeout(() => this.#interruptions.push(escalate()), graceMs);
    }, timerDelay(timeoutMs));
  }

  /** Another interruption `stop` waits for (e.g. a query stopped once enough rows were counted). */
  add(interruption: Promise<void>): void {
    this.#interruptions.push(interruption);
  }

  /** Clears the timers; resolves once every interruption sent has landed. */
  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    clearTimeout(this.#escalation);
    await Promise.all(this.#interruptions);
  }
}
