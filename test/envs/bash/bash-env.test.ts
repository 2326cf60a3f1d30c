import { describe, expect } from 'vitest';
import type { Dataset } from '../../../src/core/task.js';
import { TimeLimit } from '../../../src/core/time-limit.js';
import { BashEnv } from '../../../src/envs/bash/bash-env.js';
import type { GitChange } from '../../../src/envs/bash/git-status-changes.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { useDemoBash } from './demo-bash-fixture.js';

// BashEnv on demo/bash in real bwrap sandboxes (skipped where bwrap cannot run). One cache dir for
// the file: the demo file system is built once, before the timed tests.
const noBwrap = await bwrapMissing();
const demo = useDemoBash({ warmUp: !noBwrap });
const { provider, at, gold, bashEnv } = demo;

const FULL = { file_diff: 0.33, file_changes: 0.33, answer_similarity: 0.33 };

describe('BashEnv rewards (demo/bash)', () => {
  it('scores the gold action of a read-only task 1.0 with all three parts, and submit returns that score', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    const { observation, info } = await env.reset({ index: at('count-python-files') });
    expect(observation.text).toBe(demo.dataset.tasks[at('count-python-files')]!.query);
    expect(info).toMatchObject({ taskId: 'count-python-files', index: 0, group: 'search' });
    const step = await env.step(gold('count-python-files'));
    expect(step).toMatchObject({
      reward: 0,
      terminated: false,
      truncated: false,
      info: { admissible: true },
    });
    expect(step.observation).toMatchObject({ text: '5\n', exitCode: 0 });
    const score = await env.score();
    expect(score.value).toBe(1);
    expect(score.parts).toEqual(FULL);
    expect(score.goldCorrupt).toBeUndefined();
    // score() does not end the episode; submit does, with the same reward.
    const submitted = await env.step('submit');
    expect(submitted).toMatchObject({ reward: 1, terminated: true, truncated: false });
    expect(submitted.info.score).toEqual(score);
    expect(submitted.observation.text).toBe('5\n');
  });

  it('scores the gold of a task that changes files 1.0', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: at('write-summary') });
    await env.step(gold('write-summary'));
    const score = await env.score();
    expect(score.value).toBe(1);
    expect(score.parts).toEqual(FULL);
    expect(score.details?.agentChanges).toEqual([{ path: 'demo/reports/', status: '??' }]);
  });

  it('compares file systems once background jobs are done (a gold ending in `&`)', async ({ needs }) => {
    needs(noBwrap);
    const task = demo.dataset.tasks[at('write-summary')]!;
    const late: Dataset = {
      ...demo.dataset,
      tasks: [{ ...task, index: 0, gold: '(sleep 0.3; echo late > /demo/late.txt) &' }],
    };
    const env = new BashEnv({ dataset: late, provider });
    demo.track(env);
    await env.reset({ index: 0 });
    await env.step('echo late > /demo/late.txt');
    const score = await env.score();
    expect(score.details?.agentChanges).toEqual([{ path: 'demo/late.txt', status: '??' }]);
    expect(score.parts).toMatchObject({ file_diff: 0.33, file_changes: 0.33 });
  });

  it('scores a wrong answer to a read-only task 0.67: only the output similarity is lost', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: at('count-python-files') });
    expect((await env.step('echo nothing useful here')).info.admissible).toBe(true);
    const score = await env.score();
    expect(score.parts).toEqual({ ...FULL, answer_similarity: 0 });
    expect(score.value).toBeCloseTo(0.67, 12);
    const submitted = await env.step({ type: 'submit' });
    expect(submitted.terminated).toBe(true);
    expect(submitted.reward).toBe(score.value);
  });

  it('gives less than full file-diff credit when the agent does nothing on a task that changes files', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: at('write-summary') });
    const score = await env.score();
    expect(score.parts?.file_diff).toBeLessThan(0.33);
    expect(score.parts?.file_diff).toBe(0.05);
    expect(score.value).toBeLessThan(1);
    expect(score.details?.agentChanges).toEqual([]);
    expect(score.details?.evalChanges).toEqual([{ path: 'demo/reports/', status: '??' }]);
  });

  it('ends the episode with reward 0 on skip', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: at('count-python-files') });
    await env.step(gold('count-python-files'));
    const skipped = await env.step('skip');
    expect(skipped).toMatchObject({
      reward: 0,
      terminated: true,
      truncated: false,
      info: { admissible: true },
    });
    expect((await env.step({ type: 'skip' })).reward).toBe(0);
  });
});

