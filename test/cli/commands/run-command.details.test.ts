import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { EpisodeRecord, TurnRecordData } from '../../../src/core/run-files/episode-record-schema.js';
import { readEpisodeRecords } from '../../../src/core/run-files/read-episode-records.js';
import type { CliRunner } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';

// What the scorer saw (`details` on a scored turn of episodes.jsonl), recorded by real gold runs of
// the four demo sets through the compiled CLI, and read back by --resume, report and export.

const SLOW = { timeoutMs: 300_000 };

function goldRun(cli: CliRunner, out: string, args: readonly string[]): EpisodeRecord[] {
  const result = cli.run(['run', ...args, '--agent', 'gold', '--out', out, '--json'], SLOW);
  if (result.status !== 0) throw new Error(`intercode run failed: ${result.stderr}`);
  return readEpisodeRecords(join(out, 'episodes.jsonl'));
}

/** The last turn of an episode (the scored one in a gold run) and its details. */
function scored(episode: EpisodeRecord): { turn: TurnRecordData; details: Record<string, unknown> } {
  const turn = episode.turns.at(-1)!;
  expect(turn.details, `${episode.taskId} has details`).toBeDefined();
  return { turn, details: turn.details as Record<string, unknown> };
}

/** The observation of the episode's last code action. */
function lastOutput(episode: EpisodeRecord): string {
  return episode.turns.filter((turn) => !turn.action.startsWith('submit')).at(-1)!.observation;
}

describe('intercode run records what the scorer saw', () => {
  it('demo/bash: the gold output is the gold action’s observation; both sides’ file changes and the reward’s evidence', ({
    cli,
    tempDir,
  }) => {
    const episodes = goldRun(cli, join(tempDir('details-bash'), 'run'), ['demo/bash']);
    expect(episodes.length).toBeGreaterThan(10);
    for (const episode of episodes) {
      const { turn, details } = scored(episode);
      expect(turn.parts).toBeDefined();
      expect(details.goldOutput).toBe(lastOutput(episode));
      expect(details).toMatchObject({
        similarity: expect.any(Number),
        similarityFromEquality: expect.any(Boolean),
        diffMiss: [],
        diffExtra: [],
        agentChanges: expect.any(Array),
        evalChanges: expect.any(Array),
      });
      expect(details.agentChanges).toEqual(details.evalChanges);
    }
    // A task whose gold writes files: the changes of both sides, with their status, and the content check.
    const writing = episodes.filter(
      (episode) => (scored(episode).details.evalChanges as unknown[]).length > 0,
    );
    expect(writing.length).toBeGreaterThan(0);
    const { details } = scored(writing[0]!);
    expect((details.evalChanges as { status: string; path: string }[])[0]).toEqual({
      status: expect.any(String),
      path: expect.any(String),
    });
    expect(details.diffSame).toMatchObject({ correct: expect.any(Number), total: expect.any(Number) });
  });

  it('demo/sql: rows, intersection, union and rule; the gold output exactly as the gold query’s observation', ({
    cli,
    tempDir,
  }) => {
    const out = join(tempDir('details-sql'), 'run');
    const first = goldRun(cli, out, ['demo/sql', '--tasks', '0-4']);
    // --resume reads the lines with details, keeps them, and plays the rest.
    const all = goldRun(cli, out, ['demo/sql', '--resume']);
    expect(all.slice(0, 5)).toEqual(first);
    expect(all.length).toBeGreaterThan(20);
    for (const episode of all) {
      const { turn, details } = scored(episode);
      expect(details.goldOutput).toBe(lastOutput(episode));
      expect(details).toMatchObject({
        rule: expect.stringMatching(/^(tau-scaled|tau-undefined|both-empty)$/),
        agentRows: details.goldRows,
        intersection: details.goldRows,
        union: details.goldRows,
      });
      expect(turn.parts?.iou).toBe(1);
    }
    // `intercode report` and `intercode export` read the run.
    const report = cli.run(['report', out], SLOW);
    expect(report.stderr).toBe('');
    expect(report.status).toBe(0);
    const exported = cli.run(['export', out, '--format', 'atif'], SLOW);
    expect(exported.status).toBe(0);
    const trajectories = exported.stdout
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { steps: { extra?: { score_details?: { goldOutput?: string } } }[] },
      );
    expect(trajectories).toHaveLength(all.length);
    expect(trajectories[0]!.steps.at(-1)!.extra?.score_details?.goldOutput).toBe(lastOutput(all[0]!));
  });

  it('demo/python: each test with both sides’ outcomes, the counts, and the gold’s run of the tests', ({
    cli,
    tempDir,
  }) => {
    const episodes = goldRun(cli, join(tempDir('details-python'), 'run'), ['demo/python']);
    expect(episodes.length).toBeGreaterThan(10);
    for (const episode of episodes) {
      const { turn, details } = scored(episode);
      const tests = details.tests as { test: string; agent: unknown; gold: unknown; agrees: boolean }[];
      expect(tests.length).toBe(turn.parts?.tests);
      expect(details.testsAgreeing).toBe(tests.length);
      expect(details.testsPassed).toBe(tests.length);
      for (const test of tests) {
        expect(test.agrees).toBe(true);
        expect(test.agent).toEqual(test.gold);
      }
      expect(details.submittedFunction).toEqual(expect.any(String));
      const transcript = details.goldOutput as string;
      expect(transcript.split('\n').filter((line) => line.startsWith('>>> '))).toEqual(
        tests.map((test) => `>>> ${test.test.split('\n')[0]}`),
      );
    }
  });

  it('demo/ctf: the flag submitted, and no gold output (the record’s gold holds the flag)', ({
    cli,
    tempDir,
  }) => {
    const episodes = goldRun(cli, join(tempDir('details-ctf'), 'run'), ['demo/ctf']);
    expect(episodes.length).toBeGreaterThan(3);
    for (const episode of episodes) {
      const { turn, details } = scored(episode);
      expect(turn.action).toBe(`submit ${episode.gold}`);
      expect(details).toEqual({ submitted: episode.gold });
      // Code actions of a submit-scored env are not scored: no details.
      expect(episode.turns[0]).not.toHaveProperty('details');
    }
  });

  it('reads a run written before details existed (no details on any turn) with report and --resume', ({
    cli,
    tempDir,
  }) => {
    const out = join(tempDir('details-old'), 'run');
    const first = goldRun(cli, out, ['demo/sql', '--tasks', '0-2']);
    const path = join(out, 'episodes.jsonl');
    const older = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const {
          schemaVersion: _version,
          turns,
          ...rest
        } = JSON.parse(line) as EpisodeRecord & {
          schemaVersion: number;
        };
        return JSON.stringify({ ...rest, turns: turns.map(({ details: _details, ...turn }) => turn) });
      });
    writeFileSync(path, `${older.join('\n')}\n`);
    expect(cli.run(['report', out], SLOW).status).toBe(0);
    const all = goldRun(cli, out, ['demo/sql', '--tasks', '0-4', '--resume']);
    expect(all).toHaveLength(5);
    expect(all.slice(0, 3).map((episode) => episode.taskId)).toEqual(first.map((episode) => episode.taskId));
    expect(
      all.slice(0, 3).every((episode) => episode.turns.every((turn) => turn.details === undefined)),
    ).toBe(true);
    expect(all.slice(3).every((episode) => episode.turns.at(-1)!.details !== undefined)).toBe(true);
  });
});
