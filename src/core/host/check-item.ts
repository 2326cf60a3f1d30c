/** One line of a machine check (`intercode doctor`, a provider's `check()`): what works, what is missing, and the fix. */
export interface CheckItem {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  /** The command that fixes a missing piece. */
  readonly fix?: string;
  /** A missing piece that only weakens guarantees (a warning), rather than preventing use. */
  readonly optional?: boolean;
}
