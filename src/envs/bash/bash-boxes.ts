import { EnvError } from '../../core/errors.js';
import type { Sandbox, SandboxProvider, SandboxSpec } from '../../sandbox/sandbox.js';
import type { SpareKind } from '../warm-spare.js';

/**
 * The agent's and the evaluator's sandboxes on one task file system. The copy of a forked episode
 * has no evaluator: it scores against the gold's result as data (its reset makes one).
 */
export interface BashBoxes {
  readonly layers: readonly string[];
  readonly agent: Sandbox;
  readonly evaluator: Sandbox | undefined;
  agentPristine: boolean;
  evaluatorPristine: boolean;
}

/** A pair with its evaluation sandbox (every pair but a fork's copy). */
export type FullBashBoxes = BashBoxes & { readonly evaluator: Sandbox };

/** Whether two layer lists are the same file system. */
export function sameLayers(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((layer, index) => layer === b[index]);
}

/**
 * Starts both sandboxes of a pair; none is left open when either fails, or when `closed()` says the
 * env was closed meanwhile (a caller that gave up on the reset: nothing may outlive the env).
 */
export async function openBashBoxes(
  provider: SandboxProvider,
  spec: SandboxSpec,
  closed: () => boolean,
): Promise<FullBashBoxes> {
  const made = await Promise.allSettled([
    provider.create({ ...spec, label: 'agent' }),
    provider.create({ ...spec, label: 'eval' }),
  ]);
  const [agent, evaluator] = made.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
  if (!agent || !evaluator || closed()) {
    await Promise.all([agent?.close(), evaluator?.close()]);
    const failed = made.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    throw new EnvError('ENV_CLOSED', 'the environment was closed during its reset');
  }
  return { layers: spec.layers ?? [], agent, evaluator, agentPristine: true, evaluatorPristine: true };
}

/** Closes both sandboxes of a pair. */
export async function closeBashBoxes(boxes: BashBoxes): Promise<void> {
  await Promise.all([boxes.agent.close(), boxes.evaluator?.close()]);
}

/**
 * The pair as the item of the env's warm spare. Renewing brings a used pair back to its task file
 * system, every process ended and a new shell started in each (`Sandbox.reset`): the same state as
 * a pair just opened.
 */
export const bashSpareKind: SpareKind<FullBashBoxes> = {
  sandboxes: (boxes) => [boxes.agent, boxes.evaluator],
  renew: async (boxes) => {
    await Promise.all([
      boxes.agentPristine ? undefined : boxes.agent.reset(),
      // Only golds ran in the evaluation sandbox (see `runInEvaluator`).
      boxes.evaluatorPristine ? undefined : boxes.evaluator.reset({ trusted: true }),
    ]);
    boxes.agentPristine = true;
    boxes.evaluatorPristine = true;
  },
  close: closeBashBoxes,
};
