/**
 * The function a Try Again turn submits: upstream's loop took `re.match(r'def (\w+)\(', action)` of an
 * action that starts with `def`; any other action scored 0.
 */
export function submittedFunctionName(action: string): string | undefined {
  if (!action.startsWith('def')) return undefined;
  return /^def (\w+)\(/.exec(action)?.[1];
}

/**
 * The gold function that the submission is bound to: upstream's `re.search(r'def (\w+)\(', gold)`
 * (the first `def`, which may be a helper). Six MBPP golds write `def name (…)` with a space, where
 * upstream crashed; those fall back to the first `def` with optional spaces.
 */
export function referenceFunctionName(gold: string): string | undefined {
  return /def (\w+)\(/.exec(gold)?.[1] ?? /\bdef\s+(\w+)\s*\(/.exec(gold)?.[1];
}

/** Upstream's `last_action.split(" ")[1]`: the word after `submit`, up to the next space. */
export function submitName(answer: string | undefined): string | undefined {
  const name = answer?.split(' ')[0];
  return name === undefined || name === '' ? undefined : name;
}
