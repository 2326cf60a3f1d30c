import { afterAll, beforeAll, describe } from 'vitest';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { determinismCases } from './cases/determinism.js';
import { execCases } from './cases/exec.js';
import { fileCases } from './cases/files.js';
import { forkCases } from './cases/fork.js';
import { imageCases } from './cases/images.js';
import { isolationCases } from './cases/isolation.js';
import { lifecycleCases } from './cases/lifecycle.js';
import { outputCases } from './cases/output.js';
import { resetDiffCases } from './cases/reset-diff.js';
import { resourceCases } from './cases/resources.js';
import { scaleCases } from './cases/scale.js';
import { sessionCases } from './cases/session.js';
import { spawnCases } from './cases/spawn.js';
import { timeoutCases } from './cases/timeouts.js';
import { trustedResetCases } from './cases/trusted-reset.js';
import { conformanceTest } from './conformance-fixtures.js';
import {
  type ConformanceContext,
  resolveOptions,
  type SandboxConformanceOptions,
} from './conformance-options.js';

/**
 * Registers the sandbox conformance suite: the cases every `SandboxProvider` must pass (sessions,
 * exec, output limits, time limits, resource limits, isolation from the host, files, images, reset
 * and diff, fork, scale, and clean-up). Call it at the top level of a Vitest test file.
 */
export function describeSandboxConformance(
  name: string,
  createProvider: () => SandboxProvider | Promise<SandboxProvider>,
  options: SandboxConformanceOptions = {},
): void {
  const resolved = resolveOptions(options);

  describe(`sandbox conformance: ${name}`, () => {
    describe('with a shared provider', () => {
      let shared: SandboxProvider | undefined;
      beforeAll(async () => {
        shared = await createProvider();
      });
      afterAll(async () => {
        await shared?.close();
        shared = undefined;
      });
      const context: ConformanceContext = {
        options: resolved,
        createProvider,
        provider: () => {
          if (!shared) throw new Error('the shared provider is not open');
          return shared;
        },
      };
      const it = conformanceTest(context);
      sessionCases(it, context);
      execCases(it, context);
      spawnCases(it, context);
      outputCases(it, context);
      timeoutCases(it, context);
      resourceCases(it, context);
      isolationCases(it, context);
      fileCases(it);
      imageCases(it, context);
      resetDiffCases(it, context);
      trustedResetCases(it, context);
      forkCases(it, context);
      scaleCases(it, context);
      determinismCases(it, context);
    });

    // Last, once the shared provider is closed: these cases check that nothing of this process is left.
    describe('on its own providers', () => {
      const context: ConformanceContext = {
        options: resolved,
        createProvider,
        provider: () => {
          throw new Error('lifecycle cases open their own providers');
        },
      };
      lifecycleCases(conformanceTest(context), context);
    });
  });
}