describe('BashEnv actions', () => {
  it('throws ENV_RESET_NEEDED on step or score before reset, and ENV_CLOSED after close', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    await expect(env.step('ls')).rejects.toMatchObject({ code: 'ENV_RESET_NEEDED' });
    await expect(env.score()).rejects.toMatchObject({ code: 'ENV_RESET_NEEDED' });
    await env.reset();
    await env.close();
    await expect(env.step('ls')).rejects.toMatchObject({ code: 'ENV_CLOSED' });
    await expect(env.reset()).rejects.toMatchObject({ code: 'ENV_CLOSED' });
  });

  it('takes string and object actions alike, and rejects a malformed object', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: at('config-port') });
    const asString = await env.step('echo "two  spaces"; false');
    const asObject = await env.step({ type: 'code', code: 'echo "two  spaces"; false' });
    for (const step of [asString, asObject]) {
      expect(step.observation).toMatchObject({ text: 'two  spaces\n', exitCode: 1 });
      // A non-zero exit code is an observation, not an exception.
      expect(step.info.admissible).toBe(false);
    }
    // The shell persists between actions: working directory and variables.
    await env.step('cd /demo/config && PORT_FILE=app.conf');
    const port = await env.step({ type: 'code', code: 'grep \'^port=\' "$PORT_FILE" | cut -d= -f2' });
    expect(port.observation.text).toBe('8080\n');
    expect((await env.score()).value).toBe(1);
    await expect(env.step({ type: 'run' } as never)).rejects.toMatchObject({ code: 'ENV_INVALID_ACTION' });
    await expect(env.step({ type: 'code' } as never)).rejects.toMatchObject({ code: 'ENV_INVALID_ACTION' });
    const submitted = await env.step({ type: 'submit', answer: 'ignored by bash' });
    expect(submitted).toMatchObject({ reward: 1, terminated: true });
  });

  it('stops an action at its time limit, keeps its partial output, and stays usable', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv({ actionTimeoutMs: 1500 });
    await env.reset({ index: at('count-python-files') });
    const started = performance.now();
    const slow = await env.step('echo started; sleep 30');
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(slow.observation.timedOut).toBe(true);
    expect(slow.info.admissible).toBe(false);
    expect(slow.observation.text).toMatch(/^started\n/);
    expect(slow.observation.text).toContain('timed out');
    expect(slow.terminated).toBe(false);
    const next = await env.step('echo still here');
    expect(next.observation.text).toBe('still here\n');
    expect(next.info.admissible).toBe(true);
    await env.step(gold('count-python-files'));
    expect((await env.score()).value).toBe(1);
  });
});

describe('BashEnv isolation', () => {
  it('runs the gold in a pristine evaluator: the agent never sees its changes, nor can it change its result', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    // The gold of write-summary creates /demo/reports; it must not appear in the agent's sandbox,
    // even after the evaluation has finished.
    await env.reset({ index: at('write-summary') });
    const before = await env.score();
    expect(before.details?.agentChanges).toEqual([]);
    const look = await env.step('ls /demo/reports');
    expect(look.observation.exitCode).not.toBe(0);

    // The agent changes what the gold of count-python-files reads, right after the reset (while the
    // gold may still be running) and again between scores: the gold's output and changes stay those
    // of a pristine file system.
    await env.reset({ index: at('count-python-files') });
    await env.step('touch /demo/src/extra.py && rm /demo/logs/app.log');
    const first = await env.score();
    await env.step('mkdir -p /demo/src/more && touch /demo/src/more/a.py /demo/src/more/b.py');
    await env.step('find /demo/src -type f -name "*.py" | wc -l');
    const second = await env.score();
    for (const score of [first, second]) {
      expect(score.details?.goldOutput).toBe('5\n');
      expect(score.details?.evalChanges).toEqual([]);
    }
    expect(second.details?.agentChanges).toEqual<GitChange[]>([
      { path: 'demo/logs/app.log', status: 'D' },
      { path: 'demo/src/extra.py', status: '??' },
      { path: 'demo/src/more/', status: '??' },
    ]);
    expect(second.parts).toEqual({ file_diff: 0, file_changes: 0.33, answer_similarity: 0 });
  });

  it('gives a task the same reward whether or not the agent ran junk elsewhere first', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv();
    const rewardOf = async (junk: string | undefined) => {
      await env.reset({ index: at('write-summary') });
      if (junk) expect((await env.step(junk)).info.admissible).toBe(true);
      await env.step(gold('write-summary'));
      return env.score();
    };
    const clean = await rewardOf(undefined);
    // Junk in folders upstream's .gitignore leaves out (/root, /home, /var, …), and a changed cwd.
    // (/tmp is not one of them: a file there counts, as it did upstream.)
    const junk = await rewardOf(
      'mkdir -p /root/junk /home/junk /var/junk && echo junk > /root/junk/a.txt && echo x > /var/junk/b && cd /home/junk',
    );
    expect(clean.value).toBe(1);
    expect(junk.value).toBe(clean.value);
    expect(junk.parts).toEqual(clean.parts);
    expect(junk.details?.goldOutput).toBe(clean.details?.goldOutput);
  });

  it('gives every episode a pristine sandbox and shell', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: at('count-python-files') });
    await env.step(
      'echo made > /demo/episode-one.txt && echo x >> /demo/notes/todo.txt && rm /demo/data/words.txt && export LEFT_OVER=1 && cd /demo/notes',
    );
    expect((await env.score()).details?.agentChanges).toHaveLength(3);
    await env.reset({ index: at('count-errors') });
    const look = await env.step(
      'test -e /demo/episode-one.txt; echo $? [$LEFT_OVER] $(pwd) $(tail -n 1 /demo/notes/todo.txt) $(wc -l < /demo/data/words.txt)',
    );
    expect(look.observation.text).toMatch(/^1 \[\] \/ call the harbour master \d+\n$/);
    expect((await env.score()).details?.agentChanges).toEqual([]);
    // The same after a reset to the same task.
    await env.step('touch /demo/again.txt');
    await env.reset({ index: at('count-errors') });
    expect((await env.step('ls /demo/again.txt')).info.admissible).toBe(false);
  });

  it('resets the evaluator too: a gold that cannot run twice scores 1.0 in consecutive episodes', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    // A second `mv` of the .jpeg files on the same file system would fail and print an error.
    for (let episode = 0; episode < 2; episode += 1) {
      await env.reset({ index: at('rename-jpeg') });
      await env.step(gold('rename-jpeg'));
      const score = await env.score();
      expect({ episode, value: score.value, goldOutput: score.details?.goldOutput }).toEqual({
        episode,
        value: 1,
        goldOutput: '',
      });
    }
  });
});

