/**
 * A figure of the InterCode paper (arXiv 2306.14898 v3) as data: which setting it measured, its
 * value as printed, and where it is printed. The paper truncates (not rounds) most percentages to
 * one decimal; the values here are the printed ones, unchanged.
 */

/** The paper's models, by the names their providers give them. */
export const PAPER_MODELS = [
  'gpt-4',
  'gpt-3.5-turbo',
  'text-davinci-003',
  'text-bison-001',
  'chat-bison-001',
  'vicuna-13b',
  'starchat-16b',
] as const;
export type PaperModel = (typeof PAPER_MODELS)[number];

/** The paper's prompting strategies, by the `--strategy` names of this project. */
export type PaperStrategy = 'single' | 'try-again' | 'react' | 'plan-solve';

/** The run metric a figure is compared with. */
export type PaperMetric = 'successRate' | 'firstTurnSuccessRate' | 'meanTurns' | 'errorRate';

/** Where a figure is printed. */
export interface PaperSource {
  /** `Table 2`, or `text` for a figure quoted in the prose. */
  readonly table: string;
  readonly row: string;
  readonly column: string;
  /** How the figure was obtained when the paper's text does not show it (see `recomputed`). */
  readonly note?: string;
  /**
   * The cell is missing from the paper's text we hold; the value was recomputed from the
   * upstream result file the paper's table was made from (reports mark it).
   */
  readonly recomputed?: boolean;
}

/** One cell of the paper's tables, with the setting it was measured in. */
export interface PaperFigure {
  readonly env: 'sql' | 'bash';
  readonly model: PaperModel;
  /** The run the figure was measured on. */
  readonly strategy: PaperStrategy;
  readonly maxTurns: number | undefined;
  /** The SQL schema hint was in the prompt (Table 5). */
  readonly handicap: boolean;
  /** `all`, a Spider hardness (`easy`, `medium`, `hard`, `extra`) or an NL2Bash file system (`fs1`…). */
  readonly group: string;
  /** What the figure measures on that run: a success rate of the first turn is the paper's "single turn". */
  readonly metric: PaperMetric;
  /** As printed: a percentage for rates (73.7), a number of turns for `meanTurns`. */
  readonly value: number;
  readonly source: PaperSource;
}

/** The paper itself. */
export const PAPER = {
  title: 'InterCode: Standardizing and Benchmarking Interactive Coding with Execution Feedback',
  arxiv: '2306.14898',
  version: 'v3',
} as const;
