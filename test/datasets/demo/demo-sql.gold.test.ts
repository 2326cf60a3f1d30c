/**
 * `demo/sql` through the compiled CLI (`npm test` builds dist/ first): the gold agent solves every
 * task on SQLite, and on MariaDB and PostgreSQL servers that the run starts itself.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { DEMO_SQL_TASKS } from '../../../src/datasets/demo/demo-sql-tasks.js';
import type { CliRunner } from '../../support/cli-runner.js';
import { expectEverySolved } from '../../support/expect-every-solved.js';
import { it } from '../../support/fixtures.js';
import { jsonLines } from '../../support/json-lines.js';
import { sqlServerMissing } from '../../support/missing-components.js';

const KINDS = ['select', 'filter', 'aggregate', 'join', 'order', 'subquery', 'set'];

interface Episode {
  taskId: string;
  maxReward: number;
  success: boolean;
  goldCorrupt?: boolean;
  error?: string;
}

/** Runs the gold agent on every task with `engine` through the CLI and checks that all score 1. */
function goldRun(cli: CliRunner, out: string, engineId: string): void {
  const result = cli.run(['run', 'demo/sql', '--engine', engineId, '--out', out, '--json']);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const summary = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(summary).toMatchObject({
    dataset: 'demo/sql',
    env: 'sql',
    agent: 'gold',
    engine: engineId,
    n: DEMO_SQL_TASKS.length,
    solved: DEMO_SQL_TASKS.length,
    meanReward: 1,
    episodeErrors: 0,
  });
  expect(Object.keys(summary.byGroup as object).sort()).toEqual([...KINDS].sort());
  const episodes = jsonLines<Episode>(join(out, 'episodes.jsonl'));
  expect(episodes.map((episode) => episode.taskId).sort()).toEqual(
    DEMO_SQL_TASKS.map((task) => task.id).sort(),
  );
  expectEverySolved(episodes);
}

const missing = { mysql: await sqlServerMissing('mysql'), postgres: await sqlServerMissing('postgres') };

describe('demo/sql through the CLI: the gold agent solves every task', () => {
  it('on SQLite', ({ cli, tempDir }) => {
    goldRun(cli, join(tempDir('demo-sql-sqlite'), 'run'), 'sqlite');
  });

  for (const engineId of ['mysql', 'postgres'] as const) {
    it(`on ${engineId} (its own server)`, ({ cli, needs, tempDir }) => {
      needs(missing[engineId]);
      goldRun(cli, join(tempDir(`demo-sql-${engineId}`), 'run'), engineId);
    });
  }
});
