/**
 * The names of the sandbox backends intercode ships, as `createProviderRegistry` registers them: for
 * option parsers, which should not load the backends themselves (a SQL run uses none).
 */
export const SANDBOX_BACKENDS: readonly string[] = ['bwrap', 'docker'];
