import { readFileSync } from 'node:fs';
import type { Action } from '../../core/action.js';
import { toAction } from '../../core/action.js';
import type {
  Env,
  ForkResult,
  Observation,
  ResetInfo,
  ResetOptions,
  Score,
  StepResult,
  WarmPoolStats,
} from '../../core/env.js';
import { EnvError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import { branchCopies } from '../../sandbox/branch-sandbox.js';
import { LEFTOVER_PROCESSES_COMMAND } from '../../sandbox/leftover-processes.js';
import type { Quiesced, SandboxSpec } from '../../sandbox/sandbox.js';
import { isScorerLimit } from '../../sandbox/scorer-limit-error.js';
import { skipStep, submitStep } from '../control-steps.js';
import { checkForkCount } from '../fork-count.js';
import { goldCacheEnabled } from '../gold-cache.js';
import { ownSpareWanted, type SandboxEnvOptions } from '../sandbox-env-options.js';
import { pickTask } from '../task-picker.js';
import { envWarmPool, WarmSpare } from '../warm-spare.js';
import {
  type BashBoxes as Boxes,
  bashSpareKind,
  closeBashBoxes,
  type FullBashBoxes,
  openBashBoxes,
  sameLayers,
} from './bash-boxes.js';
import { type BashGoldSetting, readGoldDigests, startBashGold } from './bash-gold.js';
import { bashResetInfo } from './bash-reset-info.js';
import { gitStatusChanges, parseTopLevelIgnore, UPSTREAM_IGNORED } from './git-status-changes.js';
import { COMPARED_STATUSES, type GoldDigests, type GoldRun } from './gold-run.js';
import { limitScore } from './limit-score.js';
import { observationOf } from './observation-of.js';
import { bashReward } from './reward/bash-reward.js';
import { scriptLayer } from './script-layer.js';
import { settleBackgroundJobs } from './settle-background-jobs.js';
import { taskLayerOptions } from './task-layer.js';
import { upstreamStep } from './upstream-step.js';
import { NOTHING_STOPPED, whileStopped } from './while-stopped.js';

/**
 * Options of the Bash env. `compat: 'upstream'`: every command is mangled as upstream's
 * `bash -c "<cmd>"` + `shlex.split` did, each in a fresh process with an emulated `cd`, and
 * directories count as equal in the content check (upstream's missing `md5deep`).
 */
export type BashEnvOptions = SandboxEnvOptions;

/** The largest `count` of {@link BashEnv.fork}. */
const MAX_FORK_COUNT = 256;

/**
 * The Bash environment (NL2Bash): a persistent shell per episode in the agent's sandbox, the gold
 * command in a separate pristine evaluation sandbox, and upstream's reward: 0.01 + file diff +
 * file contents + output similarity.
 */
export class BashEnv implements Env {
  readonly #options: BashEnvOptions;
  readonly #ignored: ReadonlySet<string>;
  #boxes: Boxes | undefined;
  /** The pair made ready for the next episode (the warm pool), unless `warm` is off. */
  readonly #spare: WarmSpare<FullBashBoxes> | undefined;
  readonly #layers = new Map<string, Promise<string[]>>();
  #task: Task | undefined;
  #gold: Promise<GoldRun> | undefined;
  /** Set by an episode's first fork: the gold's file digests, which it and its copies score against. */
  #goldDigests: Promise<GoldDigests> | undefined;
  #lastObservation = '';
  /** Working directory of upstream's emulated `cd` (compatibility mode only). */
  #workdir = '/';
  #closed = false;

  constructor(options: BashEnvOptions) {
    this.#options = options;
    this.#spare = ownSpareWanted(options) ? new WarmSpare(2, bashSpareKind) : undefined;
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

  /** The sandboxes' spec on a task file system. */
  #spec(layers: readonly string[]): SandboxSpec {
    return {
      image: this.#options.image ?? this.#options.provider.defaultImage,
      layers,
      timeoutMs: this.#options.actionTimeoutMs ?? 10_000,
      ...(this.#options.maxOutputBytes ? { maxOutputBytes: this.#options.maxOutputBytes } : {}),
      ...(this.#options.deterministic ? { deterministic: this.#options.deterministic } : {}),
    };
  }

  /** A new pair on `layers` (none left open if this env is closed meanwhile). */
  #open(layers: readonly string[]): Promise<FullBashBoxes> {
    return openBashBoxes(this.#options.provider, this.#spec(layers), () => this.#closed);
  }

  /** The current pair when it runs on `layers` (the caller resets what is used), else a new one. */
  async #boxesFor(layers: readonly string[]): Promise<FullBashBoxes> {
    const current = this.#boxes;
    if (current?.evaluator && sameLayers(current.layers, layers)) return current as FullBashBoxes;
    this.#boxes = undefined;
    if (current) await closeBashBoxes(current);
    const boxes = await this.#open(layers);
    this.#boxes = boxes;
    return boxes;
  }

  /**
   * The pair of the next episode. With the warm pool: the spare, made ready while the last episode
   * ran; the last episode's pair is then renewed in the background to be the next spare. Without a
   * spare (the first episode, another file system, a failed renewal): as without the pool, and a
   * spare is prepared for the episode after.
   */
  async #nextBoxes(layers: readonly string[]): Promise<FullBashBoxes> {
    const used = this.#boxes;
    const spare = await this.#spare?.swap({
      usable: (item) => sameLayers(item.layers, layers),
      // A fork's copy (no evaluator) is never renewed into a spare: it is closed below.
      used: used?.evaluator ? (used as FullBashBoxes) : undefined,
      reusable: (item) => sameLayers(item.layers, layers),
      make: () => this.#open(layers),
    });
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment was closed during its reset');
    if (!spare) {
      const boxes = await this.#boxesFor(layers);
      this.#spare?.hold(() => this.#open(layers));
      return boxes;
    }
    if (used && !used.evaluator) void closeBashBoxes(used).catch(() => {});
    this.#boxes = spare;
    return spare;
  }

  async reset(options: ResetOptions = {}): Promise<{ observation: Observation; info: ResetInfo }> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    const task = pickTask(this.#options.dataset.tasks, options);
    const started = performance.now();
    // A previous evaluation may still run in the evaluation sandbox: let it finish first.
    await this.#evaluatorIdle();
    const boxes = await this.#nextBoxes(await this.#layersFor(task));
    this.#task = task;
    // The gold run now, or (gold cache) kept from an earlier episode of the task.
    const setting: BashGoldSetting = {
      spec: this.#spec(boxes.layers),
      timeoutMs: this.#options.goldTimeoutMs ?? 60_000,
      upstream: this.#upstream,
      ignored: this.#ignored,
      cache: goldCacheEnabled(this.#options),
    };
    const gold = startBashGold(boxes, task, setting, (read) => this.#forgetDigests(read));
    this.#gold = gold.run;
    this.#goldDigests = gold.digests;
    if (!boxes.agentPristine) await boxes.agent.reset();
    boxes.agentPristine = false;
    this.#lastObservation = task.query;
    this.#workdir = '/';
    return {
      observation: { text: task.query, durationMs: performance.now() - started },
      info: bashResetInfo(task),
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
    if (this.#upstream) {
      const { observation, admissible, workdir } = await upstreamStep(
        boxes.agent,
        this.#workdir,
        action.code,
        timeoutMs,
      );
      this.#workdir = workdir;
      this.#lastObservation = observation.text;
      return { observation, reward: 0, terminated: false, truncated: false, info: { admissible } };
    }
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

  /**
   * The reward of the agent's file system and last output against the gold's. Once its background
   * jobs are done (or after a second), every process of the agent's sandbox left running is stopped
   * while it is walked (none can race the walk), then resumed; with none left, nothing can change
   * its files and nothing is stopped. The evaluation sandbox is stopped while its files are hashed.
   * A walk past its bounds scores 0 with the reason in `scoreLimit`.
   */
  async score(): Promise<Score> {
    const { boxes } = this.#require();
    const idle = await settleBackgroundJobs(boxes.agent);
    // After a fork, the gold's digests read then (the copies' too); before, from the evaluation
    // sandbox, stopped (once its gold has run, if it left a process) only if the content check needs
    // them. A walk past its bounds there is the gold's failure (its own files), not the agent's.
    const frozen = this.#goldDigests;
    const evaluator = boxes.evaluator;
    let evaluatorStopped: Promise<Quiesced> | undefined;
    const evalDigests = (paths: readonly string[]): Promise<GoldDigests> => {
      if (frozen) return frozen;
      evaluatorStopped ??= this.#gold!.then((run) => (run.idle ? NOTHING_STOPPED : evaluator!.quiesce()));
      return evaluatorStopped
        .then(() => evaluator!.digest(paths))
        .catch((error: unknown) => (isScorerLimit(error) ? null : Promise.reject(error)));
    };
    const walk = () => this.#scoreStopped(boxes, evalDigests);
    try {
      return await whileStopped(boxes.agent, walk, idle);
    } catch (error) {
      if (!isScorerLimit(error)) throw error;
      return limitScore(error.message);
    } finally {
      await (await evaluatorStopped?.catch(() => undefined))?.resume();
    }
  }

  async #scoreStopped(
    boxes: Boxes,
    goldDigestsOf: (paths: readonly string[]) => Promise<GoldDigests>,
  ): Promise<Score> {
    const [gold, agentDiff] = await Promise.all([this.#gold!, boxes.agent.diff()]);
    const agentChanges = gitStatusChanges(agentDiff, this.#ignored, boxes.layers);
    const evalKeys = new Set(gold.changes.map((change) => `${change.status} ${change.path}`));
    const same = agentChanges.filter(
      (change) =>
        evalKeys.has(`${change.status} ${change.path}`) && COMPARED_STATUSES.includes(change.status),
    );
    const paths = [...new Set(same.map((change) => `/${change.path}`))];
    const none: Record<string, string | null> = {};
    const [agentDigests, evalDigests] =
      paths.length > 0 ? await Promise.all([boxes.agent.digest(paths), goldDigestsOf(paths)]) : [none, none];
    const reward = bashReward({
      agentChanges,
      evalChanges: gold.changes,
      sameContent: (path: string) => {
        // Upstream hashed dot-less paths with a missing `md5deep`: the same error on both sides.
        if (this.#upstream && !path.includes('.')) return true;
        const a = agentDigests[`/${path}`];
        return a !== undefined && a !== null && a === evalDigests?.[`/${path}`];
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

  /**
   * `count` copies of the episode, each a new environment: a copy of the agent's sandbox (its file
   * changes and its shell's state: directory, variables, functions, aliases, options, umask, traps),
   * opened at the copy's first use from the state kept now (`Sandbox.branch`; else `Sandbox.fork`),
   * and the same task, gold result and last output, so its score is this one's until it acts. The
   * digests of the gold's files are read once here and shared: this env and its copies score against
   * them from now on. The copies have no evaluation sandbox (closing this env leaves them whole); a
   * copy's reset makes one. Processes are not copied (`notCopied` says so). Needs a backend whose
   * sandboxes can fork (bwrap), else `ENV_FORK_UNSUPPORTED`.
   */
  async fork(count: number): Promise<ForkResult> {
    const { boxes, task } = this.#require();
    checkForkCount(count, MAX_FORK_COUNT);
    const agent = boxes.agent;
    if (!agent.fork) {
      throw new EnvError(
        'ENV_FORK_UNSUPPORTED',
        `the ${agent.provider} backend cannot copy a sandbox's file system: fork needs --backend bwrap`,
      );
    }
    // Neither the gold nor its digests are waited for: the copies share both as promises.
    const gold = this.#gold!;
    const evaluator = boxes.evaluator;
    if (!this.#goldDigests && evaluator) {
      this.#goldDigests = readGoldDigests(evaluator, gold, (read) => this.#forgetDigests(read));
    }
    const digests = this.#goldDigests!;
    const leftover = await agent.session().run(LEFTOVER_PROCESSES_COMMAND, { timeoutMs: 10_000 });
    const running = leftover.output.split(/\s+/).filter((pid) => pid !== '').length;
    const sandboxes = agent.branch
      ? branchCopies(await agent.branch(), count, agent.provider)
      : await agent.fork(count);
    const envs = sandboxes.map((sandbox) => {
      const env = new BashEnv(this.#options);
      for (const [path, layers] of this.#layers) env.#layers.set(path, layers);
      env.#boxes = { ...boxes, agent: sandbox, evaluator: undefined, agentPristine: false };
      env.#task = task;
      env.#gold = gold;
      env.#goldDigests = digests;
      env.#lastObservation = this.#lastObservation;
      env.#workdir = this.#workdir;
      return env;
    });
    const notCopied =
      running > 0
        ? [
            `${running} process${running === 1 ? '' : 'es'} left running by earlier commands (background ` +
              'jobs, daemons): the copies have the files as they were at the fork, not the processes',
          ]
        : [];
    return { envs, notCopied };
  }

  /** A failed read of the gold's digests is not kept: scoring then asks the evaluation sandbox again. */
  #forgetDigests(read: Promise<GoldDigests>): void {
    if (this.#goldDigests === read) this.#goldDigests = undefined;
  }

  /** Once this env's evaluation sandbox runs nothing: the gold, and the read of its digests for a fork. */
  async #evaluatorIdle(): Promise<void> {
    if (!this.#boxes?.evaluator) return;
    await Promise.all([this.#gold?.catch(() => undefined), this.#goldDigests?.catch(() => undefined)]);
  }

  /** The pair held ready for the next episode (none without the warm pool). */
  async warmPool(): Promise<WarmPoolStats> {
    const boxes = this.#boxes;
    const sandboxes = boxes ? [boxes.agent, ...(boxes.evaluator ? [boxes.evaluator] : [])] : [];
    return envWarmPool(this.#spare, this.#options.provider, sandboxes);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#evaluatorIdle();
    const boxes = this.#boxes;
    this.#boxes = undefined;
    await Promise.all([boxes && closeBashBoxes(boxes), this.#spare?.close()]);
  }
}
