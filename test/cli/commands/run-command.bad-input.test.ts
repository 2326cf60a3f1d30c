import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { type CliOptions, expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// `intercode run` given bad input: one line on stderr, the exit code of the contract, and nothing
// left behind (no run directory, no runs/ folder, nothing in a fresh cache).
const noBwrap = await bwrapMissing();

describe('intercode run with bad input', () => {
  it('fails in one line, exit 1, before creating any run directory', ({ cli, needs, tempDir }) => {
    needs(noBwrap);
    const dir = tempDir('bad-input');
    const malformedJson = join(dir, 'malformed.json');
    writeFileSync(malformedJson, '[{"query": "a", "gold": "ls"},');
    const badJsonl = join(dir, 'bad.jsonl');
    writeFileSync(badJsonl, '{"query": "a", "gold": "ls"}\n{"query": }\n');
    const good = join(dir, 'good.json');
    writeFileSync(good, '[{"query": "a", "gold": "ls"}]');
    const emptyMirror = tempDir('empty-mirror');
    const freshCache = tempDir('fresh-cache');
    const cases: { args: string[]; error: RegExp; options?: Partial<CliOptions> }[] = [
      { args: ['nope/none'], error: /unknown dataset "nope\/none" \(known: .*demo\/bash/ },
      { args: ['demo/bash', '--tasks', '999'], error: /--tasks: task index 999 is out of range 0-29/ },
      { args: [join(dir, 'missing.json'), '--env', 'bash'], error: /missing\.json does not exist/ },
      { args: [malformedJson, '--env', 'bash'], error: /malformed\.json: malformed JSON at line 1/ },
      { args: [badJsonl, '--env', 'bash'], error: /bad\.jsonl: line 2 is not valid JSON/ },
      { args: [good], error: /good\.json needs an environment: pass --env/ },
      {
        args: ['nl2bash/fs1'],
        error: /mirror \S+ has no data\/nl2bash\/nl2bash_fs_1\.json/,
        options: { env: { INTERCODE_DATA_MIRROR: emptyMirror }, cache: freshCache },
      },
      { args: ['demo/bash', '--agent', 'replay'], error: /--agent replay needs --trajectories FILE/ },
      {
        args: ['demo/bash', '--agent', 'replay', '--trajectories', join(dir, 'none.jsonl')],
        error: /trajectory file \S+none\.jsonl: cannot read it/,
      },
      {
        args: ['demo/bash', '--concurrency', '0'],
        error: /--concurrency must be a positive integer, got "0"/,
      },
      {
        args: ['demo/bash', '--agent', 'robot'],
        error:
          /option '--agent <agent>' argument 'robot' is invalid\. Allowed choices are gold, replay, human, llm/,
      },
      {
        args: ['demo/bash', '--trajectories', 'x.json'],
        error: /--trajectories applies to --agent replay only/,
      },
      {
        args: ['demo/bash', '--backend', 'docker', '--image', 'host'],
        error: /image "host" is not available on the docker backend/,
      },
      { args: ['demo/bash', '--image', 'debian:nosuch'], error: /unknown image profile "nosuch"/ },
      {
        args: ['demo/ctf', '--compat', 'upstream'],
        error: /--compat: the ctf environment has no upstream mode/,
      },
      { args: ['demo/bash', '--bogus'], error: /unknown option '--bogus' \(run with --help for usage\)/ },
    ];
    for (const { args, error, options } of cases) {
      const cwd = tempDir('cwd');
      const out = join(dir, 'out');
      const withOut = cli.run(['run', ...args, '--out', out], { ...options, cwd });
      expect({ args, stderr: withOut.stderr }).toMatchObject({ args, stderr: expect.stringMatching(error) });
      expectOneLineError(withOut);
      expect(withOut.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
      // Without --out, nothing appears under the working directory either (no runs/ folder).
      const withoutOut = cli.run(['run', ...args], { ...options, cwd });
      expectOneLineError(withoutOut, error);
      expect(readdirSync(cwd)).toEqual([]);
    }
    expect(readdirSync(freshCache).filter((name) => name !== 'datasets')).toEqual([]);
    // About twenty CLI runs, one after another: on a loaded machine they take longer than the default.
  }, 240_000);

  it('exits 2 naming what to install when the sandbox tools are missing, before creating the run directory', ({
    cli,
    tempDir,
  }) => {
    const out = join(tempDir('no-tools'), 'out');
    const result = cli.run(['run', 'demo/bash', '--out', out], {
      env: { PATH: tempDir('empty-path') },
    });
    expect(result.stderr).toMatch(
      /^intercode: the bwrap sandbox cannot run here: bubblewrap: bwrap not found \(fix: apt-get install -y bubblewrap\)[^\n]*\n$/,
    );
    expect(result.status).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});
