import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { DatasetError } from '../../src/core/errors.js';
import { Registry } from '../../src/core/registry.js';
import type { Dataset } from '../../src/core/task.js';
import {
  createDatasetRegistry,
  datasetSpec,
  registerBuiltinDatasets,
} from '../../src/datasets/dataset-registry.js';
import type { DatasetSpec } from '../../src/datasets/dataset-spec.js';
import { datasetStatus } from '../../src/datasets/dataset-status.js';
import { resolveDataset } from '../../src/datasets/resolve-dataset.js';
import { it } from '../support/fixtures.js';
import { filesUnder } from '../support/mirror-files.js';
import { MIRROR } from '../support/project.js';

/** Task counts as documented (reference/intercode-semantics.md §6 and the mirror's README). */
const DOCUMENTED: Record<string, number> = {
  'nl2bash/fs1': 60,
  'nl2bash/fs2': 53,
  'nl2bash/fs3': 60,
  'nl2bash/fs4': 27,
  'nl2bash/test': 24,
  nl2bash: 200,
  'spider/dev': 1034,
  'wikisql/dev': 196,
  'mbpp/test': 974,
  'ctf/picoctf': 100,
};

const registry = createDatasetRegistry();
const loaded = new Map<string, Dataset>();

async function load(id: string): Promise<Dataset> {
  if (!loaded.has(id)) loaded.set(id, await resolveDataset(id));
  return loaded.get(id)!;
}

function countByGroup(dataset: Dataset): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const task of dataset.tasks) counts[task.group ?? ''] = (counts[task.group ?? ''] ?? 0) + 1;
  return counts;
}

async function failure(promise: Promise<unknown>): Promise<DatasetError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DatasetError);
  expect((error as DatasetError).message).not.toContain('\n');
  return error as DatasetError;
}

// The file's own cache (INTERCODE_CACHE_DIR) and the local mirror (INTERCODE_DATA_MIRROR) for
// everything below.
it.beforeAll(({ cache: _cache, mirror: _mirror }) => {});

