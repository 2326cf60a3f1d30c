import type { Observation } from '../../core/env.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { observationOf } from './observation-of.js';
import { simplifyPath, upstreamCommandLine } from './upstream-command.js';

/**
 * One action the way upstream ran it (`compat: 'upstream'`): mangled quoting, a fresh process, an
 * emulated `cd` from the working directory `workdir`. Returns the observation, whether the action
 * was admissible, and the working directory after it.
 */
export async function upstreamStep(
  agent: Sandbox,
  workdir: string,
  code: string,
  timeoutMs: number,
): Promise<{ observation: Observation; admissible: boolean; workdir: string }> {
  let line: string | null;
  let cwd = workdir;
  let target: string | undefined;
  if (code.startsWith('cd')) {
    const at = code.indexOf('cd ');
    target = at < 0 ? undefined : simplifyPath(workdir, code.slice(at + 3).trim());
    line = target === undefined ? null : upstreamCommandLine(`cd ${target}`);
    cwd = '/';
  } else {
    line = upstreamCommandLine(code);
  }
  if (line === null)
    return { observation: { text: 'Malformed command', durationMs: 0 }, admissible: false, workdir };
  const result = await agent.exec(line, { cwd, timeoutMs });
  const admissible = result.exitCode === 0 && !result.timedOut;
  const observation: Observation = result.timedOut
    ? { text: 'Command timed out', timedOut: true, durationMs: result.durationMs }
    : observationOf(result, timeoutMs);
  return { observation, admissible, workdir: admissible && target !== undefined ? target : workdir };
}
