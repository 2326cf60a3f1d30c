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
import { skipStep } from '../control-steps.js';
import { checkForkCount } from '../fork-count.js';
import { goldCacheEnabled } from '../gold-cache.js';
import { type SandboxEnvOptions, warmPoolEnabled } from '../sandbox-env-options.js';
import { pickTask } from '../task-picker.js';
import type { CodeResult, RunOptions, RunReply, RunTarget } from './driver-messages.js';
import { referenceFunctionName, submittedFunctionName } from './function-names.js';
import { type GoldRun, goldKey, goldRun, sharedGoldRun } from './gold-run.js';
import { type JudgePlan, judgeTests } from './judge-tests.js';
import { mbppScore } from './mbpp-reward.js';
import { goldOf, setupOf, testsOf } from './mbpp-task-fields.js';
import { observationText } from './observation-text.js';
import {
  type Box,
  boxesPool,
  boxInterpreter,
  closeBoxes,
  exclusive,
  forkWorker,
  freshAgent,
  openBoxes,
  POOL_LIMIT,
  type PythonBoxes,
  runInBox,
} from './python-boxes.js';
import { InterpreterLost, type InterpreterOptions, type PythonInterpreter } from './python-interpreter.js';
import { submissionStep } from './submission-step.js';

/**
 * Options of the Python env. The action time limit also bounds each test of a submission; the gold
 * time limit each step of the gold run. `compat: 'upstream'`: as the original did, a submission's
 * tests run in the agent's interpreter itself, which is then reset and loaded with the setup code,
 * the gold and its tests: the gold's functions stay there for the agent's next turns (how recorded
 * runs scored 1.0 after a def that failed to compile, when the gold's function had the same name).
 * `fixed` (default): a judge in the evaluation sandbox runs the tests, calling the agent's function
 * in a throw-away copy of the agent's interpreter for plain values (`judge-tests.ts`); the gold runs
 * in the evaluation sandbox too.
 */
export interface PythonEnvOptions extends SandboxEnvOptions {
  /** Address-space limit of each interpreter process, default 768 MiB (the sandbox has 1 GiB). */
  readonly memoryBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_GOLD_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const DEFAULT_MEMORY = 768 * 1024 * 1024;
/** Most copies one fork makes, and most envs that share one episode's sandboxes at once. */
export const MAX_PYTHON_FORK = 64;
const MAX_SHARING = 129;
/** What the copies of a fork always share with the original (see `fork`). */
const SHARED_STATE = [
  "the sandbox's file system (/tmp and /dev/shm included): the copies share it with the original, so a file one writes or deletes, the others see",
];

/**
 * The Python environment (MBPP): a persistent Python 3 interpreter in a sandbox, driven over a framed
 * protocol (`python-driver.py`). Actions run as upstream ran them (a `def` as is, an expression
 * printed). Each episode starts from a clean slate (`freshAgent`);
 * the gold and the judge of a submission's tests run in a separate evaluation sandbox.
 */
export class PythonEnv implements Env {
  readonly #options: PythonEnvOptions;
  #boxes: Promise<PythonBoxes> | undefined;
  /** This env's worker in the agent sandbox's driver: `'0'` after a reset, a fork's key in a copy. */
  #key = '0';
  /** The driver the worker lives in: another one since means the worker (and its globals) is gone. */
  #driver: PythonInterpreter | undefined;
  #task: Task | undefined;
  #gold: Promise<GoldRun> | undefined;
  /** Function named by the last code action when it was a `def` (what Try Again submits). */
  #lastDefined: string | undefined;
  #closed = false;

  constructor(options: PythonEnvOptions) {
    this.#options = options;
  }

  get task(): Task | undefined {
    return this.#task;
  }

  get #timeoutMs(): number {
    return this.#options.actionTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  get #maxOutputBytes(): number {
    return this.#options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  }