describe('dataset registry', () => {
  it('registers the ids of DESIGN §6 explicitly, with env, description, count and files', () => {
    expect(
      registry
        .list()
        .map((entry) => entry.id)
        .sort(),
    ).toEqual(
      [...Object.keys(DOCUMENTED), 'bird/dev', 'demo/bash', 'demo/sql', 'demo/ctf', 'demo/python'].sort(),
    );
    const envs = Object.fromEntries(registry.list().map((entry) => [entry.id, registry.get(entry.id).env]));
    expect(envs).toMatchObject({
      nl2bash: 'bash',
      'spider/dev': 'sql',
      'mbpp/test': 'python',
      'ctf/picoctf': 'ctf',
    });
    for (const { id, description } of registry.list()) {
      const spec = registry.get(id);
      expect(description.length).toBeGreaterThan(10);
      expect(spec.builtIn).toBe(id.startsWith('demo/'));
      if (!spec.builtIn) expect(spec.files.length).toBeGreaterThan(0);
    }
    expect(registry.get('ctf/picoctf').files.some((path) => path.includes('solution'))).toBe(false);
    expect(registerBuiltinDatasets(new Registry<DatasetSpec>('dataset')).list()).toHaveLength(15);
  });

  it.each(Object.entries(DOCUMENTED))('%s loads its documented %i tasks', async (id, count) => {
    const dataset = await load(id);
    expect(registry.get(id).taskCount).toBe(count);
    expect(dataset.tasks).toHaveLength(count);
    expect(dataset.id).toBe(id);
    expect(dataset.env).toBe(registry.get(id).env);
    expect(new Set(dataset.tasks.map((task) => task.id)).size).toBe(count);
    dataset.tasks.forEach((task, index) => {
      expect(task.index).toBe(index);
      expect(task.query.length).toBeGreaterThan(0);
    });
    for (const path of Object.values(dataset.assets)) expect(existsSync(path), path).toBe(true);
    expect(datasetStatus(registry.get(id))).toBe('cached');
  });

  it('gives NL2Bash tasks their file system and the matching setup scripts', async () => {
    const fs2 = await load('nl2bash/fs2');
    expect(fs2.tasks[0]).toMatchObject({ id: '0', group: 'fs2', meta: { fileSystem: 'fs2' } });
    expect(fs2.assets.setupScript).toBe(fs2.assets['setupScript:fs2']);
    expect(readFileSync(fs2.assets.setupScript!, 'utf8')).toContain('/system');
    expect(readFileSync(fs2.assets.gitignore!, 'utf8')).toContain('proc');
    const first = JSON.parse(readFileSync(join(MIRROR, 'data/nl2bash/nl2bash_fs_2.json'), 'utf8'))[0];
    expect(fs2.tasks[0]).toMatchObject({ query: first.query, gold: first.gold });

    const all = await load('nl2bash');
    expect(all.assets.setupScript).toBeUndefined();
    expect(Object.keys(all.assets).sort()).toEqual([
      'gitignore',
      'setupScript:fs1',
      'setupScript:fs2',
      'setupScript:fs3',
      'setupScript:fs4',
    ]);
    expect(countByGroup(all)).toEqual({
      fs1: 60,
      fs2: 53,
      fs3: 60,
      fs4: 27,
    });
    expect(all.tasks[60]).toMatchObject({
      id: 'fs2/0',
      index: 60,
      meta: { fileSystem: 'fs2' },
      query: first.query,
    });
    for (const task of all.tasks) {
      expect(all.assets[`setupScript:${task.meta.fileSystem}`]).toBe(
        (await load(`nl2bash/${task.meta.fileSystem}`)).assets.setupScript,
      );
    }
    const test = await load('nl2bash/test');
    expect(readFileSync(test.assets.setupScript!, 'utf8')).toContain('/testbed');
  });

  it('keeps upstream fields in meta: Spider by hardness, MBPP and CTF by their own task ids', async () => {
    const spider = await load('spider/dev');
    expect(spider.tasks[0]!.meta).toMatchObject({ db: 'poker_player', hardness: 'medium' });
    expect(spider.tasks[0]!.meta.db_tables).toBeDefined();
    expect(countByGroup(spider)).toEqual({ easy: 248, medium: 446, hard: 174, extra: 166 });
    expect(readFileSync(spider.assets.databaseDump!).length).toBe(412090);

    const mbpp = await load('mbpp/test');
    expect(mbpp.tasks[0]).toMatchObject({ id: '1', index: 0 });
    expect(mbpp.tasks[0]!.meta.tests).toHaveLength(3);
    expect(mbpp.tasks[0]!.meta.task_id).toBe(1);
  });

  it('gives CTF tasks a folder of assets without solutions, and marks the tasks whose assets are missing', async () => {
    const ctf = await load('ctf/picoctf');
    expect(ctf.tasks[0]).toMatchObject({ id: '0', group: 'Reverse Engineering' });
    const root = ctf.assets.taskAssets!;
    expect(readFileSync(join(root, '0', 'unpackme.flag.py')).length).toBeGreaterThan(0);
    expect(filesUnder(root).filter((path) => path.includes('solution'))).toEqual([]);
    expect(existsSync(join(root, '3', 'solution'))).toBe(false);
    const unavailable = ctf.tasks.filter((task) => task.meta.unavailable).map((task) => task.id);
    expect(unavailable).toEqual(['65', '66', '70']);
    expect(registry.get('ctf/picoctf').partial).toMatch(/65, 66, 70/);
  });

  it('registers bird/dev but reports that its dump is not available', async () => {
    const spec = registry.get('bird/dev');
    expect(spec.taskCount).toBe(338);
    expect(datasetStatus(spec)).toBe('unavailable');
    const error = await failure(resolveDataset('bird/dev'));
    expect(error.code).toBe('DATASET_UNAVAILABLE');
    expect(error.message).toMatch(
      /^dataset bird\/dev cannot load: data\/sql\/bird\/ic_bird_dbs\.sql is not available/,
    );
  });

  it('loads demo/bash from the package, with no download', async ({ setEnv, tempDir }) => {
    setEnv('INTERCODE_DATA_MIRROR', join(tempDir('empty-mirror'), 'nothing'));
    const demo = await resolveDataset('demo/bash', { env: 'bash' });
    expect(demo.tasks.length).toBeGreaterThanOrEqual(20);
    expect(demo.tasks).toHaveLength(registry.get('demo/bash').taskCount);
    expect(new Set(demo.tasks.map((task) => task.group))).toEqual(
      new Set(['search', 'text', 'files', 'archive', 'checksum']),
    );
    expect(readFileSync(demo.assets.setupScript!, 'utf8')).toMatch(/^#!\/bin\/bash\n/);
    expect(demo.assets['setupScript:demo']).toBe(demo.assets.setupScript);
    expect(demo.tasks.every((task) => task.meta.fileSystem === 'demo')).toBe(true);
  });

  it('names the known ids for an unknown id, and refuses a mismatched env', async () => {
    const unknown = await failure(resolveDataset('nope'));
    expect(unknown.code).toBe('DATASET_UNKNOWN');
    expect(unknown.message).toMatch(
      /^unknown dataset "nope" \(known: bird\/dev, ctf\/picoctf, demo\/bash, .*\)/,
    );
    expect(() => datasetSpec(registry, 'spider/test')).toThrow(/unknown dataset "spider\/test" \(known: /);
    const env = await failure(resolveDataset('demo/bash', { env: 'sql' }));
    expect(env.message).toBe('dataset demo/bash runs in the bash environment, not sql (leave out --env)');
  });
});
