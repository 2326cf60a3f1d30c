/**
 * BashEnv in upstream compatibility mode on demo/bash, in real bwrap sandboxes (skipped where bwrap
 * cannot run): upstream's quoting, its emulated `cd`, its timeout message, and the gold's score.
 */
import { describe, expect } from 'vitest';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { useDemoBash } from './demo-bash-fixture.js';

const noBwrap = await bwrapMissing();
const { at, gold, bashEnv } = useDemoBash();

describe('BashEnv upstream compatibility mode', () => {
  it('reproduces upstream\'s quoting: `echo "a  b"` prints a, an unbalanced quote is a malformed command', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv({ compat: 'upstream' });
    await env.reset({ index: at('count-python-files') });
    const echoed = await env.step('echo "a  b"');
    expect(echoed.observation.text).toBe('a\n');
    expect(echoed.info.admissible).toBe(true);
    const malformed = await env.step(`echo "it's"`);
    expect(malformed.observation.text).toBe('Malformed command');
    expect(malformed.info.admissible).toBe(false);
    // Single-quoted parts survive.
    expect((await env.step("echo 'a  b'")).observation.text).toBe('a  b\n');
    // Each action runs in a fresh process: no shell state survives.
    await env.step('X=1');
    expect((await env.step('echo [$X]')).observation.text).toBe('[]\n');
  });

  it('emulates `cd` with a tracked working directory', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv({ compat: 'upstream' });
    await env.reset({ index: at('count-python-files') });
    expect((await env.step('cd /demo')).info.admissible).toBe(true);
    expect((await env.step('pwd')).observation.text).toBe('/demo\n');
    await env.step('cd notes');
    expect((await env.step('pwd')).observation.text).toBe('/demo/notes\n');
    await env.step('cd ../src/./lib');
    expect((await env.step('pwd')).observation.text).toBe('/demo/src/lib\n');
    // A failing cd keeps the directory.
    expect((await env.step('cd /no/such/dir')).info.admissible).toBe(false);
    expect((await env.step('pwd')).observation.text).toBe('/demo/src/lib\n');
    // Upstream's bare `cd` crashed; here it is a malformed command.
    expect((await env.step('cd')).observation.text).toBe('Malformed command');
    await env.step('cd ..');
    expect((await env.step('ls')).observation.text).toContain('lib\nmain.py\n');
    // A reset starts over at /.
    await env.reset({ index: at('count-python-files') });
    expect((await env.step('pwd')).observation.text).toBe('/\n');
  });

  it('reports a timed out action as upstream did', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv({ compat: 'upstream', actionTimeoutMs: 1500 });
    await env.reset({ index: at('count-python-files') });
    const slow = await env.step('sleep 30');
    expect(slow.observation).toMatchObject({ text: 'Command timed out', timedOut: true });
    expect(slow.info.admissible).toBe(false);
    expect((await env.step('echo ok')).observation.text).toBe('ok\n');
  });

  it('scores the gold 1.0 in compatibility mode too', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv({ compat: 'upstream' });
    for (const id of ['count-python-files', 'write-summary', 'backup-markdown']) {
      await env.reset({ index: at(id) });
      await env.step(gold(id));
      expect({ id, value: (await env.score()).value }).toEqual({ id, value: 1 });
    }
  });
});
