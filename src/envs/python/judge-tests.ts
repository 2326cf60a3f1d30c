import {
  type CodeResult,
  InterpreterLost,
  type JudgeAnswer,
  type JudgeCall,
  type PythonInterpreter,
  type RunReply,
} from './python-interpreter.js';

/** What a submission's tests need: the codes and their time limits (milliseconds). */
export interface JudgePlan {
  /** `<reference> = <submitted>` (or '' when the gold names no function). */
  readonly bind: string;
  /** The gold's function name, which the tests call. */
  readonly reference: string | undefined;
  readonly setup: string;
  readonly tests: readonly string[];
  readonly bindMs: number;
  readonly setupMs: number;
  readonly testMs: readonly number[];
  readonly maxOutputBytes: number;
}

export interface JudgeOutcome {
  /** One per test, as the judge saw it. */
  readonly results: readonly CodeResult[];
  /** The agent's interpreter was lost (or had to be restarted): it needs starting again. */
  readonly agentLost: boolean;
}

/** Runs the judge's codes (setup, then the tests) in the evaluation sandbox, answering its calls. */
export type JudgeRunner = (
  codes: readonly string[],
  limits: readonly number[],
  onCall: (call: JudgeCall) => Promise<JudgeAnswer>,
) => Promise<RunReply>;

const DIED: JudgeAnswer = { exc: 'Error: the test process died', out: '', err: '' };

/**
 * A submission's tests, judged where the agent's code never ran: a fresh judge in the evaluation
 * sandbox runs the setup code and each test, its undefined names standing for the agent's functions.
 * Each call of one is made in a probe, a copy of the agent's interpreter with the gold's name bound to
 * the submitted function and the setup code run (as upstream ran the tests there), and comes back as
 * a plain value (`python-values.py`). The probe is ended afterwards: the agent's own interpreter is
 * never changed by scoring. The calls share a time budget as long as the tests' limits together.
 */
export async function judgeTests(
  agent: PythonInterpreter,
  runJudge: JudgeRunner,
  plan: JudgePlan,
): Promise<JudgeOutcome> {
  let agentLost = false;
  const lost = (error: unknown): false => {
    if (!(error instanceof InterpreterLost)) throw error;
    agentLost = true;
    return false;
  };
  const probe = agent
    .run('copy', [plan.bind, plan.setup], {
      wrap: false,
      timeoutMs: [plan.bindMs, plan.setupMs],
      maxOutputBytes: plan.maxOutputBytes,
      stay: true,
    })
    .then(() => true, lost);
  let budget = plan.testMs.reduce((sum, ms) => sum + ms, 0);
  const perCall = Math.max(...plan.testMs);
  const onCall = async (call: JudgeCall): Promise<JudgeAnswer> => {
    if (!(await probe) || agentLost) return DIED;
    if (budget <= 0) return { exc: 'Error: the tests ran out of time', out: '', err: '' };
    const started = performance.now();
    try {
      const result = (await agent.call(call, Math.min(perCall, budget), plan.maxOutputBytes)).results[0]!;
      const out = result.stdout ?? '';
      const err = result.stderr ?? '';
      if (result.value !== undefined) return { value: result.value, out, err };
      return { exc: result.ok ? 'Error: the submitted function gave no value' : result.error, out, err };
    } catch (error) {
      lost(error);
      return DIED;
    } finally {
      budget -= performance.now() - started;
    }
  };
  let results: readonly CodeResult[];
  try {
    const reply = await runJudge([plan.setup, ...plan.tests], [plan.setupMs, ...plan.testMs], onCall);
    results = reply.results.slice(1);
  } finally {
    // The probe ends in every case (a release that the driver cannot do restarts the agent's worker).
    if ((await probe) && !agentLost) await agent.release().catch(lost);
  }
  return { results, agentLost };
}
