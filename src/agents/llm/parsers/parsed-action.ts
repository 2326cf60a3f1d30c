/**
 * What a parser makes of a model's answer: code to run, a submit, a skip, or nothing runnable (the
 * model then gets a format reminder and the turn counts as a format error). Text that is not code is
 * never returned as `code` (the rules per language: docs/agents/prompts-and-parsers.md).
 */
export type ParsedAction =
  | { readonly kind: 'code'; readonly code: string }
  | { readonly kind: 'submit'; readonly answer?: string }
  | { readonly kind: 'skip' }
  | { readonly kind: 'invalid'; readonly reason: string };

export { actionParser } from './action-parser.js';
export { planParser } from './plan-parser.js';
export { reactParser } from './react-parser.js';
export { toolCallParser } from './tool-call-parser.js';
export { TOOL_SPECS } from './tool-specs.js';
