import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { envToolChecks } from '../../../src/cli/doctor/machine-checks.js';
import type { Env } from '../../../src/core/env.js';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { CTF_RETRY_MESSAGE, ctfEnvironment } from '../../../src/envs/ctf/ctf-env.js';
import { CTF_GOLD_ERRATA } from '../../../src/envs/ctf/ctf-errata.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { MIRROR, PROJECT_ROOT } from '../../support/project.js';

// The CTF environment in real bwrap sandboxes (skipped where bwrap cannot run); ctf/picoctf is read
// from the mirror of the upstream data.
const provider = new BwrapProvider();
const envs: Env[] = [];
const noBwrap = await bwrapMissing();
let pico: Dataset;
let demo: Dataset;
let own: Dataset;

async function ctfEnv(dataset: Dataset, options: Parameters<typeof ctfEnvironment>[0] = {}): Promise<Env> {
  const factory = await ctfEnvironment(options).open({ dataset, config: { kind: 'sandbox', provider } });
  const env = factory.create();
  envs.push(env);
  return env;
}

// The file's own cache (INTERCODE_CACHE_DIR) and the local mirror (INTERCODE_DATA_MIRROR) for
// everything below.
it.beforeAll(async ({ cache: _cache, mirror: _mirror, fileTempDir }) => {
  [pico, demo] = await Promise.all([resolveDataset('ctf/picoctf'), resolveDataset('demo/ctf')]);
  // A dataset of our own whose asset folder has a solution/ folder, nested and at the top.
  const assets = fileTempDir('ctf-assets');
  mkdirSync(join(assets, 'x', 'solution'), { recursive: true });
  mkdirSync(join(assets, 'x', 'deep', 'solution'), { recursive: true });
  writeFileSync(join(assets, 'x', 'note.txt'), 'hello\n');
  writeFileSync(join(assets, 'x', 'deep', 'kept.txt'), 'kept\n');
  writeFileSync(join(assets, 'x', 'solution', 'flag.txt'), 'flag{a b}\n');
  writeFileSync(join(assets, 'x', 'deep', 'solution', 'flag.txt'), 'flag{a b}\n');
  own = {
    id: 'own',
    env: 'ctf',
    tasks: [{ id: 'x', index: 0, query: 'find it', gold: 'flag{A b}', meta: {} }],
    assets: { taskAssets: assets },
  };
}, 120_000);

afterAll(async () => {
  await Promise.all(envs.map((env) => env.close()));
  await provider.close();
});

describe('CTF environment: task files', () => {
  it('copies the task folder to /ctf/<id>, starts the shell there, and never copies a solution/ folder', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = await ctfEnv(own);
    await env.reset({ taskId: 'x' });
    const listing = await env.step('pwd && find . | sort');
    expect(listing.observation.text).toBe('/ctf/x\n.\n./deep\n./deep/kept.txt\n./note.txt\n');
    expect((await env.step('cat note.txt')).observation.text).toBe('hello\n');
  });

  it('gives a picoCTF task exactly its files without solution/, although the mirror has one', async ({
    needs,
  }) => {
    needs(noBwrap);
    const id = '3';
    const upstream = readdirSync(join(MIRROR, 'data/ctf/task_assets', id));
    expect(upstream).toContain('solution');
    const env = await ctfEnv(pico);
    await env.reset({ taskId: id });
    const listing = await env.step('ls -A');
    expect(listing.observation.text.split('\n').filter(Boolean).sort()).toEqual(
      upstream.filter((name) => name !== 'solution').sort(),
    );
    const found = await env.step('find / -xdev -path /proc -prune -o -name solution -print 2>/dev/null');
    expect(found.observation.text).not.toMatch(/\/ctf\//);
  });

  it('starts a placeholder-only task in /ctf/<id> holding just the placeholder', async ({ needs }) => {
    needs(noBwrap);
    const env = await ctfEnv(pico);
    await env.reset({ taskId: '17' });
    expect((await env.step('pwd; ls -A')).observation.text).toBe('/ctf/17\n.placeholder\n');
  });

  it('drops the previous task files and changes at the next reset', async ({ needs }) => {
    needs(noBwrap);
    const env = await ctfEnv(demo);
    await env.reset({ taskId: 'nested-archive' });
    await env.step('tar -xf backup.tar && touch /tmp/left-over');
    await env.reset({ taskId: 'hex-spaces' });
    const step = await env.step('ls -A /ctf; ls /tmp/left-over');
    expect(step.observation.text).toMatch(/^hex-spaces\n/);
    expect(step.info.admissible).toBe(false);
  });
});

describe('CTF environment: submit', () => {
  it('takes the whole rest of the line as the flag, spaces included, ignoring case and outer spaces', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = await ctfEnv(own);
    await env.reset({ taskId: 'x' });
    const right = await env.step('submit   FLAG{a B}  ');
    expect(right).toMatchObject({ reward: 1, terminated: true });
    expect(right.info.score?.details).toMatchObject({ submitted: 'FLAG{a B}' });
    await env.reset({ taskId: 'x' });
    // Upstream split at the first space and compared "flag{a" only.
    const truncated = await env.step('submit flag{a');
    expect(truncated.reward).toBe(0);
  });

  it('a wrong or empty submit scores 0 and the episode goes on; the right one then ends it', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = await ctfEnv(own);
    await env.reset({ taskId: 'x' });
    const wrong = await env.step('submit flag{nope}');
    expect(wrong).toMatchObject({ reward: 0, terminated: false, truncated: false });
    expect(wrong.observation.text).toBe(CTF_RETRY_MESSAGE);
    const bare = await env.step('submit');
    expect(bare).toMatchObject({ reward: 0, terminated: false });
    expect((await env.step('cat note.txt')).observation.text).toBe('hello\n');
    expect((await env.score()).value).toBe(0);
    const right = await env.step('submit flag{a b}');
    expect(right).toMatchObject({ reward: 1, terminated: true });
    expect((await env.score()).value).toBe(1);
  });
});

