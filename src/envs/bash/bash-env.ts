import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Action } from '../../core/action.js';
import { toAction } from '../../core/action.js';
import type { Env, Observation, ResetInfo, ResetOptions, Score, StepResult } from '../../core/env.js';
import { EnvError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import { LEFTOVER_PROCESSES_COMMAND } from '../../sandbox/leftover-processes.js';
import type { ExecResult, Sandbox } from '../../sandbox/sandbox.js';
import { isScorerLimit } from '../../sandbox/scorer-limit-error.js';
import { skipStep, submitStep } from '../control-steps.js';
import type { SandboxEnvOptions } from '../sandbox-env-options.js';
import { pickTask } from '../task-picker.js';
import {
  type GitChange,
  gitStatusChanges,
  parseTopLevelIgnore,
  UPSTREAM_IGNORED,
} from './git-status-changes.js';
import { bashReward } from './reward/bash-reward.js';
import { scriptLayer } from './script-layer.js';
import { taskLayerOptions } from './task-layer.js';
import { simplifyPath, upstreamCommandLine } from './upstream-command.js';

/**
 * Options of the Bash env. `compat: 'upstream'`: every command is mangled as upstream's
 * `bash -c "<cmd>"` + `shlex.split` did, each in a fresh process with an emulated `cd`, and
 * directories count as equal in the content check (upstream's missing `md5deep`).
 */
export type BashEnvOptions = SandboxEnvOptions;

/** The agent's and the evaluator's sandboxes on one task file system. */
interface Boxes {
  readonly layers: readonly string[];
  readonly agent: Sandbox;
  readonly evaluator: Sandbox;
  agentPristine: boolean;
  evaluatorPristine: boolean;
}

/** What the gold did in the pristine evaluation sandbox. */
interface GoldRun {
  readonly output: string | null;
  readonly changes: readonly GitChange[];
  readonly corrupt: boolean;
  /** The evaluator's diff met a scorer bound (the gold's own doing): why. */
  readonly limit?: string;
}

/** Runs `work` with every process of `sandbox` stopped, then lets them run again. */
async function whileStopped<T>(sandbox: Sandbox, work: () => Promise<T>): Promise<T> {
  const stopped = await sandbox.quiesce();
  try {
    return await work();
  } finally {
    await stopped.resume();
  }
}

/** Reward 0 for a state the scorer could not walk within its bounds, with the reason. */
function limitScore(reason: string): Score {
  return { value: 0, details: { scoreLimit: reason }, scoreLimit: reason };
}

/** Joins a list gold with `;`, as upstream does. */
function goldCommand(task: Task): string | undefined {
  if (task.gold === undefined) return undefined;
  return typeof task.gold === 'string' ? task.gold : task.gold.join(';');
}

function observationOf(result: ExecResult, timeoutMs: number): Observation {
  const text = result.timedOut
    ? `${result.output}${result.output.endsWith('\n') || result.output === '' ? '' : '\n'}[command timed out after ${timeoutMs / 1000} s]\n`
    : result.output;
  return {
    text,
    durationMs: result.durationMs,
    ...(result.exitCode !== null ? { exitCode: result.exitCode } : {}),
    ...(result.truncated ? { truncated: result.truncated } : {}),
    ...(result.timedOut ? { timedOut: true } : {}),
  };
}

/**
 * The Bash environment (NL2Bash): a persistent shell per episode in the agent's sandbox, the gold
 * command in a separate pristine evaluation sandbox, and upstream's reward: 0.01 + file diff +
 * file contents + output similarity.
 */
export class BashEnv implements Env {
  readonly #options: BashEnvOptions;
  readonly #ignored: ReadonlySet<string>;
  #boxes: Boxes | undefined;
  readonly #layers = new Map<string, Promise<string[]>>();
  #task: Task | undefined;
  #gold: Promise<GoldRun> | undefined;
  #lastObservation = '';
  /** Working directory of upstream's emulated `cd` (compatibility mode only). */
  #workdir = '/';
  #closed = false;

  constructor(options: BashEnvOptions) {
    this.#options = options;
    const gitignore = options.dataset.assets.gitignore;
    this.#ignored = gitignore
      ? parseTopLevelIgnore(readFileSync(gitignore, 'utf8'))
      : new Set(UPSTREAM_IGNORED);
  }

  get task(): Task | undefined {
    return this.#task;
  }

  /**
   * The layers of a task's file system: built from its setup script once per script (cached on
   * disk by the script's hash, and here per env so that a reset neither reads nor hashes it again).
   */
  #layersFor(task: Task): Promise<string[]> {
    const assets = this.#options.dataset.assets;
    const fileSystem = typeof task.meta.fileSystem === 'string' ? task.meta.fileSystem : task.group;
    const path = (fileSystem && assets[`setupScript:${fileSystem}`]) || assets.setupScript;
    if (!path) return Promise.resolve([]);
    let layers = this.#layers.get(path);
    if (!layers) {
      const image = this.#options.image ?? this.#options.provider.defaultImage;
      const options = taskLayerOptions(
        this.#options.dataset,
        task,
        image,
        this.#ignored,
        this.#options.deterministic?.clockMs,
      );
      layers = (options ? scriptLayer(this.#options.provider, options) : Promise.resolve(null)).then(
        (layer) => (layer ? [layer] : []),
      );
      this.#layers.set(path, layers);
      layers.catch(() => this.#layers.delete(path));
    }
    return layers;
  }

  async #boxesFor(layers: readonly string[]): Promise<Boxes> {
    const current = this.#boxes;
    if (current && current.layers.join('\n') === layers.join('\n')) return current;
    this.#boxes = undefined;
    if (current) await Promise.all([current.agent.close(), current.evaluator.close()]);
    const spec = {
      image: this.#options.image ?? this.#options.provider.defaultImage,
      layers,
      timeoutMs: this.#options.actionTimeoutMs ?? 10_000,
      ...(this.#options.maxOutputBytes ? { maxOutputBytes: this.#options.maxOutputBytes } : {}),
      ...(this.#options.deterministic ? { deterministic: this.#options.deterministic } : {}),
    };
    const made = await Promise.allSettled([
      this.#options.provider.create({ ...spec, label: 'agent' }),
      this.#options.provider.create({ ...spec, label: 'eval' }),
    ]);
    const [agent, evaluator] = made.map((result) =>
      result.status === 'fulfilled' ? result.value : undefined,
    );
    // A failed start, or a close() while the sandboxes started (a caller that gave up on the
    // reset): nothing may outlive the env.
    if (!agent || !evaluator || this.#closed) {
      await Promise.all([agent?.close(), evaluator?.close()]);
      const failed = made.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      throw new EnvError('ENV_CLOSED', 'the environment was closed during its reset');
    }
    this.#boxes = { layers, agent, evaluator, agentPristine: true, evaluatorPristine: true };
    return this.#boxes;
  }

  async #runGold(boxes: Boxes, task: Task): Promise<GoldRun> {
    if (!boxes.evaluatorPristine) await boxes.evaluator.reset();
    boxes.evaluatorPristine = false;
    const gold = goldCommand(task);
    if (gold === undefined) return { output: null, changes: [], corrupt: true };
    const result = await boxes.evaluator
      .session()
      .run(gold, { timeoutMs: this.#options.goldTimeoutMs ?? 60_000 });
    await settle(boxes.evaluator);
    const output = result.timedOut ? null : result.output;
    try {
      const diff = await whileStopped(boxes.evaluator, () => boxes.evaluator.diff());
      const changes = gitStatusChanges(diff, this.#ignored, boxes.layers);
      return { output, changes, corrupt: result.timedOut };
    } catch (error) {
      if (!isScorerLimit(error)) throw error;
      return { output, changes: [], corrupt: true, limit: `gold: ${error.message}` };
    }
  }

  async reset(options: ResetOptions = {}): Promise<{ observation: Observation; info: ResetInfo }> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    const task = pickTask(this.#options.dataset.tasks, options);
    const started = performance.now();
    // A previous evaluation may still run in the evaluation sandbox: let it finish first.
    await this.#gold?.catch(() => undefined);
    const boxes = await this.#boxesFor(await this.#layersFor(task));
    this.#task = task;
    this.#gold = this.#runGold(boxes, task);
    this.#gold.catch(() => {});
    if (!boxes.agentPristine) await boxes.agent.reset();
    boxes.agentPristine = false;
    this.#lastObservation = task.query;
    this.#workdir = '/';
    return {
      observation: { text: task.query, durationMs: performance.now() - started },
      info: { taskId: task.id, index: task.index, query: task.query, gold: task.gold, group: task.group },
    };
  }

  #require(): { boxes: Boxes; task: Task } {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    if (!this.#boxes || !this.#task) throw new EnvError('ENV_RESET_NEEDED', 'call reset() before step()');
    return { boxes: this.#boxes, task: this.#task };
  }

  async step(input: Action | string): Promise<StepResult> {
    const { boxes } = this.#require();
    const action = toAction(input);
    if (action.type === 'skip') return skipStep();
    if (action.type === 'submit') return submitStep(() => this.score(), this.#lastObservation);
    const timeoutMs = this.#options.actionTimeoutMs ?? 10_000;
    if (this.#upstream) return this.#upstreamStep(boxes, action.code, timeoutMs);
    const result = await boxes.agent.session().run(action.code, { timeoutMs });
    const observation = observationOf(result, timeoutMs);
    this.#lastObservation = observation.text;
    return {
      observation,
      reward: 0,
      terminated: false,
      truncated: false,
      info: {
        admissible: result.exitCode === 0 && !result.timedOut,
        ...(result.sessionRestarted ? { sessionRestarted: true } : {}),
      },
    };
  }

  get #upstream(): boolean {
    return this.#options.compat === 'upstream';
  }

  /** One action the way upstream ran it: mangled quoting, a fresh process, an emulated `cd`. */
  async #upstreamStep(boxes: Boxes, code: string, timeoutMs: number): Promise<StepResult> {
    let line: string | null;
    let cwd = this.#workdir;
    let target: string | undefined;
    if (code.startsWith('cd')) {
      const at = code.indexOf('cd ');
      target = at < 0 ? undefined : simplifyPath(this.#workdir, code.slice(at + 3).trim());
      line = target === undefined ? null : upstreamCommandLine(`cd ${target}`);
      cwd = '/';
    } else {
      line = upstreamCommandLine(code);
    }
    let observation: Observation;
    let admissible = false;
    if (line === null) {
      observation = { text: 'Malformed command', durationMs: 0 };
    } else {
      const result = await boxes.agent.exec(line, { cwd, timeoutMs });
      admissible = result.exitCode === 0 && !result.timedOut;
      if (admissible && target !== undefined) this.#workdir = target;
      observation = result.timedOut
        ? { text: 'Command timed out', timedOut: true, durationMs: result.durationMs }
        : observationOf(result, timeoutMs);
    }
    this.#lastObservation = observation.text;
    return { observation, reward: 0, terminated: false, truncated: false, info: { admissible } };
  }

  /**
   * The reward of the agent's file system and last output against the gold's. Every process of the
   * agent's sandbox is stopped first (the episode's state is what the walk sees; an agent process
   * left running cannot race it) and resumed after. A walk past its bounds scores 0 with the reason
   * in `scoreLimit`.
   */
  async score(): Promise<Score> {
    const { boxes } = this.#require();
    await settle(boxes.agent);
    // The evaluation sandbox is stopped too (once its gold has run), at the same time as the agent's:
    // a stop takes effect when its process is next scheduled, so the two waits overlap.
    const evaluatorStopped = this.#gold!.then(() => boxes.evaluator.quiesce());
    evaluatorStopped.catch(() => {});
    try {
      return await whileStopped(boxes.agent, () => this.#scoreStopped(boxes, evaluatorStopped));
    } catch (error) {
      if (!isScorerLimit(error)) throw error;
      return limitScore(error.message);
    } finally {
      await (await evaluatorStopped.catch(() => undefined))?.resume();
    }
  }

  async #scoreStopped(boxes: Boxes, evaluatorStopped: Promise<unknown>): Promise<Score> {
    const [gold, agentDiff] = await Promise.all([this.#gold!, boxes.agent.diff()]);
    const agentChanges = gitStatusChanges(agentDiff, this.#ignored, boxes.layers);
    const evalKeys = new Set(gold.changes.map((change) => `${change.status} ${change.path}`));
    const same = agentChanges.filter(
      (change) => evalKeys.has(`${change.status} ${change.path}`) && ['A', '??', 'C'].includes(change.status),
    );
    const paths = [...new Set(same.map((change) => `/${change.path}`))];
    const [agentDigests, evalDigests] =
      paths.length > 0
        ? await Promise.all([
            boxes.agent.digest(paths),
            evaluatorStopped
              .then(() => boxes.evaluator.digest(paths))
              .catch((error: unknown) => {
                // The gold's own files: not the agent's doing, so the gold is what failed.
                if (isScorerLimit(error)) return null;
                throw error;
              }),
          ])
        : [{}, {}];
    const reward = bashReward({
      agentChanges,
      evalChanges: gold.changes,
      sameContent: (path: string) => {
        // Upstream hashed dot-less paths with a missing `md5deep`: the same error on both sides.
        if (this.#upstream && !path.includes('.')) return true;
        const a = (agentDigests as Record<string, string | null>)[`/${path}`];
        return (
          a !== undefined &&
          a !== null &&
          a === (evalDigests as Record<string, string | null> | null)?.[`/${path}`]
        );
      },
      agentOutput: this.#lastObservation,
      goldOutput: gold.output,
    });
    const score: Score = {
      value: reward.value,
      parts: { ...reward.parts },
      details: {
        ...reward.details,
        agentChanges,
        evalChanges: gold.changes,
        goldOutput: gold.output,
        ...(gold.limit ? { goldLimit: gold.limit } : {}),
      },
    };
    return gold.corrupt || evalDigests === null ? { ...score, goldCorrupt: true } : score;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#gold?.catch(() => undefined);
    const boxes = this.#boxes;
    this.#boxes = undefined;
    if (boxes) await Promise.all([boxes.agent.close(), boxes.evaluator.close()]);
  }
}

/** How long scoring waits for a shell's background jobs to end. */
const SETTLE_MS = 1_000;

/**
 * Waits (up to {@link SETTLE_MS}) for the background jobs of a sandbox's shell (`cmd &`) to end, so
 * that the file system is compared once they are done rather than at whatever point they reached
 * (NL2Bash fs1/11 compresses files with `xargs -P10 … &`). Each command of a session runs in its
 * own child of the shell's controller, so `jobs` would not see them: the check lists the processes
 * the gold left running (builtins only; a sandbox without any costs one round trip).
 */
async function settle(sandbox: Sandbox): Promise<void> {
  const deadline = performance.now() + SETTLE_MS;
  for (;;) {
    const jobs = await sandbox.session().run(LEFTOVER_PROCESSES_COMMAND, { timeoutMs: SETTLE_MS });
    if (jobs.timedOut || jobs.output.trim() === '' || performance.now() > deadline) return;
    await sleep(10);
  }
}
