import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxError } from '../../core/errors.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { type InterpreterOptions, PythonInterpreter } from './python-interpreter.js';

/** Starts of an interpreter tried before giving up (waits of 0.1, 0.2, … s between them). */
const START_ATTEMPTS = 8;

/**
 * A started interpreter. A start can fail while the processes of the previous one are still dying (a
 * fork bomb fills the sandbox's process limit until the kernel has reaped them): it is tried again for
 * a few seconds.
 */
export async function startInterpreter(
  sandbox: Sandbox,
  options: InterpreterOptions,
  newSandbox = false,
): Promise<PythonInterpreter> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await PythonInterpreter.start(sandbox, options, newSandbox && attempt === 1);
    } catch (error) {
      const startFailed = error instanceof SandboxError && error.code === 'SANDBOX_START_FAILED';
      if (!startFailed || attempt >= START_ATTEMPTS) throw error;
      await sleep(100 * attempt);
    }
  }
}
