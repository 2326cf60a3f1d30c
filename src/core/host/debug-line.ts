/** Writes `intercode: <text>` to stderr when `INTERCODE_DEBUG` is set (diagnostics, never errors). */
export function debugLine(text: string): void {
  if (process.env.INTERCODE_DEBUG) process.stderr.write(`intercode: ${text}\n`);
}
