/**
 * The Python client (`clients/python`, standard library only, Debian's /usr/bin/python3) against a real
 * server: the library's startServer in this process (a token, real bwrap sandboxes and SQLite), and
 * `intercode serve` from the compiled CLI. The gold episodes played through the server must score what
 * the same episodes score in a local run, episode by episode; the client's own tests (WebSocket framing,
 * limits, close, sessions, TLS, CLI) run with `python3 -m unittest`; the package builds and installs
 * offline into a venv.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Task } from '../../src/core/task.js';
import { playEpisode } from '../../src/harness/play-episode.js';
import { planRun } from '../../src/harness/run-plan.js';
import { type RunningServer, startServer } from '../../src/server/app/start-server.js';
import type { StartedCli } from '../support/cli-runner.js';
import { it } from '../support/fixtures.js';
import { bwrapMissing } from '../support/missing-components.js';
import { PROJECT_ROOT } from '../support/project.js';

const PYTHON = '/usr/bin/python3';
const CLIENT_DIR = join(PROJECT_ROOT, 'clients', 'python');
const TOKEN = 'python-client-test-token';
const MAX_TURNS = 10;

const noBwrap = await bwrapMissing();
const noPython = existsSync(PYTHON) ? null : `${PYTHON} is missing (apt-get install python3)`;
const missing = noPython ?? noBwrap;

/** One episode for the Python player: how the server picks the task, and the actions to send. */
interface EpisodeSpec {
  readonly dataset: string;
  readonly seed?: number;
  readonly task_id?: string;
  readonly actions: string[];
  /** The task the server must pick (the test checks the seed mapping with it). */
  readonly expectedTaskId: string;
}

interface PlayedEpisode {
  readonly task_id: string;
  readonly rewards: number[];
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly step_count: number;
  readonly state_done: boolean;
}

interface ProcessResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let server: RunningServer | undefined;
let url = '';

/** Runs a program without blocking the event loop (the server answers in this process meanwhile). */
function run(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd = PROJECT_ROOT,
  input?: string,
) {
  return new Promise<ProcessResult>((resolve, reject) => {
    const child: ChildProcess = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function python(args: readonly string[], env: Record<string, string> = {}): Promise<ProcessResult> {
  return run(PYTHON, args, { PYTHONPATH: CLIENT_DIR, PYTHONDONTWRITEBYTECODE: '1', ...env });
}

// The server runs in this process (the library's startServer) with the file's private cache and the
// local mirror; the Python clients are child processes.
it.beforeAll(async ({ cache, mirror }) => {
  if (missing) return;
  expect(cache && mirror).toBeTruthy();
  server = await startServer({ host: '127.0.0.1', port: 0, token: TOKEN, maxSessions: 16 });
  url = server.url;
}, 120_000);

it.afterAll(async () => {
  await server?.close();
}, 120_000);

/** The URL `intercode serve` prints once it listens. */
function listeningUrl(started: StartedCli): Promise<string> {
  let output = '';
  return new Promise<string>((resolve, reject) => {
    started.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/[\d.]+:\d+) /.exec(output);
      if (match) resolve(match[1]!);
    });
    void started.done.then((result) =>
      reject(new Error(`intercode serve exited ${result.status}: ${result.stderr}`)),
    );
  });
}

/** The gold episodes of a dataset: the gold actions then `submit`, picked by seed or by task id. */
async function goldEpisodes(
  datasetId: string,
  count: number,
  pick: 'seed' | 'task_id',
): Promise<{ specs: EpisodeSpec[]; tasks: readonly Task[] }> {
  const plan = await planRun({ dataset: datasetId });
  const dataset = await plan.loadDataset();
  const tasks = dataset.tasks;
  const specs: EpisodeSpec[] = [];
  for (let seed = 0; seed < count; seed += 1) {
    const task = tasks[seed % tasks.length]!;
    const actions = [...plan.definition.goldActions(task), 'submit'];
    specs.push(
      pick === 'seed'
        ? { dataset: datasetId, seed, actions, expectedTaskId: task.id }
        : { dataset: datasetId, task_id: task.id, actions, expectedTaskId: task.id },
    );
  }
  return { specs, tasks };
}

/** The same episodes played in this process (playEpisode on the library's env): each one's step rewards. */
async function localRewards(datasetId: string, specs: readonly EpisodeSpec[]): Promise<number[][]> {
  const plan = await planRun({ dataset: datasetId });
  const dataset = await plan.loadDataset();
  const opened = await plan.open(dataset);
  const rewards: number[][] = [];
  try {
    const env = opened.createEnv();
    try {
      for (const spec of specs) {
        const task = dataset.tasks.find((candidate) => candidate.id === spec.expectedTaskId)!;
        const record = await playEpisode(
          env,
          task,
          { act: async ({ turn }) => spec.actions[turn] },
          { maxTurns: MAX_TURNS, scoreEveryTurn: false, dataset: datasetId },
        );
        rewards.push(record.turns.map((turn) => turn.reward));
      }
    } finally {
      await env.close();
    }
  } finally {
    await opened.close();
  }
  return rewards;
}

