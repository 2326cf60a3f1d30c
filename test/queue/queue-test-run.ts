import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CliRunner, StartedCli } from '../support/cli-runner.js';

/** The records of a run directory's episodes.jsonl (complete lines only: the run may be writing). */
export function episodesOf(
  outDir: string,
): Array<{ taskId: string; sample?: number; success: boolean; error?: string; query: string }> {
  const path = join(outDir, 'episodes.jsonl');
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** Lines of episodes.jsonl now. */
export function lineCount(outDir: string): number {
  return episodesOf(outDir).length;
}

/**
 * Asserts the exactly-once contract: every (task, sample) of `tasks` × `samples` once, no other,
 * none failed; returns the success rate.
 */
export function expectExactlyOnce(outDir: string, taskIds: readonly string[], samples: number): number {
  const records = episodesOf(outDir);
  const keys = records.map((record) => `${record.taskId}#${record.sample ?? 0}`);
  const expected = taskIds.flatMap((id) => Array.from({ length: samples }, (_, sample) => `${id}#${sample}`));
  expect(new Set(keys).size).toBe(keys.length); // 0 duplicates
  expect([...keys].sort()).toEqual([...expected].sort()); // 0 lost
  expect(records.filter((record) => record.error !== undefined)).toEqual([]);
  return records.filter((record) => record.success).length / records.length;
}

/** Starts `count` workers on `url`; a killed worker's episodes come back after `lockSeconds`. */
export function startWorkers(cli: CliRunner, url: string, count: number, lockSeconds = 3): StartedCli[] {
  return Array.from({ length: count }, () =>
    cli.start([
      'worker',
      '--redis',
      url,
      '--concurrency',
      '2',
      '--lock-duration',
      String(lockSeconds),
      '--grace',
      '5',
    ]),
  );
}

/** Sends SIGTERM to each still-running worker and waits for them to end. */
export async function stopWorkers(workers: readonly StartedCli[]): Promise<void> {
  for (const { child } of workers)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.all(workers.map(({ done }) => done));
}
