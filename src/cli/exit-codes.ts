/** Exit codes of the command line (DESIGN §9). */
export const EXIT = {
  ok: 0,
  /** Usage or input error: a one-line message names the bad input. */
  usage: 1,
  /** This machine cannot run what was asked: the message says what to install. */
  unavailable: 2,
  /** Interrupted (Ctrl-C, SIGTERM): finished cleanly, nothing half-written. */
  interrupted: 3,
} as const;
