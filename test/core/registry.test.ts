import { describe, expect, it } from 'vitest';
import { RegistryError } from '../../src/core/errors.js';
import { Registry } from '../../src/core/registry.js';

describe('Registry', () => {
  it('returns what was registered and lists it', () => {
    const registry = new Registry<number>('thing').register('a', 1, 'first').register('b', 2);
    expect(registry.get('a')).toBe(1);
    expect(registry.has('b')).toBe(true);
    expect(registry.list()).toEqual([
      { id: 'a', description: 'first' },
      { id: 'b', description: '' },
    ]);
  });

  it('names the known ids when an id is unknown, and refuses duplicates', () => {
    const registry = new Registry<number>('dataset').register('x', 1);
    expect(() => registry.get('y')).toThrow('unknown dataset "y" (known: x)');
    expect(() => registry.register('x', 2)).toThrow(RegistryError);
    try {
      registry.get('y');
    } catch (error) {
      expect((error as RegistryError).code).toBe('REGISTRY_UNKNOWN');
    }
  });
});
