import type { Action } from '../../core/action.js';
import { toAction } from '../../core/action.js';
import type { Env, Observation, ResetInfo, ResetOptions, Score, StepResult } from '../../core/env.js';
import { EnvError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { skipStep } from '../control-steps.js';
import type { SandboxEnvOptions } from '../sandbox-env-options.js';
import { pickTask } from '../task-picker.js';
import { referenceFunctionName, submitName, submittedFunctionName } from './function-names.js';
import { type JudgePlan, judgeTests } from './judge-tests.js';
import { mbppScore } from './mbpp-reward.js';
import { goldOf, setupOf, testsOf } from './mbpp-task-fields.js';
import { observationText } from './observation-text.js';
import {
  type CodeResult,
  InterpreterLost,
  type PythonInterpreter,
  type RunOptions,
  type RunReply,
  type RunTarget,
} from './python-interpreter.js';
import { startInterpreter } from './start-interpreter.js';

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
/** A sandbox with its interpreter (none until started, or after it died). */
interface Box {
  readonly sandbox: Sandbox;
  interpreter: PythonInterpreter | undefined;
  /** Code ran since the file system was last checked against the image. */
  used: boolean;
}

export interface PythonEnvOptions extends SandboxEnvOptions {
  /** Address-space limit of each interpreter process, default 768 MiB (the sandbox has 1 GiB). */
  readonly memoryBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_GOLD_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const DEFAULT_MEMORY = 768 * 1024 * 1024;

/** What the gold function did on the task's tests, in a fresh interpreter of the evaluation sandbox. */
interface GoldRun {
  readonly results: readonly CodeResult[];
  /** Time the setup code took, milliseconds. */
  readonly setupMs?: number;
  readonly corrupt: boolean;
  readonly reason?: string;
}

/**
 * The Python environment (MBPP): a persistent Python 3 interpreter in a sandbox, driven over a framed
 * protocol (`python-driver.py`). Actions run as upstream ran them (a `def` as is, an expression
 * printed). Each episode starts from a clean slate (`#freshAgent`);
 * the gold and the judge of a submission's tests run in a separate evaluation sandbox.
 */
export class PythonEnv implements Env {
  readonly #options: PythonEnvOptions;
  #boxes: Promise<{ agent: Box; evaluator: Box }> | undefined;
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

  get #memoryBytes(): number {
    return this.#options.memoryBytes ?? DEFAULT_MEMORY;
  }

  #ensureBoxes(): Promise<{ agent: Box; evaluator: Box }> {
    if (!this.#boxes) {
      const spec = {
        image: this.#options.image ?? this.#options.provider.defaultImage,
        timeoutMs: this.#timeoutMs,
        maxOutputBytes: this.#maxOutputBytes,
        ...(this.#options.deterministic ? { deterministic: this.#options.deterministic } : {}),
      };
      const created = Promise.allSettled([
        this.#options.provider.create({ ...spec, label: 'python-agent' }),
        this.#options.provider.create({ ...spec, label: 'python-eval' }),
      ]);
      const boxes = created.then(async (settled) => {
        const failed = settled.find((result) => result.status === 'rejected');
        if (failed) {
          await Promise.all(
            settled.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)),
          );
          throw failed.reason;
        }
        const [agent, evaluator] = settled.map((result) => (result as PromiseFulfilledResult<Sandbox>).value);
        return {
          agent: { sandbox: agent!, interpreter: undefined, used: false } as Box,
          evaluator: { sandbox: evaluator!, interpreter: undefined, used: false } as Box,
        };
      });
      this.#boxes = boxes;
      boxes.catch(() => {
        if (this.#boxes === boxes) this.#boxes = undefined;
      });
    }
    return this.#boxes;
  }

  /** The box's interpreter, started again when it is gone. */
  async #interpreter(box: Box): Promise<PythonInterpreter> {
    if (box.interpreter?.alive) return box.interpreter;
    box.interpreter?.close();
    box.interpreter = undefined;
    box.interpreter = await startInterpreter(box.sandbox, {
      memoryBytes: this.#memoryBytes,
      ...(this.#options.deterministic ? { hashSeedFromEnv: true } : {}),
    });
    return box.interpreter;
  }

  /** Runs codes; a lost interpreter is started again and its codes reported as not run. */
  async #run(
    box: Box,
    target: RunTarget,
    codes: readonly string[],
    wrap: boolean,
    timeoutMs: number | readonly number[],
    judge?: Pick<RunOptions, 'onCall' | 'proxy'>,
  ): Promise<RunReply> {
    const interpreter = await this.#interpreter(box);
    box.used = true;
    try {
      return await interpreter.run(target, codes, {
        wrap,
        timeoutMs,
        maxOutputBytes: this.#maxOutputBytes,
        ...judge,
      });
    } catch (error) {
      if (!(error instanceof InterpreterLost)) throw error;
      interpreter.close();
      box.interpreter = undefined;
      await this.#interpreter(box);
      // Past the deadline the code ran beyond its time limit, and the driver could not even stop it
      // (a fork bomb on a starved machine): a timeout, answered by killing the interpreter.
      const result: CodeResult = {
        output: null,
        error: `Error: ${error.message}`,
        ok: false,
        died: true,
        ...(error.pastDeadline ? { timed_out: true } : {}),
      };
      return { results: codes.map(() => result), restarted: true, note: error.message };
    }
  }

  async #runGold(box: Box, task: Task, target: 'fresh' | 'agent' = 'fresh'): Promise<GoldRun> {
    const gold = goldOf(task);
    const tests = testsOf(task);
    if (gold === '' || tests.length === 0) {
      return { results: [], corrupt: true, reason: 'the task has no gold code or no tests' };
    }
    const reply = await this.#run(
      box,
      target,
      [setupOf(task), gold, ...tests],
      false,
      this.#options.goldTimeoutMs ?? DEFAULT_GOLD_TIMEOUT_MS,
    );
    const [setup, definition, ...results] = reply.results;
    const setupMs = setup?.ms ?? 0;
    const failed = [setup, definition, ...results].findIndex((result) => !result?.ok);
    if (failed < 0) return { results, setupMs, corrupt: false };
    const step = failed === 0 ? 'test setup code' : failed === 1 ? 'gold code' : `test ${failed - 1}`;
    return {
      results,
      setupMs,
      corrupt: true,
      reason: `the gold fails its own tests: ${step}: ${reply.results[failed]?.error ?? 'not run'}`,
    };
  }

  async reset(options: ResetOptions = {}): Promise<{ observation: Observation; info: ResetInfo }> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    const task = pickTask(this.#options.dataset.tasks, options);
    const started = performance.now();
    // A previous gold run may still be going in the evaluation sandbox: let it finish first.
    await this.#gold?.catch(() => undefined);
    const { agent, evaluator } = await this.#ensureBoxes();
    this.#task = task;
    this.#lastDefined = undefined;
    this.#gold = this.#runGold(evaluator, task);
    this.#gold.catch(() => {});
    await this.#freshAgent(agent);
    return {
      observation: { text: task.query, durationMs: performance.now() - started },
      info: { taskId: task.id, index: task.index, query: task.query, gold: task.gold },
    };
  }

  /**
   * A clean agent interpreter for a new episode. The driver first ends every process of the last one
   * and clears what lives beside the file system (`/dev`, `/dev/shm`, System V IPC; see `clean_slate`
   * in the driver) and forks a fresh worker; then the file system is checked against the image, now
   * that nothing of the episode can write any more. When either is not back to its start, the sandbox
   * is reset and a new driver started: a new process tree, with its own namespaces and `/dev`.
   */
  async #freshAgent(box: Box): Promise<void> {
    // A driver that is gone took its process tree (and namespaces) with it.
    let clean = !box.interpreter?.alive;
    if (box.interpreter?.alive) {
      try {
        clean = await box.interpreter.reset();
      } catch (error) {
        if (!(error instanceof InterpreterLost)) throw error;
      }
    }
    if (!clean || (box.used && (await box.sandbox.diff()).length > 0)) {
      box.interpreter?.close();
      box.interpreter = undefined;
      await box.sandbox.reset();
    }
    box.used = false;
    await this.#interpreter(box);
  }

  async #require(): Promise<{ agent: Box; evaluator: Box; task: Task }> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    if (!this.#boxes || !this.#task) throw new EnvError('ENV_RESET_NEEDED', 'call reset() before step()');
    const { agent, evaluator } = await this.#boxes;
    return { agent, evaluator, task: this.#task };
  }

  async step(input: Action | string): Promise<StepResult> {
    const { agent } = await this.#require();
    const action = toAction(input);
    if (action.type === 'skip') return skipStep();
    if (action.type === 'submit') return this.#submit(action.answer);
    const started = performance.now();
    this.#lastDefined = submittedFunctionName(action.code);
    const reply = await this.#run(agent, 'agent', [action.code], true, this.#timeoutMs);
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

  async #submit(answer: string | undefined): Promise<StepResult> {
    const started = performance.now();
    const name = submitName(answer);
    if (name === undefined) {
      return {
        observation: {
          text: 'submit needs the name of the function to test: submit <function-name>',
          durationMs: 0,
        },
        reward: 0,
        terminated: true,
        truncated: false,
        info: { admissible: false, score: { value: 0, details: { reason: 'no function name' } } },
      };
    }
    const score = await this.#evaluate(name);
    const details = score.details as { testsAgreeing?: number; testsPassed?: number } | undefined;
    const total = score.parts?.tests ?? 0;
    const text = `submitted ${name}: ${details?.testsAgreeing ?? 0} of ${total} tests agree with the reference solution (${details?.testsPassed ?? 0} passed)`;
    return {
      observation: { text, durationMs: performance.now() - started },
      reward: score.value,
      terminated: true,
      truncated: false,
      info: { admissible: true, score },
    };
  }

  /**
   * Upstream's MBPP reward for the function `name`: bind the gold's function name to it, run the
   * setup code and each test, compare each result with the gold's. The tests run in a judge that
   * the agent's code cannot reach (`judge-tests.ts`); with `--compat upstream` in the agent's own
   * interpreter, as upstream ran them.
   */
  async #evaluate(name: string): Promise<Score> {
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
    const results = upstream
      ? (await this.#run(agent, 'agent', [bind, setupOf(task), ...tests], false, limits)).results.slice(2)
      : await this.#judge(agent, evaluator, { bind, reference, setup: setupOf(task), tests, limits });
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
    plan: Pick<JudgePlan, 'bind' | 'reference' | 'setup' | 'tests'> & { limits: readonly number[] },
  ): Promise<readonly CodeResult[]> {
    const [bindMs = 0, setupMs = 0, ...testMs] = plan.limits;
    const outcome = await judgeTests(
      await this.#interpreter(agent),
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
      await interpreter.reset();
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

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#gold?.catch(() => undefined);
    const boxes = await this.#boxes?.catch(() => undefined);
    this.#boxes = undefined;
    if (!boxes) return;
    for (const box of [boxes.agent, boxes.evaluator]) box.interpreter?.close();
    await Promise.all([boxes.agent.sandbox.close(), boxes.evaluator.sandbox.close()]);
  }
}
