import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/core/registry.js';
import type { Dataset } from '../../src/core/task.js';
import type { DatasetSpec } from '../../src/datasets/dataset-spec.js';
import type { RunConfig } from '../../src/harness/run-config.js';
import { planRun } from '../../src/harness/run-plan.js';
import { debianImagePaths } from '../../src/sandbox/images/debian-image.js';
import { rootProfile } from '../../src/sandbox/images/image-profiles.js';
import { EnvVars } from '../support/env-vars.js';
import { faketimeMissing } from '../support/missing-components.js';
import { TempDirs } from '../support/temp-dirs.js';

/** A registry of one dataset per environment whose loads are counted: planning must never load. */
function countingDatasets() {
  const loads: string[] = [];
  const registry = new Registry<DatasetSpec>('dataset');
  for (const env of ['bash', 'sql', 'python', 'ctf']) {
    const id = `test/${env}`;
    registry.register(
      id,
      {
        id,
        env,
        description: `${env} tasks`,
        taskCount: 1,
        files: [],
        builtIn: true,
        load: async (): Promise<Dataset> => {
          loads.push(id);
          return { id, env, tasks: [{ id: '0', index: 0, query: 'q', meta: {} }], assets: {} };
        },
      },
      `${env} tasks`,
    );
  }
  return { registry, loads };
}

async function planError(config: RunConfig): Promise<string> {
  const { registry, loads } = countingDatasets();
  const error = await planRun(config, { datasets: registry }).then(
    () => undefined,
    (caught: unknown) => caught as Error,
  );
  expect(loads).toEqual([]);
  expect(error, `planning ${JSON.stringify(config)} should fail`).toBeInstanceOf(Error);
  expect(error!.message).not.toContain('\n');
  return error!.message;
}

