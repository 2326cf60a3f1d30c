import type { Command } from 'commander';
import { checkRedis } from '../../queue/check-redis.js';
import { redisOptionsOf } from '../../queue/redis-url.js';
import { cleanDockerSandboxes } from '../../sandbox/docker/docker-backend.js';
import { createProviderRegistry } from '../../sandbox/provider-registry.js';
import { type CheckGroup, environmentChecks, nodeCheck } from '../doctor/machine-checks.js';
import { EXIT } from '../exit-codes.js';

function render(groups: readonly CheckGroup[], ready: boolean): string {
  const lines: string[] = [];
  for (const group of groups) {
    lines.push(group.title);
    const width = Math.max(...group.items.map((item) => item.name.length));
    for (const item of group.items) {
      const mark = item.ok ? 'ok ' : item.optional ? 'warn' : 'MISSING';
      lines.push(`  ${mark.padEnd(7)} ${item.name.padEnd(width)}  ${item.detail}`);
      if (!item.ok && item.fix) lines.push(`  ${''.padEnd(7)} ${''.padEnd(width)}  fix: ${item.fix}`);
    }
    lines.push('');
  }
  lines.push(
    ready
      ? 'The default environment (bash on bwrap, host image) can run here.'
      : 'The default environment cannot run here: install what is marked MISSING above.',
  );
  return `${lines.join('\n')}\n`;
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('what this machine can run, and the command that fixes each missing piece')
    .option('--json', 'print the checks as JSON')
    .option(
      '--clean',
      'first remove sandboxes that killed runs left behind (docker containers of dead owners)',
    )
    .option('--redis <url>', 'also check the Redis of distributed runs (connection, version, memory policy)')
    .action(async (flags: { json?: boolean; clean?: boolean; redis?: string }) => {
      if (flags.redis !== undefined) redisOptionsOf(flags.redis);
      if (flags.clean) {
        const cleaned = await cleanDockerSandboxes().then(
          (report) => `removed ${report.containers} docker container(s) of dead owners`,
          (error: Error) => `docker: nothing cleaned (${error.message.split('\n')[0]})`,
        );
        process.stderr.write(`${cleaned}\n`);
      }
      const bwrap = await createProviderRegistry().get('bwrap')().check();
      const docker = await createProviderRegistry().get('docker')().check();
      const groups: CheckGroup[] = [
        { title: 'Runtime', required: true, items: [nodeCheck()] },
        { title: 'Sandbox backend: bwrap (default)', required: true, items: bwrap.items },
        { title: 'Sandbox backend: docker (--backend docker)', required: false, items: docker.items },
        { title: 'Environments', required: false, items: await environmentChecks() },
      ];
      if (flags.redis !== undefined) {
        groups.push({ title: 'Queue (--redis)', required: true, items: await checkRedis(flags.redis) });
      }
      const ready = groups.every(
        (group) => !group.required || group.items.every((item) => item.ok || item.optional),
      );
      if (flags.json) process.stdout.write(`${JSON.stringify({ ready, groups }, null, 2)}\n`);
      else process.stdout.write(render(groups, ready));
      process.exitCode = ready ? EXIT.ok : EXIT.unavailable;
    });
}