/** Plays `specs` through the server with the Python client and returns what each episode scored. */
async function playRemote(
  specs: readonly EpisodeSpec[],
  transport: 'ws' | 'http',
  dir: string,
): Promise<{ episodes: PlayedEpisode[]; connections: number }> {
  const input = join(dir, `episodes-${transport}.json`);
  const output = join(dir, `results-${transport}.json`);
  writeFileSync(input, JSON.stringify(specs));
  const script = join(CLIENT_DIR, 'tests', 'play_episodes.py');
  const result = await python([
    script,
    '--url',
    url,
    '--token',
    TOKEN,
    '--transport',
    transport,
    input,
    output,
  ]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(readFileSync(output, 'utf8')) as { episodes: PlayedEpisode[]; connections: number };
}

/** Episode by episode: the server picked the expected task and the rewards equal the local run's. */
function expectSameRewards(
  label: string,
  specs: readonly EpisodeSpec[],
  remote: readonly PlayedEpisode[],
  local: readonly number[][],
): void {
  expect(remote).toHaveLength(specs.length);
  let equal = 0;
  let solved = 0;
  specs.forEach((spec, index) => {
    const played = remote[index]!;
    expect(played.task_id, `${label} episode ${index}`).toBe(spec.expectedTaskId);
    expect(played.rewards, `${label} episode ${index} (${spec.expectedTaskId})`).toEqual(local[index]);
    expect(played.terminated).toBe(true);
    expect(played.state_done).toBe(true);
    expect(played.step_count).toBe(spec.actions.length);
    equal += 1;
    if (played.rewards.at(-1) === 1) solved += 1;
  });
  // Gold episodes: every one solves its task, so equal rewards are not equal failures.
  expect(solved).toBe(specs.length);
  console.info(`${label}: ${equal}/${specs.length} episodes with the local run's rewards, ${solved} solved`);
}

describe('the Python client plays gold episodes through intercode serve', () => {
  it('100 episodes of demo/sql (tasks chosen by seed) and 20 of demo/bash over the WebSocket', async ({
    needs,
    tempDir,
  }) => {
    needs(missing);
    const dir = tempDir('python-gold');
    const sql = await goldEpisodes('demo/sql', 100, 'seed');
    const bash = await goldEpisodes('demo/bash', 20, 'task_id');
    const specs = [...sql.specs, ...bash.specs];
    const remote = await playRemote(specs, 'ws', dir);
    // One client, one WebSocket for all 120 episodes.
    expect(remote.connections).toBe(1);
    const localSql = await localRewards('demo/sql', sql.specs);
    const localBash = await localRewards('demo/bash', bash.specs);
    expectSameRewards('demo/sql over ws', sql.specs, remote.episodes.slice(0, 100), localSql);
    expectSameRewards('demo/bash over ws', bash.specs, remote.episodes.slice(100), localBash);
  }, 600_000);

  it('episodes of demo/sql and demo/bash over HTTP sessions on one keep-alive connection', async ({
    needs,
    tempDir,
  }) => {
    needs(missing);
    const sql = await goldEpisodes('demo/sql', 10, 'task_id');
    const bash = await goldEpisodes('demo/bash', 3, 'seed');
    const specs = [...sql.specs, ...bash.specs];
    const remote = await playRemote(specs, 'http', tempDir('python-http'));
    expect(remote.connections).toBe(1);
    expectSameRewards(
      'demo/sql over http',
      sql.specs,
      remote.episodes.slice(0, 10),
      await localRewards('demo/sql', sql.specs),
    );
    expectSameRewards(
      'demo/bash over http',
      bash.specs,
      remote.episodes.slice(10),
      await localRewards('demo/bash', bash.specs),
    );
  }, 300_000);
});

describe('the Python client against the real server', () => {
  it('passes its unittest suite (WebSocket framing, limits, close, correlation, sessions, CLI)', async ({
    needs,
  }) => {
    needs(missing);
    const result = await python(
      ['-m', 'unittest', 'discover', '-v', '-s', join(CLIENT_DIR, 'tests'), '-p', 'test_*.py'],
      { INTERCODE_TEST_URL: url, INTERCODE_TEST_TOKEN: TOKEN },
    );
    const ran = /Ran (\d+) tests?/.exec(result.stderr);
    expect(result.stderr).toMatch(/\nOK\n?$/);
    expect(result.stderr).not.toContain('skipped');
    expect(result.status).toBe(0);
    expect(Number(ran?.[1])).toBeGreaterThanOrEqual(28);
    console.info(`python client unittest: ${ran?.[1]} tests passed`);
  }, 300_000);

  it('builds and installs offline into a venv, with its console script', async ({ needs, tempDir }) => {
    needs(missing);
    const dir = tempDir('python-install');
    const venvCheck = await run(PYTHON, ['-c', 'import ensurepip, setuptools, wheel'], {});
    needs(
      venvCheck.status === 0
        ? null
        : `Debian's python3-venv, python3-setuptools and python3-wheel are needed to build the client: ${venvCheck.stderr.trim()}`,
    );
    // The build writes build/ and *.egg-info next to the sources: build a copy.
    const source = join(dir, 'source');
    cpSync(CLIENT_DIR, source, { recursive: true, filter: (path) => !path.includes('__pycache__') });
    const venv = join(dir, 'venv');
    expect((await run(PYTHON, ['-m', 'venv', '--system-site-packages', venv], {})).status).toBe(0);
    const bin = join(venv, 'bin');
    const install = await run(
      join(bin, 'python'),
      ['-m', 'pip', 'install', '--no-index', '--no-build-isolation', '--disable-pip-version-check', source],
      {},
    );
    expect(install.status).toBe(0);
    const imported = await run(
      join(bin, 'python'),
      [
        '-c',
        'import intercode_client, json; print(json.dumps([intercode_client.__file__, intercode_client.__version__]))',
      ],
      {},
      dir,
    );
    const [file, version] = JSON.parse(imported.stdout) as [string, string];
    expect(file.startsWith(venv)).toBe(true);
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version).toBe(pkg.version);
    const listed = await run(
      join(bin, 'intercode-client'),
      ['--url', url, '--token', TOKEN, 'tasks', 'demo/sql', '--limit', '1'],
      {},
      dir,
    );
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(/0-1 of \d+ tasks of demo\/sql/);
  }, 300_000);

  it('the pyproject version is the project version', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    const pyproject = readFileSync(join(CLIENT_DIR, 'pyproject.toml'), 'utf8');
    expect(/^version = "([^"]+)"$/m.exec(pyproject)?.[1]).toBe(pkg.version);
    const init = readFileSync(join(CLIENT_DIR, 'intercode_client', '__init__.py'), 'utf8');
    expect(/^__version__ = "([^"]+)"$/m.exec(init)?.[1]).toBe(pkg.version);
  });
});