describe('BashEnv task selection', () => {
  it('resets to the first task without options, by id or index, and at random only with a seed', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    expect((await env.reset()).info.index).toBe(0);
    expect((await env.reset({ taskId: 'old-warnings' })).info.taskId).toBe('old-warnings');
    expect((await env.reset({ index: 29 })).info.index).toBe(29);
    const seeded: string[] = [];
    for (const seed of [1, 2, 3, 4, 5, 1, 2, 3, 4, 5]) seeded.push((await env.reset({ seed })).info.taskId);
    expect(seeded.slice(5)).toEqual(seeded.slice(0, 5));
    expect(new Set(seeded).size).toBeGreaterThan(1);
    const other = bashEnv();
    expect((await other.reset({ seed: 3 })).info.taskId).toBe(seeded[2]);
  });

  it('throws ENV_TASK_NOT_FOUND for an index out of range or an unknown id', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv();
    for (const index of [30, -1, 1.5]) {
      await expect(env.reset({ index })).rejects.toMatchObject({ code: 'ENV_TASK_NOT_FOUND' });
    }
    await expect(env.reset({ index: 30 })).rejects.toThrow('task index 30 is out of range 0-29');
    await expect(env.reset({ taskId: 'nope' })).rejects.toMatchObject({ code: 'ENV_TASK_NOT_FOUND' });
    // A failed reset leaves the env usable.
    expect((await env.reset({ index: 1 })).info.index).toBe(1);
  });
});

describe('BashEnv under TimeLimit', () => {
  it('truncates the episode after maxTurns steps and then needs a reset', async ({ needs }) => {
    needs(noBwrap);
    const env = new TimeLimit(bashEnv(), 2);
    await env.reset({ index: at('count-python-files') });
    const first = await env.step('echo one');
    expect(first).toMatchObject({ terminated: false, truncated: false });
    const second = await env.step('echo two');
    expect(second).toMatchObject({ terminated: false, truncated: true });
    expect(second.observation.text).toBe('two\n');
    await expect(env.step('echo three')).rejects.toMatchObject({ code: 'ENV_RESET_NEEDED' });
    // Reward is still available after truncation.
    expect((await env.score()).parts?.file_diff).toBe(0.33);
    await env.reset({ index: at('count-python-files') });
    expect(env.turns).toBe(0);
    const submitted = await env.step(gold('count-python-files'));
    expect(submitted.truncated).toBe(false);
    const done = await env.step('submit');
    expect(done).toMatchObject({ terminated: true, truncated: false, reward: 1 });
  });
});
