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
}

/**
 * The two sandboxes of a Python episode: the agent's and the evaluation sandbox. The copies of a fork
 * share them with the original (`owners` counts the envs that hold them; the last to let go closes
 * them), and take turns on them (`exclusive`): the driver answers one request at a time, and a
 * submission's scoring is several requests that must not interleave with another env's.
 */
export interface PythonBoxes {
  readonly agent: Box;
  readonly evaluator: Box;
  owners: number;
  lane: Promise<unknown>;
}

/** Creates both sandboxes (none left open when either fails). */
export async function openBoxes(
  provider: SandboxProvider,
  spec: Pick<SandboxSpec, 'image' | 'timeoutMs' | 'maxOutputBytes' | 'deterministic'>,
): Promise<PythonBoxes> {
  const settled = await Promise.allSettled([
    provider.create({ ...spec, label: 'python-agent' }),
    provider.create({ ...spec, label: 'python-eval' }),
  ]);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(
      settled.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)),
    );
    throw failed.reason;
  }
  const [agent, evaluator] = settled.map((result) => (result as PromiseFulfilledResult<Sandbox>).value);
  return {
    agent: { sandbox: agent!, interpreter: undefined, used: false },
    evaluator: { sandbox: evaluator!, interpreter: undefined, used: false },
    owners: 1,
    lane: Promise.resolve(),
  };
}

/** Runs `work` once every earlier turn on `boxes` is over. */
export function exclusive<T>(boxes: PythonBoxes, work: () => Promise<T>): Promise<T> {
  const turn = boxes.lane.then(work);
  boxes.lane = turn.catch(() => {});
  return turn;
}

/** Closes both sandboxes and their interpreters. */
export async function closeBoxes(boxes: PythonBoxes): Promise<void> {
  for (const box of [boxes.agent, boxes.evaluator]) box.interpreter?.close();
  await Promise.all([boxes.agent.sandbox.close(), boxes.evaluator.sandbox.close()]);
}

/** The box's interpreter, started again when it is gone. */
export async function boxInterpreter(box: Box, options: InterpreterOptions): Promise<PythonInterpreter> {
  if (box.interpreter?.alive) return box.interpreter;
  box.interpreter?.close();
  box.interpreter = undefined;
  box.interpreter = await startInterpreter(box.sandbox, options);
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
