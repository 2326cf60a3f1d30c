import type { WarmPoolStats } from '../../core/env.js';
import { SandboxError } from '../../core/errors.js';
import type { Sandbox, SandboxProvider, SandboxSpec } from '../../sandbox/sandbox.js';
import type { CodeResult, ForkReply, RunOptions, RunReply, RunTarget } from './driver-messages.js';
import { InterpreterLost, type InterpreterOptions, type PythonInterpreter } from './python-interpreter.js';
import { startInterpreter } from './start-interpreter.js';

/** A sandbox with its interpreter (none until started, or after it died). */
export interface Box {
  readonly sandbox: Sandbox;
  interpreter: PythonInterpreter | undefined;
  /** Code ran since the file system was last checked against the image. */
  used: boolean;
  /**
   * The evaluation sandbox's: its driver keeps the worker of a clean gold or judge run for the next
   * one when the warm pool is on (`InterpreterOptions.keep`).
   */
  readonly evaluation: boolean;
}

/**
 * The two sandboxes of a Python episode: the agent's and the evaluation sandbox. The evaluation
 * sandbox opens once the agent's is ready, while the first episode already runs (its first use is
 * the gold run, which does not hold up the first observation); `evaluatorFailed` is set when it
 * could not open (the next reset opens both anew). The copies of a fork share them with the original
 * (`owners` counts the envs that hold them; the last to let go closes them), and take turns on them
 * (`exclusive`): the driver answers one request at a time, and a submission's scoring is several
 * requests that must not interleave with another env's.
 */
export interface PythonBoxes {
  readonly agent: Box;
  readonly evaluator: Promise<Box>;
  evaluatorFailed: boolean;
  owners: number;
  lane: Promise<unknown>;
}

/**
 * Creates the agent's sandbox and with `start` its interpreter (none left open when either fails),
 * then, in the background, the evaluation sandbox and its interpreter the same way.
 */
export async function openBoxes(
  provider: SandboxProvider,
  spec: Pick<SandboxSpec, 'image' | 'timeoutMs' | 'maxOutputBytes' | 'deterministic'>,
  start?: InterpreterOptions,
): Promise<PythonBoxes> {
  const open = async (label: string, evaluation: boolean): Promise<Box> => {
    const box: Box = {
      // The interpreter is the sandbox's own program: its shell starts only if something uses it.
      sandbox: await provider.create({ ...spec, label, lazyShell: true }),
      interpreter: undefined,
      used: false,
      evaluation,
    };
    if (start) {
      try {
        await boxInterpreter(box, start, true);
      } catch (error) {
        await box.sandbox.close();
        throw error;
      }
    }
    return box;
  };
  const agent = await open('python-agent', false);
  const boxes: PythonBoxes = {
    agent,
    evaluator: open('python-eval', true),
    evaluatorFailed: false,
    owners: 1,
    lane: Promise.resolve(),
  };
  boxes.evaluator.catch(() => {
    boxes.evaluatorFailed = true;
  });
  return boxes;
}

function closeBox(box: Box): Promise<void> {
  box.interpreter?.close();
  return box.sandbox.close();
}

/** Runs `work` once every earlier turn on `boxes` is over. */
export function exclusive<T>(boxes: PythonBoxes, work: () => Promise<T>): Promise<T> {
  const turn = boxes.lane.then(work);
  boxes.lane = turn.catch(() => {});
  return turn;
}

/** Closes both sandboxes and their interpreters (the evaluation sandbox once it opened, or failed to). */
export async function closeBoxes(boxes: PythonBoxes): Promise<void> {
  await Promise.all([closeBox(boxes.agent), boxes.evaluator.then(closeBox, () => {})]);
}

/** The box's interpreter, started again when it is gone; `newSandbox`: nothing ran in the sandbox yet. */
export async function boxInterpreter(
  box: Box,
  options: InterpreterOptions,
  newSandbox = false,
): Promise<PythonInterpreter> {
  if (box.interpreter?.alive) return box.interpreter;
  box.interpreter?.close();
  box.interpreter = undefined;
  const keep = box.evaluation && options.warm === true;
  box.interpreter = await startInterpreter(box.sandbox, keep ? { ...options, keep } : options, newSandbox);
  return box.interpreter;
}

/** Runs codes; a lost interpreter is started again and its codes reported as not run. */
export async function runInBox(
  box: Box,
  start: InterpreterOptions,
  target: RunTarget,
  codes: readonly string[],
  options: RunOptions,
): Promise<RunReply> {
  const interpreter = await boxInterpreter(box, start);
  box.used = true;
  try {
    return await interpreter.run(target, codes, options);
  } catch (error) {
    if (!(error instanceof InterpreterLost)) throw error;
    interpreter.close();
    box.interpreter = undefined;
    await boxInterpreter(box, start);
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

/** `count` copies of worker `key` in the box's driver; a driver lost meanwhile is `SANDBOX_START_FAILED`. */
export async function forkWorker(box: Box, key: string, count: number): Promise<ForkReply> {
  const interpreter = box.interpreter;
  if (!interpreter) throw new SandboxError('SANDBOX_START_FAILED', 'the Python interpreter is not running');
  try {
    return await interpreter.fork(key, count);
  } catch (error) {
    if (!(error instanceof InterpreterLost)) throw error;
    interpreter.close();
    box.interpreter = undefined;
    throw new SandboxError(
      'SANDBOX_START_FAILED',
      `the Python interpreter could not be copied: ${error.message}`,
    );
  }
}

/**
 * A clean agent interpreter for a new episode. The driver first ends every process of the last one
 * and clears what lives beside the file system (`/dev`, `/dev/shm`, System V IPC; see `clean_slate`
 * in the driver) and takes its spare worker or forks a fresh one; then the file system is checked
 * against the image, now that nothing of the episode can write any more. When either is not back to
 * its start, the sandbox is reset and a new driver started: a new process tree, with its own
 * namespaces and `/dev`.
 */
export async function freshAgent(box: Box, key: string, options: InterpreterOptions): Promise<void> {
  // A driver that is gone took its process tree (and namespaces) with it; one just started has run nothing.
  let clean = !box.interpreter?.alive || box.interpreter.untouched;
  if (!clean && box.interpreter?.alive) {
    try {
      clean = await box.interpreter.reset(key);
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
  await boxInterpreter(box, options);
}

/** The most the two drivers hold idle with the pool on: a spare each and the evaluation sandbox's kept worker. */
export const POOL_LIMIT = 3;

/** What the two drivers hold idle for their next fresh workers (the pool on). */
export async function boxesPool(boxes: PythonBoxes): Promise<WarmPoolStats> {
  const evaluator = await boxes.evaluator.catch(() => undefined);
  const pools = await Promise.all(
    [boxes.agent, evaluator].map((box) =>
      box?.interpreter?.alive ? box.interpreter.pool().catch(() => undefined) : undefined,
    ),
  );
  return {
    idle: pools.reduce((sum, pool) => sum + (pool?.idle ?? 0), 0),
    memoryBytes: pools.reduce((sum, pool) => sum + (pool?.memoryBytes ?? 0), 0),
    limit: POOL_LIMIT,
  };
}
