import { describe, expect, it } from 'vitest';
import { SANDBOX_BACKENDS } from '../../src/sandbox/backend-names.js';
import { createProviderRegistry } from '../../src/sandbox/provider-registry.js';

describe('SANDBOX_BACKENDS', () => {
  it('names the backends the provider registry holds, in its order', () => {
    expect(SANDBOX_BACKENDS).toEqual(
      createProviderRegistry()
        .list()
        .map((entry) => entry.id),
    );
  });
});
