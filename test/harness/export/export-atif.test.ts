import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { atifTrajectorySchema } from '../../../src/harness/export/atif-schema.js';
import { exportAtif, readRunPrefixes } from '../../../src/harness/export/export-atif.js';
import { readRunDirectory } from '../../../src/harness/run-files/read-run-directory.js';
import { cleanup, tempDir } from '../../datasets/mirror-fixture.js';
import { writeRun } from '../report-fixtures.js';
import { PREFIXES, toolsEpisode, tryAgainEpisode } from './atif-fixtures.js';

const made: string[] = [];
afterAll(() => cleanup(made));

const description = { dataset: 'nl2bash', env: 'bash', agent: 'llm', model: 'openai:gpt-4', maxTurns: 10 };
const parse = (line: string) => atifTrajectorySchema.parse(JSON.parse(line));

describe('exportAtif', () => {
  it('names the run, and offers a tools run its execute and submit tools as function definitions', () => {
    const dir = writeRun(
      join(tempDir('export-atif', made), 'tools-run'),
      [toolsEpisode()],
      { ...description, strategy: 'tools' },
      PREFIXES,
    );
    const [line] = exportAtif(readRunDirectory(dir), '1.2.3');
    const trajectory = parse(line!);
    expect(trajectory).toMatchObject({
      session_id: 'tools-run',
      agent: { version: '1.2.3', extra: { strategy: 'tools' } },
    });
    expect(trajectory.agent.tool_definitions).toEqual([
      {
        type: 'function',
        function: expect.objectContaining({
          name: 'execute',
          parameters: expect.objectContaining({ required: ['code'] }),
        }),
      },
      { type: 'function', function: expect.objectContaining({ name: 'submit' }) },
    ]);
    const other = writeRun(
      join(tempDir('export-atif', made), 'ta'),
      [tryAgainEpisode()],
      { ...description, strategy: 'try-again' },
      PREFIXES,
    );
    expect(parse(exportAtif(readRunDirectory(other), '1')[0]!).agent).not.toHaveProperty('tool_definitions');
  });

  it('reads no prefixes without prefixes.json, and fails in one line for a broken one', () => {
    const dir = tempDir('export-atif', made);
    expect(readRunPrefixes(dir)).toEqual({});
    writeFileSync(join(dir, 'prefixes.json'), '{"a": ');
    expect(() => readRunPrefixes(dir)).toThrow(`${join(dir, 'prefixes.json')} is not valid JSON`);
    writeFileSync(join(dir, 'prefixes.json'), JSON.stringify({ a: [{ role: 'narrator', content: 'x' }] }));
    expect(() => readRunPrefixes(dir)).toThrow(
      /prefixes\.json is not a map of prompt prefixes: a\.0\.role: /,
    );
  });
});
