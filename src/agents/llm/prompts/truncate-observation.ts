/**
 * Shortens an observation before it goes back to the model, as the paper's loops do (the strategies
 * pass their limits: try-again 1000 characters / 50 rows, ReAct 350 / 25, Plan & Solve 1000 / 25).
 * Rows are lines (a SQL result prints one row per line): at most `rows` lines are kept, then at most
 * `chars` characters of those. When anything was cut, a last line says how much, so the model knows
 * the output goes on. Limits below 0 count as 0.
 */
export function truncateObservation(text: string, limits: { chars: number; rows?: number }): string {
  const lines = text.split('\n');
  const rowLimit = limits.rows === undefined ? lines.length : Math.max(0, Math.floor(limits.rows));
  let kept = lines.length > rowLimit ? lines.slice(0, rowLimit).join('\n') : text;
  const cutRows = Math.max(0, lines.length - rowLimit);
  const charLimit = Math.max(0, Math.floor(limits.chars));
  const cutChars = kept.length > charLimit;
  if (cutChars) {
    // A character outside the basic plane is two code units: never keep half of one.
    const last = kept.charCodeAt(charLimit - 1);
    kept = kept.slice(0, last >= 0xd800 && last <= 0xdbff ? charLimit - 1 : charLimit);
  }
  if (cutRows === 0 && !cutChars) return text;
  const what = cutRows > 0 ? `${cutRows} more line${cutRows === 1 ? '' : 's'}` : 'more';
  return `${kept}\n[output truncated: ${what} not shown, ${text.length} characters in all]`;
}
