import { describe, expect } from 'vitest';
import { DEMO_BASH_TASKS } from '../../../src/datasets/demo/demo-bash-tasks.js';
import { bwrapResidue } from '../../sandbox/bwrap-residue.js';
import { WsTestClient } from '../../server/ws/ws-client.js';
import type { StartedCli } from '../../support/cli-runner.js';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { ownerOf } from '../../support/owner-of.js';

// `intercode serve` as a user runs it (the compiled CLI): the listening line, a real episode, and a
// graceful SIGTERM that closes sessions and reaps every sandbox.

const noBwrap = await bwrapMissing();

/** The first stdout line of a started server. */
function firstLine(started: StartedCli): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    started.child.stdout!.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    started.done.then((result) => reject(new Error(`serve exited ${result.status}: ${result.stderr}`)));
  });
}

describe('intercode serve', () => {
  it('serves demo/bash, then on SIGTERM closes sessions with 1001, reaps sandboxes and exits 0', async ({
    cli,
    needs,
  }) => {
    needs(noBwrap);
    const started = cli.start([
      'serve',
      '--port',
      '0',
      '--json',
      '--dataset',
      'demo/bash',
      '--max-sessions',
      '3',
    ]);
    const listening = JSON.parse(await firstLine(started)) as {
      url: string;
      ws_url: string;
      max_sessions: number;
      port: number;
    };
    expect(listening).toMatchObject({ max_sessions: 3, url: `http://127.0.0.1:${listening.port}` });
    const owner = ownerOf(started.child.pid!);
    const client = await WsTestClient.connect(listening.ws_url);
    const task = DEMO_BASH_TASKS[1]!;
    await client.send({ type: 'reset', data: { index: 1 } });
    await client.send({ type: 'step', data: { code: task.gold } });
    expect((await client.send({ type: 'step', data: { code: 'submit' } })).data).toMatchObject({
      reward: 1,
      done: true,
    });
    const sessions = (await (await fetch(`${listening.url}/intercode/sessions`)).json()) as {
      sandboxes: number;
      active: number;
    };
    expect(sessions.active).toBe(1);
    expect(sessions.sandboxes).toBeGreaterThan(0);
    started.child.kill('SIGTERM');
    expect((await client.closed).code).toBe(1001);
    const result = await started.done;
    expect(result.status).toBe(0);
    expect(bwrapResidue(owner)).toEqual([]);
  });

  it('takes PORT, MAX_CONCURRENT_ENVS and INTERCODE_SERVER_TOKEN from the environment; a flag beats them', async ({
    cli,
  }) => {
    const started = cli.start(['serve', '--json', '--max-sessions', '2', '--host', '127.0.0.1'], {
      env: { PORT: '0', MAX_CONCURRENT_ENVS: '7', INTERCODE_SERVER_TOKEN: 'envtoken' },
    });
    const listening = JSON.parse(await firstLine(started)) as { url: string; max_sessions: number };
    expect(listening.max_sessions).toBe(2);
    expect((await fetch(`${listening.url}/intercode/ready`)).status).toBe(401);
    const ready = await fetch(`${listening.url}/intercode/ready`, {
      headers: { authorization: 'Bearer envtoken' },
    });
    expect(await ready.json()).toEqual({ ready: true, active: 0, max: 2 });
    started.child.kill('SIGINT');
    expect((await started.done).status).toBe(0);
  });

  it('refuses bad settings with one line before listening', ({ cli }) => {
    expectOneLineError(
      cli.run(['serve', '--host', '0.0.0.0', '--port', '0']),
      /--host 0\.0\.0\.0 .*give a token/,
    );
    expectOneLineError(cli.run(['serve', '--port', '70000']), /--port/);
    expectOneLineError(
      cli.run(['serve', '--port', '0', '--dataset', 'demo/bash', '--engine', 'mysql']),
      /--engine/,
    );
    expectOneLineError(
      cli.run(['serve', '--port', '0', '--dataset', 'nope/none']),
      /unknown dataset "nope\/none"/,
    );
    expectOneLineError(
      cli.run(['serve', '--port', '0'], { env: { MAX_CONCURRENT_ENVS: 'lots' } }),
      /MAX_CONCURRENT_ENVS/,
    );
    expectOneLineError(cli.run(['serve', '--observation-profile', 'fancy']), /observation-profile/);
  });
});