  /** How this env's interpreters start. */
  get #interpreterOptions(): InterpreterOptions {
    return {
      memoryBytes: this.#options.memoryBytes ?? DEFAULT_MEMORY,
      ...(this.#options.deterministic ? { hashSeedFromEnv: true } : {}),
      ...(warmPoolEnabled(this.#options) ? { warm: true } : {}),
    };
  }

  #ensureBoxes(): Promise<PythonBoxes> {
    if (!this.#boxes) {
      const boxes = openBoxes(
        this.#options.provider,
        {
          image: this.#options.image ?? this.#options.provider.defaultImage,
          timeoutMs: this.#timeoutMs,
          maxOutputBytes: this.#maxOutputBytes,
          ...(this.#options.deterministic ? { deterministic: this.#options.deterministic } : {}),
        },
        this.#interpreterOptions,
      );
      this.#boxes = boxes;
      boxes.catch(() => {
        if (this.#boxes === boxes) this.#boxes = undefined;
      });
    }
    return this.#boxes;
  }

  /** The box's interpreter, started again when it is gone. */
  #interpreter(box: Box): Promise<PythonInterpreter> {
    return boxInterpreter(box, this.#interpreterOptions);
  }

  /** Runs codes in this env's worker (see `runInBox`). */
  #run(
    box: Box,
    target: RunTarget,
    codes: readonly string[],
    wrap: boolean,
    timeoutMs: number | readonly number[],
    judge?: Pick<RunOptions, 'onCall' | 'proxy'>,
  ): Promise<RunReply> {
    return runInBox(box, this.#interpreterOptions, target, codes, {
      agent: this.#key,
      wrap,
      timeoutMs,
      maxOutputBytes: this.#maxOutputBytes,
      ...judge,
    });
  }

  #runGold(box: Box, task: Task, target: 'fresh' | 'agent' = 'fresh'): Promise<GoldRun> {
    const limit = this.#options.goldTimeoutMs ?? DEFAULT_GOLD_TIMEOUT_MS;
    return goldRun(task, (codes) => this.#run(box, target, codes, false, limit));
  }

  async reset(options: ResetOptions = {}): Promise<{ observation: Observation; info: ResetInfo }> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    const task = pickTask(this.#options.dataset.tasks, options);
    const started = performance.now();
    // A previous gold run may still be going in the evaluation sandbox: let it finish first.
    await this.#gold?.catch(() => undefined);
    // Sandboxes shared with the copies of a fork: this env moves to sandboxes of its own; an
    // evaluation sandbox that could not open: both are opened anew.
    const current = await this.#boxes?.catch(() => undefined);
    if (current && (current.owners > 1 || current.evaluatorFailed)) await this.#release();
    const { agent, evaluator } = await this.#ensureBoxes();
    this.#task = task;
    this.#lastDefined = undefined;
    // The gold run now, or (gold cache) kept from an earlier episode of the task.
    const { provider, image, deterministic, goldTimeoutMs } = this.#options;
    const setting = [provider.id, image ?? provider.defaultImage, deterministic, this.#interpreterOptions];
    const key = goldCacheEnabled(this.#options)
      ? goldKey(task, [...setting, goldTimeoutMs ?? DEFAULT_GOLD_TIMEOUT_MS, this.#maxOutputBytes])
      : undefined;
    this.#gold = sharedGoldRun(key, async () => this.#runGold(await evaluator, task));
    this.#gold.catch(() => {});
    await freshAgent(agent, this.#key, this.#interpreterOptions);
    this.#driver = agent.interpreter;
    return {
      observation: { text: task.query, durationMs: performance.now() - started },
      info: { taskId: task.id, index: task.index, query: task.query, gold: task.gold },
    };
  }

  async #require(): Promise<{ boxes: PythonBoxes; agent: Box; evaluator: Promise<Box>; task: Task }> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    if (!this.#boxes || !this.#task) throw new EnvError('ENV_RESET_NEEDED', 'call reset() before step()');
    const boxes = await this.#boxes;
    return { boxes, agent: boxes.agent, evaluator: boxes.evaluator, task: this.#task };
  }

  async step(input: Action | string): Promise<StepResult> {
    const { boxes, agent } = await this.#require();
    const action = toAction(input);
    if (action.type === 'skip') return skipStep();
    if (action.type === 'submit') return submissionStep(action.answer, (name) => this.#evaluate(name, true));
    const started = performance.now();
    this.#lastDefined = submittedFunctionName(action.code);
    const reply = await exclusive(boxes, async () => {
      // A driver other than the one this env's worker lived in: the worker is gone with its globals.
      const stale = this.#driver !== undefined && this.#driver !== agent.interpreter;
      const reply = await this.#run(agent, 'agent', [action.code], true, this.#timeoutMs);
      this.#driver = agent.interpreter;
      return { ...reply, restarted: reply.restarted || stale };
    });
    const result = reply.results[0]!;
    const observation: Observation = {
      text: observationText(result, reply.restarted),
      durationMs: performance.now() - started,
      ...(result.truncated ? { truncated: { originalBytes: result.bytes ?? 0 } } : {}),
      ...(result.timed_out ? { timedOut: true } : {}),
    };
    return {
      observation,
      reward: 0,
      terminated: false,
      truncated: false,
      info: {
        admissible: result.ok && result.error === '',
        output: result.output,
        error: result.error,
        ...(reply.restarted ? { sessionRestarted: true } : {}),
      },
    };
  }

  /**
   * Upstream's MBPP reward for the function `name`: bind the gold's function name to it, run the
   * setup code and each test, compare each result with the gold's. The tests run in a judge that
   * the agent's code cannot reach (`judge-tests.ts`); with `--compat upstream` in the agent's own
   * interpreter, as upstream ran them. `last`: a submission (`JudgePlan.last`).
   */
  async #evaluate(name: string, last = false): Promise<Score> {
    const { boxes } = await this.#require();
    return exclusive(boxes, () => this.#evaluateNow(name, last));
  }

  async #evaluateNow(name: string, last: boolean): Promise<Score> {
    const { agent, evaluator, task } = await this.#require();
    const reference = referenceFunctionName(goldOf(task));
    const tests = testsOf(task);
    const bind = reference === undefined ? '' : `${reference} = ${name}`;
    const upstream = this.#options.compat === 'upstream';
    const goldRun = upstream ? undefined : await this.#gold!;
    // Upstream had no time limit here. Each code gets the action limit, or 5 times what the gold's
    // run of it took (plus a second) when that is longer: a slow gold test does not fail by load.
    const scaled = (ms: number | undefined) => Math.max(this.#timeoutMs, 5 * (ms ?? 0) + 1000);
    const limits = [
      this.#timeoutMs,
      scaled(goldRun?.setupMs),
      ...tests.map((_, i) => scaled(goldRun?.results[i]?.ms)),
    ];
    const setup = setupOf(task);
    const results = upstream
      ? (await this.#run(agent, 'agent', [bind, setup, ...tests], false, limits)).results.slice(2)
      : await this.#judge(agent, await evaluator, { bind, reference, setup, tests, last, limits });
    const gold = goldRun ?? (await this.#goldInAgent(agent, task));
    return mbppScore(
      tests,
      results,
      gold.results,
      {
        submittedFunction: name,
        ...(reference !== undefined ? { referenceFunction: reference } : {}),
        ...(gold.reason ? { goldProblem: gold.reason } : {}),
      },
      gold.corrupt,
    );
  }

  async #judge(
    agent: Box,
    evaluator: Box,
    plan: Pick<JudgePlan, 'bind' | 'reference' | 'setup' | 'tests' | 'last'> & { limits: readonly number[] },
  ): Promise<readonly CodeResult[]> {
    const [bindMs = 0, setupMs = 0, ...testMs] = plan.limits;
    const outcome = await judgeTests(
      (await this.#interpreter(agent)).channel(this.#key),
      (codes, limits, onCall) =>
        this.#run(evaluator, 'judge', codes, false, limits, {
          onCall,
          ...(plan.reference !== undefined ? { proxy: plan.reference } : {}),
        }),
      { ...plan, bindMs, setupMs, testMs, maxOutputBytes: this.#maxOutputBytes },
    );
    if (outcome.agentLost) {
      agent.interpreter?.close();
      agent.interpreter = undefined;
    }
    return outcome.results;
  }

  /** Upstream's gold run: the agent's interpreter reset, then setup, gold and tests in it. */
  async #goldInAgent(agent: Box, task: Task): Promise<GoldRun> {
    const interpreter = await this.#interpreter(agent);
    try {
      await interpreter.reset(this.#key);
    } catch (error) {
      if (!(error instanceof InterpreterLost)) throw error;
      agent.interpreter = undefined;
    }
    return this.#runGold(agent, task, 'agent');
  }

  /** Try Again: the function of the last action when it was a `def`, as upstream auto-submitted; else 0. */
  async score(): Promise<Score> {
    await this.#require();
    if (this.#lastDefined === undefined) {
      return { value: 0, details: { reason: 'the last action defined no function' } };
    }
    return this.#evaluate(this.#lastDefined);
  }

  /**
   * `count` copies of the episode (1 to 64): each a new env whose worker in the agent sandbox's driver
   * is a fork of this env's (globals, modules, heap: copy-on-write; forked from the template this
   * env's worker becomes, on each copy's first request), with the same task, gold run and last `def`. The copies share both sandboxes with the original (see
   * `python-boxes.ts`), so their file system is one (`notCopied` says so, and names the threads,
   * child processes, sockets, pipes and open files of the worker that a fork does not copy). A copy's
   * timeout, crash or restart replaces only its own worker; a reset moves it to sandboxes of its own.
   */
  async fork(count: number): Promise<ForkResult> {
    const shared = this.#boxes;
    const { boxes, agent, task } = await this.#require();
    checkForkCount(count, MAX_PYTHON_FORK);
    return exclusive(boxes, async () => {
      if (boxes.owners + count > MAX_SHARING) {
        throw new EnvError(
          'ENV_INVALID_ACTION',
          `at most ${MAX_SHARING - 1} copies of one Python episode can be open at once (${boxes.owners} envs share it)`,
        );
      }
      const interpreter = await this.#interpreter(agent);
      const stale = this.#driver !== undefined && this.#driver !== interpreter;
      const reply = await forkWorker(agent, this.#key, count);
      this.#driver = interpreter;
      boxes.owners += count;
      const envs = reply.agents.map((key) => {
        const env = new PythonEnv(this.#options);
        env.#boxes = shared; // this env's own may be gone by now (a close queued behind this fork)
        env.#key = key;
        env.#driver = interpreter;
        env.#task = task;
        env.#gold = this.#gold;
        env.#lastDefined = this.#lastDefined;
        return env;
      });
      const lost =
        reply.restarted || stale
          ? ["the agent's globals: its interpreter had been lost and was restarted before the fork"]
          : [];
      return { envs, notCopied: [...lost, ...SHARED_STATE, ...reply.notCopied] };
    });
  }

  /**
   * The warm pool (docs/architecture/warm-pools.md): the spare worker each of the two drivers (agent
   * and evaluation sandbox) keeps forked and warmed for its next fresh worker, the evaluation
   * sandbox's worker kept from its last clean gold or judge run, and their memory.
   */
  async warmPool(): Promise<WarmPoolStats> {
    if (!warmPoolEnabled(this.#options)) return { idle: 0, memoryBytes: 0, limit: 0 };
    const boxes = await this.#boxes?.catch(() => undefined);
    if (!boxes || this.#closed) return { idle: 0, memoryBytes: 0, limit: POOL_LIMIT };
    return exclusive(boxes, () => boxesPool(boxes));
  }

  /**
   * Lets go of the sandboxes, which the copies of a fork share with the original: this env's worker
   * ends, and the last env that holds them closes them (counted in their lane, after any fork queued).
   */
  async #release(): Promise<void> {
    const boxes = await this.#boxes?.catch(() => undefined);
    this.#boxes = undefined;
    const key = this.#key;
    this.#key = '0';
    this.#driver = undefined;
    if (!boxes) return;
    await exclusive(boxes, async () => {
      boxes.owners -= 1;
      if (boxes.owners > 0) await boxes.agent.interpreter?.drop(key).catch(() => undefined);
      else await closeBoxes(boxes);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#gold?.catch(() => undefined);
    await this.#release();
  }
}
