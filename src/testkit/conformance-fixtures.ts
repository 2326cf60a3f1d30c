import { test } from 'vitest';
import type { Sandbox, SandboxProvider, SandboxSpec } from '../sandbox/sandbox.js';
import { type ConformanceContext, mergeSpec } from './conformance-options.js';
import { type HostSecret, removeHostSecrets, writeHostSecrets } from './host-secrets.js';

export interface ConformanceFixtures {
  /** Creates a sandbox on the shared provider; every sandbox it made is closed after the test. */
  open: (spec?: SandboxSpec) => Promise<Sandbox>;
  /** A sandbox with the suite's spec, closed after the test. */
  sandbox: Sandbox;
  /** Creates a provider of its own; closed after the test. */
  newProvider: () => Promise<SandboxProvider>;
  /** Secret files on the host, removed after the test. */
  secrets: readonly HostSecret[];
}

/** A label that names the test in process listings. */
function labelOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
}

/** Vitest's `test` with fixtures that close whatever a case opened, also when the case fails. */
export function conformanceTest(context: ConformanceContext) {
  return test.extend<ConformanceFixtures>({
    open: async ({ task }, use) => {
      const opened: Sandbox[] = [];
      const label = labelOf(task.name);
      await use(async (spec) => {
        const sandbox = await context.provider().create(mergeSpec({ ...context.options.spec, label }, spec));
        opened.push(sandbox);
        return sandbox;
      });
      await Promise.allSettled(opened.map((sandbox) => sandbox.close()));
    },
    sandbox: async ({ open }, use) => {
      await use(await open());
    },
    // biome-ignore lint/correctness/noEmptyPattern: Vitest reads fixture dependencies from a destructured argument.
    newProvider: async ({}, use) => {
      const providers: SandboxProvider[] = [];
      await use(async () => {
        const provider = await context.createProvider();
        providers.push(provider);
        return provider;
      });
      await Promise.allSettled(providers.map((provider) => provider.close()));
    },
    // biome-ignore lint/correctness/noEmptyPattern: Vitest reads fixture dependencies from a destructured argument.
    secrets: async ({}, use) => {
      const secrets = writeHostSecrets();
      await use(secrets);
      removeHostSecrets(secrets);
    },
  });
}

export type ConformanceTest = ReturnType<typeof conformanceTest>;
