import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CliResult, CliRunner, StartedCli } from '../support/cli-runner.js';

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

/**
 * The run's end, or, when it has not ended after `ms`, a failure that says what the run and its
 * workers printed (each killed first, so that their output is complete): a run that hangs leaves its
 * cause in the test's report instead of a bare time-out.
 */
export async function runEnd(
  run: StartedCli,
  workers: readonly StartedCli[],
  ms: number,
): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  const ended = await Promise.race([run.done, late]);
  clearTimeout(timer);
  if (ended) return ended;
  for (const { child } of [run, ...workers])
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  const [result, ...workerResults] = await Promise.all([run.done, ...workers.map(({ done }) => done)]);
  const tail = (text: string) => text.split('\n').slice(-30).join('\n');
  return expect.fail(
    [
      `the run had not ended after ${ms / 1000} s`,
      `run stderr:\n${tail(result?.stderr ?? '')}`,
      ...workerResults.map((worker, index) => `worker ${index} stderr:\n${tail(worker?.stderr ?? '')}`),
    ].join('\n'),
  );
}