describe('planRun: every setting is checked against the environment before anything loads', () => {
  it('refuses settings that do not apply to the environment, naming the option', async () => {
    expect(await planError({ dataset: 'test/bash', sql: { handicap: true } })).toMatch(
      /^--handicap: it applies to the sql environment only, not bash$/,
    );
    expect(
      await planError({ dataset: 'test/python', sql: { engine: 'mysql', dbUrl: 'mysql://u@h' } }),
    ).toMatch(/^--engine, --db-url: these apply to the sql environment only/);
    expect(await planError({ dataset: 'test/sql', sandbox: { image: 'debian' } })).toMatch(
      /^--image: sql does not run in sandboxes/,
    );
    expect(await planError({ dataset: 'test/sql', sandbox: { backend: 'docker' } })).toMatch(/^--backend:/);
    expect(await planError({ dataset: 'test/ctf', sandbox: { compat: 'upstream' } })).toMatch(
      /^--compat: the ctf environment has no upstream mode/,
    );
  });

  it('refuses unknown values and mismatched ones', async () => {
    expect(await planError({ dataset: 'test/sql', sql: { engine: 'oracle' as never } })).toMatch(
      /^--engine: unknown engine "oracle"/,
    );
    expect(await planError({ dataset: 'test/bash', sandbox: { compat: 'legacy' as never } })).toMatch(
      /^--compat must be one of fixed, upstream/,
    );
    expect(await planError({ dataset: 'test/bash', sandbox: { backend: 'podman' } })).toMatch(
      /unknown sandbox backend.*podman|podman.*(known|registered)/i,
    );
    expect(await planError({ dataset: 'test/sql', sql: { dbUrl: 'mysql://u@h' } })).toMatch(
      /^--db-url applies to the mysql and postgres engines/,
    );
    expect(
      await planError({ dataset: 'test/sql', sql: { engine: 'postgres', dbUrl: 'mysql://u@h' } }),
    ).toMatch(/^--db-url: the postgres engine takes postgres:\/\/ or postgresql:\/\/ URLs, not mysql:\/\//);
    expect(await planError({ dataset: 'test/sql', sql: { engine: 'mysql', dbUrl: 'not a url' } })).toMatch(
      /^--db-url: "not a url" is not a URL/,
    );
    expect(await planError({ dataset: 'no/such' })).toMatch(/^unknown dataset "no\/such"/);
    expect(await planError({ dataset: 'test/bash', env: 'sql' })).toMatch(
      /runs in the bash environment, not sql/,
    );
  });

  it('refuses an image the backend cannot run, before any sandbox starts', async () => {
    expect(await planError({ dataset: 'test/bash', sandbox: { backend: 'docker', image: 'host' } })).toBe(
      'image "host" is not available on the docker backend (use debian, debian:<profile> or docker:<name>)',
    );
    expect(await planError({ dataset: 'test/bash', sandbox: { image: 'docker:alpine' } })).toMatch(
      /^image "docker:alpine" is not available on the bwrap backend/,
    );
    expect(await planError({ dataset: 'test/bash', sandbox: { image: 'debian:nosuch' } })).toMatch(
      /^unknown image profile "nosuch" \(known: bash, python, ctf/,
    );
  });

  it('plans a good configuration without loading: the environment, backend and setup are known', async () => {
    const { registry, loads } = countingDatasets();
    const bash = await planRun(
      { dataset: 'test/bash', sandbox: { backend: 'docker', compat: 'upstream' } },
      { datasets: registry },
    );
    expect([bash.envName, bash.definition.kind, bash.backend]).toEqual(['bash', 'sandbox', 'docker']);
    const sql = await planRun(
      { dataset: 'test/sql', sql: { engine: 'sqlite', handicap: true } },
      { datasets: registry },
    );
    expect([sql.envName, sql.definition.kind, sql.backend]).toEqual(['sql', 'sql', undefined]);
    expect(loads).toEqual([]);
    expect((await sql.loadDataset()).id).toBe('test/sql');
    expect(loads).toEqual(['test/sql']);
  });

  it("names the schema hint in the run's description, for the report to find the paper's figures", async () => {
    const plan = await planRun({ dataset: 'demo/sql', sql: { engine: 'sqlite', handicap: true } });
    const run = await plan.open(await plan.loadDataset());
    try {
      expect(run.description).toEqual({ dataset: 'demo/sql', env: 'sql', engine: 'sqlite', handicap: true });
    } finally {
      await run.close();
    }
    const plain = await planRun({ dataset: 'demo/sql' });
    const opened = await plain.open(await plain.loadDataset());
    await opened.close();
    expect(opened.description).not.toHaveProperty('handicap');
  });

  it('turns deterministic mode on for registered datasets and off for task files, and checks the clock up front', async () => {
    const { registry, loads } = countingDatasets();
    const clockPinned = faketimeMissing() === null;
    const bash = await planRun({ dataset: 'test/bash' }, { datasets: registry });
    expect(bash.deterministic).toEqual({ on: true, clockPinned });
    expect(bash.deterministicDescription()).toEqual({ deterministic: true, clockPinned });
    const off = await planRun(
      { dataset: 'test/bash', sandbox: { deterministic: false } },
      { datasets: registry },
    );
    expect(off.deterministicDescription()).toEqual({ deterministic: false });
    const dir = mkdtempSync(join(tmpdir(), 'intercode-plan-'));
    const tasks = join(dir, 'tasks.json');
    writeFileSync(tasks, '[{"query": "q", "gold": "ls"}]');
    const file = await planRun({ dataset: tasks, env: 'bash' }, { datasets: registry });
    expect(file.deterministic).toEqual({ on: false, clockPinned: false });
    const sql = await planRun({ dataset: 'test/sql' }, { datasets: registry });
    expect(sql.deterministic).toBeUndefined();
    expect(sql.deterministicDescription()).toEqual({});
    expect(loads).toEqual([]);
    // An image without libfaketime cannot pin the clock: asked for, that is an error before any work.
    expect(
      await planError({ dataset: 'test/bash', sandbox: { image: `dir:${dir}`, deterministic: true } }),
    ).toBe(
      `--deterministic: image dir:${dir} has no libfaketime (the Debian package libfaketime) to pin the clock with; without --deterministic the clock runs`,
    );
    expect(await planError({ dataset: 'test/sql', sandbox: { deterministic: true } })).toMatch(
      /^--deterministic: sql does not run in sandboxes/,
    );
    expect(await planError({ dataset: 'test/sql', sandbox: { deterministic: false } })).toMatch(
      /^--deterministic: sql does not run in sandboxes/,
    );
  });

  it("runs a dataset on its own image once built, else on the backend's default with a notice, before any work", async () => {
    // The built-in registry: planning loads nothing, so no download happens here. The cache decides
    // whether debian:bash is built: an empty one, then one whose image folder is marked complete.
    const vars = new EnvVars();
    const dirs = new TempDirs();
    try {
      vars.set('INTERCODE_CACHE_DIR', dirs.make('plan-cache-empty'));
      const unbuilt = await planRun({ dataset: 'nl2bash/fs1' });
      expect(unbuilt.image).toBe('host');
      expect(unbuilt.notices).toHaveLength(1);
      expect(unbuilt.notices[0]).toMatch(
        /^nl2bash\/fs1 runs on the host image: debian:bash, the image its tasks were written for, is not built \(on host .*\); `intercode image build bash` \(about a minute\) builds it and later runs use it; --image host keeps this one without this notice$/,
      );
      expect(unbuilt.pinnedConfig().sandbox?.image).toBe('host');
      // docker's default is that image: it is the run's, with nothing to notice.
      const docker = await planRun({ dataset: 'nl2bash/fs1', sandbox: { backend: 'docker' } });
      expect([docker.image, docker.notices]).toEqual(['debian:bash', []]);

      const cache = dirs.make('plan-cache-built');
      vars.set('INTERCODE_CACHE_DIR', cache);
      const { dir } = debianImagePaths(rootProfile('bash'));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'complete'), '');
      const built = await planRun({ dataset: 'nl2bash' });
      expect([built.image, built.notices]).toEqual(['debian:bash', []]);
      // What the queue's workers plan from names it, whatever they have built.
      expect(built.pinnedConfig()).toEqual({ dataset: 'nl2bash', sandbox: { image: 'debian:bash' } });
      expect(built.config).toEqual({ dataset: 'nl2bash' });
      const named = await planRun({ dataset: 'nl2bash/fs1', sandbox: { image: 'host' } });
      expect([named.image, named.notices]).toEqual(['host', []]);
      const demo = await planRun({ dataset: 'demo/bash' });
      expect([demo.image, demo.notices]).toEqual(['host', []]);
      const sql = await planRun({ dataset: 'spider/dev' });
      expect([sql.image, sql.notices, sql.pinnedConfig()]).toEqual([
        undefined,
        [],
        { dataset: 'spider/dev' },
      ]);
    } finally {
      vars.restore();
      dirs.removeAll();
    }
  });
});
