/** One benchmark task, as every environment and agent sees it. */
export interface Task {
  /** Stable id within its dataset (upstream index or task_id), unique in the dataset. */
  readonly id: string;
  /** Position in the dataset, from 0. */
  readonly index: number;
  /** The natural-language instruction given to the agent. */
  readonly query: string;
  /** The reference solution: a command, a query, a function, a flag. Several are joined by the env. */
  readonly gold?: string | readonly string[];
  /** Group for per-group metrics: file system (Bash), hardness (Spider), tag (CTF). */
  readonly group?: string;
  /** Dataset-specific fields (database name, tests, setup commands, …), kept as upstream has them. */
  readonly meta: Readonly<Record<string, unknown>>;
}

/** A loaded dataset: its tasks and what an environment needs to run them. */
export interface Dataset {
  /** Registry id (`nl2bash/fs1`, `demo/bash`) or the path of a user's task file. */
  readonly id: string;
  /** Id of the environment that runs these tasks (`bash`, `sql`, `python`, `ctf`). */
  readonly env: string;
  readonly tasks: readonly Task[];
  /**
   * Local paths of the files the environment needs besides the tasks (a file-system setup script,
   * a database dump, task assets), keyed by a name the environment knows.
   */
  readonly assets: Readonly<Record<string, string>>;
}

/** The task's gold as one text, a list gold joined with `separator` (each env joins its own way). */
export function joinedGold(task: Task, separator: string): string | undefined {
  if (task.gold === undefined) return undefined;
  return typeof task.gold === 'string' ? task.gold : task.gold.join(separator);
}
