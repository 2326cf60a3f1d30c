import { afterEach, describe, expect } from 'vitest';
import { DEMO_SQL_TASKS } from '../../../src/datasets/demo/demo-sql-tasks.js';
import { SessionError } from '../../../src/server/session/session-error.js';
import type { SessionHost } from '../../../src/server/session/session-host.js';
import { it } from '../../support/fixtures.js';
import { makeHost } from './session-host-fixture.js';

// EnvSession on demo/sql with SQLite: real envs, real databases, no sandbox.

let host: SessionHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

function sqlHost(overrides: Parameters<typeof makeHost>[0] = {}): SessionHost {
  host = makeHost(overrides);
  return host;
}

async function failure(work: Promise<unknown>): Promise<SessionError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SessionError);
  return error as SessionError;
}

const first = DEMO_SQL_TASKS[0]!;

describe('EnvSession on demo/sql', () => {
  it('resets to task 0 by default, with every observation key and the reset info', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    const reply = await session.reset({});
    expect(reply).toEqual({
      observation: {
        output: expect.any(String),
        exit_code: null,
        timed_out: false,
        task_id: first.id,
        turn: 0,
        instruction: expect.stringContaining(first.query),
      },
      reward: null,
      done: false,
      terminated: false,
      truncated: false,
      info: { dataset: 'demo/sql', task_id: first.id, index: 0, episode_id: expect.any(String) },
    });
    expect(JSON.stringify(reply)).not.toContain(String(first.gold));
    await session.close();
  });

  it('chooses the task by task_id, else index, else seed mod the dataset size', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    const n = DEMO_SQL_TASKS.length;
    expect((await session.reset({ seed: n + 2 })).info.index).toBe(2);
    expect((await session.reset({ index: 3, seed: 1 })).info.index).toBe(3);
    const third = DEMO_SQL_TASKS[2]!;
    expect((await session.reset({ task_id: third.id, index: 4 })).info).toMatchObject({
      task_id: third.id,
      index: 2,
    });
    expect((await session.reset({ episode_id: 'ep-7' })).info.episode_id).toBe('ep-7');
    expect(session.state()).toEqual({
      episode_id: 'ep-7',
      step_count: 0,
      dataset: 'demo/sql',
      task_id: first.id,
      done: false,
      max_turns: 10,
    });
    await session.close();
  });

  it('lists unknown keys in info.ignored_keys instead of failing', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    const reply = await session.reset({ seed: 0, temperature: 3, env: '/tmp/evil.js' });
    expect(reply.info.ignored_keys).toEqual(['temperature', 'env']);
    await session.close();
  });

  it('refuses bad reset params with a validation error naming the field', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    const seed = await failure(session.reset({ seed: -1 }));
    expect(seed.code).toBe('VALIDATION_ERROR');
    expect(seed.issues?.[0]).toMatchObject({ loc: ['seed'], input: -1 });
    expect((await failure(session.reset({ max_turns: 'many' }))).issues?.[0]?.loc).toEqual(['max_turns']);
    expect((await failure(session.reset({ episode_id: 'x'.repeat(256) }))).issues?.[0]?.loc).toEqual([
      'episode_id',
    ]);
    const unknown = await failure(session.reset({ dataset: 'nope/none' }));
    expect(unknown.issues?.[0]).toMatchObject({
      loc: ['dataset'],
      msg: expect.stringContaining('unknown dataset "nope/none"'),
    });
    const dbUrl = await failure(session.reset({ db_url: 'mysql://root@localhost' }));
    expect(dbUrl.issues?.[0]?.loc).toEqual(['db_url']);
    const task = await failure(session.reset({ task_id: 'no-such-task' }));
    expect(task.issues?.[0]?.loc).toEqual(['task_id']);
    const index = await failure(session.reset({ index: 10_000 }));
    expect(index.issues?.[0]?.msg).toContain('out of range');
    await session.close();
  });

  it('refuses a setting that does not apply to the dataset with the run-setup message', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    const sandboxOnSql = await failure(session.reset({ backend: 'bwrap' }));
    expect(sandboxOnSql.code).toBe('VALIDATION_ERROR');
    expect(sandboxOnSql.message).toBe(
      '--backend: sql does not run in sandboxes (it applies to bash, python, ctf)',
    );
    const sqlOnBash = await failure(session.reset({ dataset: 'demo/bash', engine: 'sqlite' }));
    expect(sqlOnBash.message).toBe('--engine: it applies to the sql environment only, not bash');
    const folder = await failure(session.reset({ dataset: 'demo/bash', image: 'dir:/' }));
    expect(folder.issues?.[0]).toMatchObject({
      loc: ['image'],
      msg: expect.stringContaining('only its operator'),
    });
    const engine = await failure(session.reset({ engine: 'oracle' }));
    expect(engine.message).toContain('unknown engine "oracle"');
    await session.close();
  });

  it('plays a gold episode: reward 1 on submit, then EPISODE_DONE until the next reset', async ({
    cache,
  }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    await session.reset({ index: 0 });
    const query = await session.step({ code: String(first.gold) });
    expect(query).toMatchObject({ reward: 0, done: false, terminated: false, truncated: false });
    expect(query.observation).toMatchObject({ turn: 1, instruction: null, task_id: first.id });
    expect(query.info).toMatchObject({ admissible: true, duration_ms: expect.any(Number) });
    const submit = await session.step({ code: 'submit' });
    expect(submit).toMatchObject({ reward: 1, done: true, terminated: true, truncated: false });
    expect(submit.info.reward_parts).toBeDefined();
    expect(session.state()).toMatchObject({ step_count: 2, done: true });
    expect((await failure(session.step({ code: 'SELECT 1' }))).code).toBe('EPISODE_DONE');
    await session.reset({ index: 0 });
    expect((await session.step({ code: 'skip' })).reward).toBe(0);
    await session.close();
  });

  it('reports an inadmissible query as an observation, not an error', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    await session.reset({});
    const reply = await session.step({ code: 'SELEC nonsense' });
    expect(reply.info.admissible).toBe(false);
    expect(reply.observation).toMatchObject({ output: expect.stringMatching(/error/i) });
    await session.close();
  });

  it('truncates at max_turns (the reset beats the server default)', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    await session.reset({ max_turns: 2 });
    expect((await session.step({ code: 'SELECT 1' })).truncated).toBe(false);
    const last = await session.step({ code: 'SELECT 2' });
    expect(last).toMatchObject({ truncated: true, terminated: false, done: true });
    expect(session.state().max_turns).toBe(2);
    await session.close();
  });

  it('refuses a step before reset, a bad action, and any call after close', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    expect((await failure(session.step({ code: 'SELECT 1' }))).code).toBe('NOT_RESET');
    await session.reset({});
    const missing = await failure(session.step({}));
    expect(missing.issues).toEqual([{ type: 'missing', loc: ['code'], msg: 'field required', input: {} }]);
    const wrongType = await failure(session.step({ code: 5 }));
    expect(wrongType.issues?.[0]).toMatchObject({ loc: ['code'], input: 5 });
    const extra = await failure(session.step({ code: 'SELECT 1', tool: 'x' }));
    expect(extra.issues?.[0]).toMatchObject({ type: 'extra_forbidden', loc: ['tool'] });
    await session.close();
    await session.close();
    expect((await failure(session.reset({}))).code).toBe('SESSION_NOT_FOUND');
  });

  it('answers SESSION_BUSY to a request while another runs on the same session', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost().createSession();
    const running = session.reset({});
    expect((await failure(session.reset({}))).code).toBe('SESSION_BUSY');
    await running;
    await session.close();
  });

  it('sends the coding profile observation when the server is set to it', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const session = sqlHost({
      defaults: { dataset: 'demo/sql', maxTurns: 10, observationProfile: 'coding' },
    }).createSession();
    const reset = await session.reset({});
    expect(Object.keys(reset.observation)).toEqual(['stdout', 'stderr', 'exit_code']);
    expect(reset.observation).toMatchObject({ stderr: '', exit_code: 0 });
    await session.close();
  });

  it('shares one opened run between sessions of one configuration, and opens another for a new one', async ({
    cache,
  }) => {
    expect(cache).toBeTruthy();
    const h = sqlHost();
    const [a, b] = [h.createSession(), h.createSession()];
    await Promise.all([a.reset({}), b.reset({ seed: 3 })]);
    expect(h.pool.size).toBe(1);
    await a.reset({ handicap: true });
    expect(h.pool.size).toBe(2);
    expect(a.task()).toMatchObject({ dataset: 'demo/sql', taskId: first.id });
    await Promise.all([a.close(), b.close()]);
  });

  it('closes a run no session uses after the keep time, but never the pinned one', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const h = sqlHost({ unusedRunKeepMs: 50 });
    await h.pool.pin({ dataset: 'demo/sql' });
    const session = h.createSession();
    await session.reset({ handicap: true });
    expect(h.pool.size).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.pool.size).toBe(2);
    await session.reset({});
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.pool.size).toBe(1);
    expect((await session.step({ code: 'SELECT 1' })).info.admissible).toBe(true);
    await session.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.pool.size).toBe(1);
  });
});
