import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { PrefixStore } from '../../../../src/agents/llm/strategies/prefix-store.js';
import { test } from '../../../support/fixtures.js';

// PrefixStore.add: the gathering run of a queue adds the prefixes its workers' records name.
const SYSTEM = [{ role: 'system' as const, content: 'You are a SQL agent.' }];
const OTHER = [{ role: 'system' as const, content: 'You are a Bash agent.' }];

describe('PrefixStore.add', () => {
  test('adds prefixes named elsewhere under their content hash, once, and writes prefixes.json', ({
    tempDir,
  }) => {
    const dir = tempDir('prefix-add');
    const worker = new PrefixStore();
    const name = worker.name(SYSTEM);
    const other = worker.name(OTHER);
    const gatherer = new PrefixStore(dir);
    gatherer.add({ [name]: worker.get(name)! });
    const path = join(dir, 'prefixes.json');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ [name]: SYSTEM });
    // The same name again (another worker's result) changes nothing on disk.
    const written = statSync(path).mtimeMs;
    gatherer.add({ [name]: SYSTEM });
    expect(statSync(path).mtimeMs).toBe(written);
    gatherer.add({ [name]: SYSTEM, [other]: OTHER });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ [name]: SYSTEM, [other]: OTHER });
    // A resumed run reads them back.
    expect(new PrefixStore(dir).get(other)).toEqual(OTHER);
  });

  test('refuses a name that is not the hash of its messages, keeping what it holds', ({ tempDir }) => {
    const dir = tempDir('prefix-add-bad');
    const name = new PrefixStore().name(SYSTEM);
    const gatherer = new PrefixStore(dir);
    gatherer.add({ [name]: SYSTEM });
    expect(() => gatherer.add({ [name]: OTHER })).toThrow(`prefix ${name} does not match its messages`);
    expect(gatherer.get(name)).toEqual(SYSTEM);
    expect(JSON.parse(readFileSync(join(dir, 'prefixes.json'), 'utf8'))).toEqual({ [name]: SYSTEM });
  });
});
