import type { Dataset } from '../core/task.js';

/** A registered dataset: what it is, what it needs, and how to load it. */
export interface DatasetSpec {
  /** Registry id, e.g. `nl2bash/fs1`, `spider/dev`, `demo/bash`. */
  readonly id: string;
  /** Id of the environment that runs its tasks (`bash`, `sql`, `python`, `ctf`). */
  readonly env: string;
  readonly description: string;
  /** Number of tasks, as documented upstream (a test checks it against the data). */
  readonly taskCount: number;
  /** What a task's group is (`file system`, `hardness`, `tag`, `kind`), when tasks have one. */
  readonly groupBy?: string;
  /** Pinned upstream files it downloads (empty for built-in sets). */
  readonly files: readonly string[];
  /** True for the task sets shipped inside the package (nothing to download). */
  readonly builtIn: boolean;
  /** Set when it cannot load because an upstream file it needs is not available: the reason. */
  readonly unavailable?: string;
  /** Set when some of its tasks lack files (they load, marked `meta.unavailable`): which and why. */
  readonly partial?: string;
  /**
   * The sandbox image its tasks were written for (`debian:bash` for NL2Bash): a run that names no
   * image uses it when it is built, else the backend's default, with a notice saying how to build it.
   */
  readonly image?: string;
  /** Downloads (or reuses) its files and loads its tasks. */
  load(): Promise<Dataset>;
}
