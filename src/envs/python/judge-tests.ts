import type { CodeResult, JudgeAnswer, JudgeCall, RunReply } from './driver-messages.js';
import { type AgentChannel, InterpreterLost } from './python-interpreter.js';

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
  /**
   * The submission ends the episode: the agent's worker itself is the probe, which ends it (see
   * `RunOptions.spend`), and nothing is made ahead (a redo would need the worker as it was).
   */
  readonly last?: boolean;
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
 * a plain value (`python-values.py`). The probe ends with the driver's next request: the agent's own
 * interpreter is never changed by scoring, but by the last (`plan.last`: a submission), whose probe is
 * the agent's worker itself, ended with it (no copy: its fork and first writes were a third of an
 * MBPP episode's CPU). The calls share a time budget as long as the tests' limits together.
 */
export async function judgeTests(
  agent: AgentChannel,
  runJudge: JudgeRunner,
  plan: JudgePlan,
  speculating = plan.reference !== undefined && plan.last !== true,
): Promise<JudgeOutcome> {
  let agentLost = false;
  const lost = (error: unknown): undefined => {
    if (!(error instanceof InterpreterLost)) throw error;
    agentLost = true;
    return undefined;
  };
  const budgetMs = plan.testMs.reduce((sum, ms) => sum + ms, 0);
  // With speculation, the probe makes the literal calls of the tests right away (in the place of a third
  // code); the judge then needs the host only for the rest.
  const probe = agent
    .run('copy', speculating ? [plan.bind, plan.setup, ''] : [plan.bind, plan.setup], {
      wrap: false,
      timeoutMs: speculating ? [plan.bindMs, plan.setupMs, budgetMs] : [plan.bindMs, plan.setupMs],
      maxOutputBytes: plan.maxOutputBytes,
      stay: true,
      ...(plan.last ? { spend: true } : {}),
      ...(speculating ? { speculate: { tests: plan.tests, names: [plan.reference!] } } : {}),
    })
    .then((reply) => reply, lost);
  const speculated = probe.then((reply) => {
    const ahead = reply?.results[2];
    // Usable only when it finished and wrote nothing past the per-call capture (fd 1 or 2 directly).
    const usable = ahead?.ok && Array.isArray(ahead.value) && !ahead.stdout && !ahead.stderr;
    return usable ? (ahead.value as unknown[]) : undefined;
  });
  let offered = false;
  let redo = false;
  let budget = budgetMs;
  const perCall = Math.max(...plan.testMs);
  const onCall = async (call: JudgeCall): Promise<JudgeAnswer> => {
    if (!(await probe) || agentLost) return DIED;
    if (speculating && !offered) {
      offered = true;
      const spec = await speculated;
      if (spec) return { spec };
      redo = true; // the probe's state is not what the calls alone would have left: run again without
      return DIED;
    }
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
  let reply: RunReply;
  try {
    reply = await runJudge([plan.setup, ...plan.tests], [plan.setupMs, ...plan.testMs], onCall);
  } finally {
    // The probe ends with the driver's next request (no wait here); a failed start is reported first.
    await probe;
  }
  // The judge asked for a call other than the next one the probe made ahead (which it then asked the
  // probe for, in a state those extra calls changed): judged again, call by call. Calls made ahead and
  // never asked for at the end change nothing the judge saw.
  if (speculating && !agentLost && (redo || reply.diverged === true))
    return judgeTests(agent, runJudge, plan, false);
  return { results: reply.results.slice(1), agentLost };
}
