import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { DatasetError } from '../../src/core/errors.js';
import { resolveDataset } from '../../src/datasets/resolve-dataset.js';
import { loadTaskFile } from '../../src/datasets/task-file.js';
import { it } from '../support/fixtures.js';

/** The folder of this file's task files. */
let dir = '';

it.beforeAll(({ fileTempDir }) => {
  dir = fileTempDir('tasks');
});

/** Runs `read` as user nobody when this process is root (root reads anything), else as is. */
function asUnprivileged<T>(read: () => T): T {
  if (process.getuid?.() !== 0 || !process.seteuid) return read();
  process.seteuid(65534);
  try {
    return read();
  } finally {
    process.seteuid(0);
  }
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function loadError(path: string): DatasetError {
  try {
    loadTaskFile(path, 'bash');
  } catch (error) {
    expect(error).toBeInstanceOf(DatasetError);
    expect((error as DatasetError).message).not.toContain('\n');
    return error as DatasetError;
  }
  throw new Error(`${path} loaded`);
}

describe('loadTaskFile', () => {
  it('loads a JSON array: query and gold as fields, id and group if given, the rest in meta', () => {
    const path = file(
      'array.json',
      JSON.stringify([
        { query: 'count files', gold: 'ls | wc -l', db: 'x' },
        { query: 'say hi', id: 'hello', group: 'easy', gold: ['echo hi', 'echo hi again'] },
        { query: 'no gold here', id: 7 },
      ]),
    );
    const dataset = loadTaskFile(path, 'bash');
    expect(dataset).toMatchObject({ id: path, env: 'bash', assets: {} });
    expect(dataset.tasks).toEqual([
      { id: '0', index: 0, query: 'count files', gold: 'ls | wc -l', meta: { db: 'x' } },
      { id: 'hello', index: 1, query: 'say hi', gold: ['echo hi', 'echo hi again'], group: 'easy', meta: {} },
      { id: '7', index: 2, query: 'no gold here', meta: {} },
    ]);
  });

  it('loads a JSON object keyed by index, in index order', () => {
    const path = file('keyed.json', JSON.stringify({ 10: { query: 'ten' }, 2: { query: 'two', gold: 'b' } }));
    const { tasks } = loadTaskFile(path, 'sql');
    expect(tasks.map((task) => [task.id, task.index, task.query])).toEqual([
      ['2', 0, 'two'],
      ['10', 1, 'ten'],
    ]);
  });

  it('loads JSONL, skipping blank lines', () => {
    const path = file('tasks.jsonl', '{"query":"a","gold":"x"}\n\n{"query":"b","tests":[1,2]}\n');
    const { tasks } = loadTaskFile(path, 'python');
    expect(tasks).toEqual([
      { id: '0', index: 0, query: 'a', gold: 'x', meta: {} },
      { id: '1', index: 1, query: 'b', meta: { tests: [1, 2] } },
    ]);
  });

  it('names the file and the place of each problem', () => {
    expect(loadError(join(dir, 'absent.json')).message).toBe(
      `task file ${join(dir, 'absent.json')} does not exist`,
    );
    expect(loadError(file('bad.json', '[\n  {"query": "a"},\n  {"query": }\n]')).message).toMatch(
      /bad\.json: malformed JSON at line 3 \(/,
    );
    expect(loadError(file('cut.json', '[\n  {"query": "a"},\n  {"query"\n\n')).message).toMatch(
      /cut\.json: malformed JSON at line 3 \(/,
    );
    expect(loadError(file('bad.jsonl', '{"query":"a"}\n{"query": "b"\n')).message).toMatch(
      /bad\.jsonl: line 2 is not valid JSON \(/,
    );
    expect(loadError(file('noquery.json', '[{"query":"a"},{"gold":"b"}]')).message).toBe(
      `${join(dir, 'noquery.json')}: task 1 has no "query" (a non-empty string)`,
    );
    expect(loadError(file('noquery.jsonl', '{"query":"a"}\n\n{"query":""}\n')).message).toBe(
      `${join(dir, 'noquery.jsonl')}: line 3 has no "query" (a non-empty string)`,
    );
    expect(loadError(file('keyed-bad.json', '{"0":{"query":"a"},"1":"just text"}')).message).toMatch(
      /keyed-bad\.json: task "1" is not a JSON object$/,
    );
    expect(loadError(file('gold.json', '[{"query":"a","gold":3}]')).message).toMatch(
      /task 0 has a "gold" that is/,
    );
    expect(loadError(file('dup.json', '[{"query":"a","id":"x"},{"query":"b","id":"x"}]')).message).toMatch(
      /dup\.json: task id "x" appears more than once/,
    );
    expect(loadError(file('scalar.json', '42')).message).toMatch(
      /expected a JSON array of tasks or an object/,
    );
    expect(loadError(file('empty.jsonl', '\n')).message).toMatch(/has no tasks/);
    expect(loadError(file('tasks.yaml', '- query: a')).message).toMatch(/must end in \.json or \.jsonl/);
  });

  it('reports an unreadable file', () => {
    const path = file('secret.json', '[]');
    chmodSync(path, 0o000);
    expect(asUnprivileged(() => loadError(path)).message).toMatch(
      /^cannot read task file .*secret\.json: EACCES/,
    );
  });
});

describe('resolveDataset with a task file', () => {
  it('loads a file given in place of an id, with the env from --env', async () => {
    const path = file('mine.jsonl', '{"query":"list the files","gold":"ls"}\n');
    const dataset = await resolveDataset(path, { env: 'bash' });
    expect(dataset).toMatchObject({ id: path, env: 'bash' });
    expect(dataset.tasks).toHaveLength(1);
  });

  it('asks for --env, and names a path that does not exist', async () => {
    const path = file('needs-env.json', '[{"query":"a"}]');
    await expect(resolveDataset(path)).rejects.toThrow(`task file ${path} needs an environment: pass --env`);
    await expect(resolveDataset('./no/such/tasks.json', { env: 'bash' })).rejects.toThrow(
      'task file ./no/such/tasks.json does not exist',
    );
    mkdirSync(join(dir, 'folder'));
    await expect(resolveDataset(join(dir, 'folder'), { env: 'bash' })).rejects.toThrow(
      /cannot read task file/,
    );
  });
});
