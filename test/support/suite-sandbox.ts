import { afterAll, beforeAll } from 'vitest';
import { BwrapProvider, type Sandbox, type SandboxSpec } from '../../src/sandbox/index.js';

/**
 * A bwrap sandbox for the tests of the enclosing `describe` block: created before them (after
 * `prepare`, e.g. an image build), closed with its provider after them. Returns its getter.
 */
export function suiteSandbox(spec: SandboxSpec, prepare?: () => Promise<unknown>): () => Sandbox {
  const provider = new BwrapProvider();
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    await prepare?.();
    sandbox = await provider.create(spec);
  }, 600_000);
  afterAll(async () => {
    await sandbox?.close();
    await provider.close();
  });
  return () => {
    if (!sandbox) throw new Error('the suite sandbox is not created yet');
    return sandbox;
  };
}
