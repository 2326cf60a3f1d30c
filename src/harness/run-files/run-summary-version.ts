/**
 * The `schemaVersion` of the `summary.json` this build writes. Summaries written before the field
 * existed have none and are version 1 by definition. Version 2 added the setting a run was played
 * in (`maxTurns`, `handicap`, `compat`), first-turn success and the token and cost totals; a
 * version 1 summary still reads (those fields are absent from it).
 */
export const RUN_SUMMARY_VERSION = 2;
