import type { Agent } from '../agents/agent.js';
import type { Env } from '../core/env.js';
import type { ChatMessageData } from '../core/run-files/episode-record-schema.js';
import type { Task } from '../core/task.js';
import type { OpenedRun } from '../harness/run-plan.js';
import type { RunMeta } from './run-meta.js';

/** A run opened on a worker: what the command line's `openRun` gives for a run's meta. */
export interface WorkerRun {
  readonly run: OpenedRun;
  readonly agent: Agent;
  /** {@link datasetChecksum} of the dataset as this worker loaded it. */
  readonly checksum: string;
  /**
   * The messages of a shared prompt prefix the agent named (language-model agents): sent with each
   * result, so the gathering run's `prefixes.json` resolves every record.
   */
  readonly prefixes?: (name: string) => readonly ChatMessageData[] | undefined;
  /** Releases what the agent holds (a model client, temporary files). */
  readonly closeAgent?: () => Promise<void>;
}

/** A run a worker plays episodes of: its opened run, agent, tasks by index and idle envs. */
export class RunContext {
  readonly meta: RunMeta;
  readonly worker: WorkerRun;
  readonly #tasks: Map<number, Task>;
  readonly #idle: Env[] = [];
  #closed = false;

  constructor(meta: RunMeta, worker: WorkerRun) {
    this.meta = meta;
    this.worker = worker;
    this.#tasks = new Map(worker.run.dataset.tasks.map((task) => [task.index, task]));
  }

  /** The task at `index`, checked against the id the job carries. */
  task(index: number, id: string): Task {
    const task = this.#tasks.get(index);
    if (!task || task.id !== id)
      throw new Error(`task ${index} of ${this.meta.dataset} here is ${task?.id ?? 'missing'}, not ${id}`);
    return task;
  }

  /** An idle env of the run, or a new one. */
  takeEnv(): Env {
    return this.#idle.pop() ?? this.worker.run.createEnv();
  }

  /** An env back after an episode that ended normally (one that failed is closed instead). */
  giveEnv(env: Env): void {
    if (this.#closed) void env.close().catch(() => {});
    else this.#idle.push(env);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#idle.splice(0).map((env) => env.close()));
    await this.worker.closeAgent?.().catch(() => {});
    await this.worker.run.close();
  }
}