describe('the Python client against `intercode serve` (the CLI)', () => {
  it('lists and plays through a server started from the command line, which stops cleanly on SIGTERM', async ({
    cli,
    needs,
  }) => {
    needs(noPython);
    const started = cli.start(['serve', '--host', '127.0.0.1', '--port', '0', '--max-sessions', '2'], {
      env: { INTERCODE_SERVER_TOKEN: TOKEN },
    });
    const served = await listeningUrl(started);
    const env = { INTERCODE_URL: served, INTERCODE_SERVER_TOKEN: TOKEN };
    const tasks = await python(
      ['-m', 'intercode_client', '--json', 'tasks', 'demo/sql', '--limit', '2'],
      env,
    );
    expect(tasks.stderr).toBe('');
    const page = JSON.parse(tasks.stdout) as { total: number; tasks: { index: number }[] };
    expect(page.tasks.map((task) => task.index)).toEqual([0, 1]);
    const plan = await planRun({ dataset: 'demo/sql' });
    const task = (await plan.loadDataset()).tasks[1]!;
    const gold = plan.definition.goldActions(task).join(' ');
    const played = await run(
      PYTHON,
      ['-m', 'intercode_client', '--transport', 'http', 'play', 'demo/sql', '--task', '1'],
      {
        ...env,
        PYTHONPATH: CLIENT_DIR,
        PYTHONDONTWRITEBYTECODE: '1',
      },
      PROJECT_ROOT,
      `${gold}\nsubmit\n`,
    );
    expect(played.stderr).toBe('');
    expect(played.status).toBe(0);
    expect(played.stdout).toContain(task.query);
    expect(played.stdout).toContain('episode terminated: reward 1\n');
    const wrong = await python(['-m', 'intercode_client', 'datasets'], {
      INTERCODE_URL: served,
      INTERCODE_SERVER_TOKEN: 'wrong',
    });
    expect(wrong.stderr).toMatch(/^intercode_client: [^\n]+\(UNAUTHORIZED\)\n$/);
    expect(wrong.status).toBe(1);
    started.child.kill('SIGTERM');
    const stopped = await started.done;
    expect(stopped.status).toBe(0);
  }, 120_000);
});
