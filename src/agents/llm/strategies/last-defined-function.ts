import { submittedFunctionName } from '../../../envs/python/function-names.js';
import type { TurnRecord } from '../../agent.js';

/**
 * Python: the function a bare `submit` names, the one defined by the latest `def` action (the
 * MBPP env scores a submission by function name, as the paper's loop submitted it).
 */
export function lastDefinedFunction(history: readonly TurnRecord[]): string | undefined {
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const turn = history[index]!;
    if (!turn.admissible && turn.llm?.formatError !== undefined) continue;
    const name = submittedFunctionName(turn.action.trimStart());
    if (name !== undefined) return name;
  }
  return undefined;
}
