/** One step of a worked example: what the model thinks, what it does, what it sees. */
export interface DemonstrationStep {
  readonly thought: string;
  /** Code to run, or a submit (with the flag or function name where the environment needs one). */
  readonly action: { readonly code: string } | { readonly submit: string | undefined };
  /** What the environment answered; none after a submit. */
  readonly observation?: string;
}

/** A worked example of a whole episode, written for this project (never the original's). */
export interface Demonstration {
  readonly task: string;
  readonly steps: readonly DemonstrationStep[];
}

/** A step's action in ReAct syntax: `execute[<code>]`, `submit` or `submit[<answer>]`. */
export function reactAction(action: DemonstrationStep['action']): string {
  if ('code' in action) return `execute[${action.code}]`;
  return action.submit === undefined ? 'submit' : `submit[${action.submit}]`;
}

/** A step's action as a direct answer: a fenced block, or `submit <answer>` on its own. */
export function directAction(action: DemonstrationStep['action'], tag: string): string {
  if ('code' in action) return `\`\`\`${tag}\n${action.code}\n\`\`\``;
  return action.submit === undefined ? 'submit' : `submit ${action.submit}`;
}

/** The ReAct answer of a step, as the model is asked to write it. */
export function reactAnswer(step: DemonstrationStep): string {
  return `Thought: ${step.thought}\nAction: ${reactAction(step.action)}`;
}

/** Worked examples in the ReAct form (Question, then Thought / Action / Observation). */
export function renderReactDemonstrations(demonstrations: readonly Demonstration[]): string {
  return demonstrations
    .map((demo, i) => {
      const steps = demo.steps.map((step) =>
        step.observation === undefined
          ? reactAnswer(step)
          : `${reactAnswer(step)}\nObservation: ${step.observation}`,
      );
      return [`Example ${i + 1}`, `Question: ${demo.task}`, ...steps].join('\n');
    })
    .join('\n\n');
}