describe('CTF environment: gold errata', () => {
  const erratum = CTF_GOLD_ERRATA.find((entry) => entry.taskId === '15')!;

  it('task 15: the corrected flag is what crackme.py decodes, and upstream gold lacks its backslash', async ({
    needs,
  }) => {
    needs(noBwrap);
    expect(pico.tasks.find((task) => task.id === '15')?.gold).toBe(erratum.upstreamGold);
    const env = await ctfEnv(pico);
    await env.reset({ taskId: '15' });
    const decoded = await env.step(
      `/usr/bin/python3 -c "exec(open('crackme.py').read().split('def choose_greatest')[0]); decode_secret(bezos_cc_secret)"`,
    );
    expect(decoded.observation.text.trim()).toBe(erratum.correctedGold);
  });

  it('applies the erratum by default, records it in the reset info and the score, and can be turned off', async ({
    needs,
  }) => {
    needs(noBwrap);
    const definition = ctfEnvironment();
    const task = pico.tasks.find((candidate) => candidate.id === '15')!;
    expect(definition.goldActions(task)).toEqual([`submit ${erratum.correctedGold}`]);
    const env = await ctfEnv(pico);
    const { info } = await env.reset({ taskId: '15' });
    expect(info.erratum).toMatchObject({ gold: erratum.correctedGold, source: 'upstream issue 25' });
    const wrong = await env.step(`submit ${erratum.upstreamGold}`);
    expect(wrong.reward).toBe(0);
    // The score a wrong flag gets (the agent's history records it) does not give the flag away.
    expect(JSON.stringify(wrong.info.score)).not.toContain(
      JSON.stringify(erratum.correctedGold).slice(1, -1),
    );
    const right = await env.step(`submit ${erratum.correctedGold}`);
    expect(right.reward).toBe(1);
    expect(right.info.score?.details).toMatchObject({ erratum: { upstreamGold: erratum.upstreamGold } });

    const upstream = await ctfEnv(pico, { errata: false });
    const reset = await upstream.reset({ taskId: '15' });
    expect(reset.info.erratum).toBeUndefined();
    expect((await upstream.step(`submit ${erratum.upstreamGold}`)).reward).toBe(1);
  });
});

describe('CTF environment: unrunnable tasks and the public API', () => {
  it('marks tasks that need the internet or lack their files, with the reason, and nothing else', () => {
    const definition = ctfEnvironment();
    const reasons = new Map(
      pico.tasks.flatMap((task) => {
        const reason = definition.unrunnable?.(task);
        return reason === undefined ? [] : [[task.id, reason] as const];
      }),
    );
    expect(reasons.get('9')).toMatch(/needs the internet/);
    expect(reasons.get('65')).toMatch(/not available/);
    expect(reasons.get('70')).toMatch(/not available/);
    expect(reasons.has('66')).toBe(true);
    for (const runnable of ['0', '3', '8', '14', '15', '17']) expect(reasons.has(runnable)).toBe(false);
    expect(reasons.size).toBe(23);
    for (const task of demo.tasks) expect(definition.unrunnable?.(task)).toBeUndefined();
  });

  it('intercode doctor names the CTF tools missing on the host with the apt command', ({
    setEnv,
    tempDir,
  }) => {
    setEnv('PATH', tempDir('empty-path'));
    const item = envToolChecks().find((check) => check.name === 'ctf tools (host image)')!;
    expect(item).toMatchObject({ ok: false, optional: true });
    expect(item.detail).toMatch(/^missing: python3 gcc .* binwalk$/);
    expect(item.fix).toMatch(
      /^apt-get install -y --no-install-recommends python3 gcc .*sleuthkit.* binwalk$/,
    );
  });

  it('is built only from what the package exports: every name it imports from intercode is public', async () => {
    const publicApi = await import('../../../src/index.js');
    const folder = join(PROJECT_ROOT, 'src', 'envs', 'ctf');
    for (const file of readdirSync(folder)) {
      const text = readFileSync(join(folder, file), 'utf8');
      for (const match of text.matchAll(/import (type )?\{([^}]*)\} from '([^']+)'/g)) {
        const source = match[3]!;
        if (source.startsWith('node:') || source.startsWith('./')) continue;
        // Outside its own folder it may only reach the public API: runtime names exported by
        // src/index.ts (types cannot be checked at run time; the type check covers them).
        for (const raw of match[2]!.split(',')) {
          const name = raw.trim();
          if (name === '' || match[1] || name.startsWith('type ')) continue;
          expect(Object.keys(publicApi), `${file} imports ${name} from ${source}`).toContain(name);
        }
      }
    }
  });
});
