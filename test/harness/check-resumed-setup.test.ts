import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { checkResumedSetup, type ResumedSetup } from '../../src/harness/check-resumed-setup.js';
import { summarize } from '../../src/harness/run-summary.js';
import { it } from '../support/fixtures.js';

/** The error of resuming a run whose summary has `was` with the setting `would`, or undefined. */
function refusal(dir: string, was: Record<string, unknown>, would: ResumedSetup): string | undefined {
  const summary = summarize({ dataset: 'nl2bash/fs1', env: 'bash', agent: 'gold', ...was }, [], 1, false);
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
  try {
    checkResumedSetup(dir, would);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('checkResumedSetup', () => {
  it('refuses each setting the summary names otherwise, naming the option that continues the run', ({
    tempDir,
  }) => {
    const dir = tempDir('resumed');
    const same = { agent: 'gold', backend: 'bwrap', image: 'debian:bash', deterministic: true, maxTurns: 10 };
    expect(refusal(dir, same, same)).toBeUndefined();
    const cases: [Record<string, unknown>, ResumedSetup, string][] = [
      [{ agent: 'llm' }, { agent: 'gold' }, 'agent llm, this run would use gold: pass --agent llm'],
      [
        { model: 'openai:gpt-4' },
        { model: 'openai:gpt-4o' },
        'model openai:gpt-4, this run would use openai:gpt-4o: pass --model openai:gpt-4',
      ],
      [
        { strategy: 'react' },
        { strategy: 'try-again' },
        'strategy react, this run would use try-again: pass --strategy react',
      ],
      [
        { backend: 'docker' },
        { backend: 'bwrap' },
        'backend docker, this run would use bwrap: pass --backend docker',
      ],
      [
        { image: 'host' },
        { image: 'debian:bash' },
        'image host, this run would use debian:bash: pass --image host',
      ],
      [
        { engine: 'mysql' },
        { engine: 'sqlite' },
        'engine mysql, this run would use sqlite: pass --engine mysql',
      ],
      [{ compat: 'upstream' }, {}, 'compat upstream, this run would use fixed: pass --compat upstream'],
      [{}, { compat: 'upstream' }, 'compat fixed, this run would use upstream: pass --compat fixed'],
      [
        { deterministic: false },
        { deterministic: true },
        'deterministic false, this run would use true: pass --no-deterministic',
      ],
      [
        { deterministic: true },
        { deterministic: false },
        'deterministic true, this run would use false: pass --deterministic',
      ],
      [{ handicap: true }, {}, 'handicap true, this run would use false: pass --handicap'],
      [{}, { handicap: true }, 'handicap false, this run would use true: leave out --handicap'],
      [{ maxTurns: 10 }, { maxTurns: 3 }, 'max turns 10, this run would use 3: pass --max-turns 10'],
    ];
    for (const [was, would, message] of cases) {
      expect(refusal(dir, was, would), JSON.stringify([was, would])).toBe(
        `--resume: ${dir} was played with ${message} to continue it`,
      );
    }
  });

  it('compares only what both name, and checks nothing without a summary', ({ tempDir }) => {
    const dir = tempDir('resumed');
    checkResumedSetup(dir, { image: 'host' }); // a run killed before its summary: nothing to compare
    // A summary of before 2026-12-04 names no image; a SQL run has none; `fixed` and no handicap are the defaults.
    expect(refusal(dir, { backend: 'bwrap' }, { image: 'debian:bash', backend: 'bwrap' })).toBeUndefined();
    expect(refusal(dir, { image: 'host' }, { image: undefined })).toBeUndefined();
    expect(refusal(dir, { compat: 'fixed', handicap: false }, {})).toBeUndefined();
    expect(refusal(dir, {}, { compat: 'fixed', handicap: false, model: undefined })).toBeUndefined();
  });
});
