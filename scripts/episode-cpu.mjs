// Gold episodes of a planned run played by the library, with what they cost the whole machine: each
// env plays every task of the dataset once (sessions, file systems and pools warm), then `episodes`
// gold episodes at `concurrency` are measured: episodes per second, machine CPU per episode (busy
// time in /proc/stat, every process counted), this process's CPU per episode, processes created.
//   INTERCODE_DATA_MIRROR=… node scripts/episode-cpu.mjs [dataset=demo/bash] [episodes=300] [concurrency=2] [kept] [submitted]
// kept: the gold cache on (tasks played before); otherwise every gold runs (first plays).
// submitted: each episode ends with the gold actions' own submission (MBPP: `submit <name>`, as agents
// that submit end theirs) instead of a `score()` after them (what Try Again and the bench do).
// Run it from two builds in turn to compare them: the machine's speed drifts between minutes.
import { readFileSync } from 'node:fs';
import { playAtOnce } from '../dist/harness/bench/env-bench.js';
import { planRun } from '../dist/harness/run-plan.js';

const [dataset = 'demo/bash', episodes = '300', concurrency = '2', ...flags] = process.argv.slice(2);
const kept = flags.includes('kept') ? 'kept' : undefined;
const submitted = flags.includes('submitted');
const count = Number(episodes);
const stat = () => readFileSync('/proc/stat', 'utf8');
/** Busy centiseconds of the whole machine (user, nice, system, irq, softirq). */
const busy = () => {
  const [user, nice, system, , , irq, softirq] = stat()
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return user + nice + system + irq + softirq;
};
const processes = () => Number(/processes (\d+)/.exec(stat())[1]);

const plan = await planRun({ dataset });
const loaded = await plan.loadDataset();
const run = await plan.open(loaded, { goldCache: kept === 'kept' });
/** Like `playAtOnce`, without the `score()` after the gold actions; the wall time in milliseconds. */
async function playSubmitted(envs, tasks, total, goldActions) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    envs.map(async (env) => {
      while (next < total) {
        const task = tasks[next++ % tasks.length];
        await env.reset({ taskId: task.id });
        for (const action of goldActions(task)) await env.step(action);
      }
    }),
  );
  return performance.now() - started;
}

const envs = Array.from({ length: Number(concurrency) }, () => run.createEnv());
try {
  const play = submitted ? playSubmitted : playAtOnce;
  await play(envs, loaded.tasks, loaded.tasks.length, plan.definition.goldActions);
  const [busy0, processes0, own0] = [busy(), processes(), process.cpuUsage()];
  const wall = await play(envs, loaded.tasks, count, plan.definition.goldActions);
  const own = process.cpuUsage(own0);
  const perEpisode = (value) => (value / count).toFixed(2);
  process.stdout.write(
    `${dataset} concurrency ${concurrency}${kept === 'kept' ? ', gold kept' : ''}${submitted ? ', submitted' : ''}: ` +
      `${((count / wall) * 1000).toFixed(1)} episodes/s, machine CPU ${perEpisode((busy() - busy0) * 10)} ms/episode, ` +
      `this process ${perEpisode((own.user + own.system) / 1000)} ms/episode, ` +
      `${((processes() - processes0) / count).toFixed(1)} processes/episode\n`,
  );
} finally {
  await Promise.all(envs.map((env) => env.close()));
  await run.close();
}
process.exit(0);
