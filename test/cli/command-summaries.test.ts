/**
 * The top-level help and `--version` load no subcommand: the help shows each one from its summary
 * (`command-summaries.ts`), which must say what the loaded command says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect } from 'vitest';
import { COMMAND_SUMMARIES, summaryName } from '../../src/cli/command-summaries.js';
import { createProgram, createSummaryProgram } from '../../src/cli/main.js';
import { it } from '../support/fixtures.js';

const RECORDER = pathToFileURL(new URL('./commands/record-modules.mjs', import.meta.url).pathname).href;

describe('the subcommands’ summaries', () => {
  it('give the top-level help the loaded commands give, in their order', async () => {
    const loaded = await createProgram();
    const summary = createSummaryProgram();
    expect(summary.helpInformation()).toBe(loaded.helpInformation());
    expect(COMMAND_SUMMARIES.map(summaryName)).toEqual(loaded.commands.map((command) => command.name()));
  });

  for (const flag of ['--version', '--help', 'help', 'unknown-command']) {
    it(`\`intercode ${flag}\` loads no subcommand module`, ({ cli, tempDir }) => {
      const list = join(tempDir('summary-modules'), 'modules.txt');
      const result = cli.run([flag], { env: { NODE_OPTIONS: `--import=${RECORDER}`, RECORD_MODULES: list } });
      expect(result.status).toBe(flag === 'unknown-command' ? 1 : 0);
      const modules = readFileSync(list, 'utf8').trim().split('\n');
      expect(modules.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
      expect(modules.filter((url) => url.includes('/dist/cli/commands/'))).toEqual([]);
    });
  }

  it('`intercode help run` loads run and shows its options', ({ cli }) => {
    const result = cli.run(['help', 'run']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: intercode run [options] <dataset>');
    expect(result.stdout).toContain('--concurrency <n>');
  });
});
