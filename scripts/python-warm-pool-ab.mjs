// Python env, warm pool on against off, alternated episode by episode in one process (so that both see
// the same machine load): reset, the gold step and the submission, p50/p10/p90 in ms.
//   INTERCODE_DATA_MIRROR=… node scripts/python-warm-pool-ab.mjs [episodes=20] [think-ms=0] [--deterministic]
// think-ms: a pause before each action and after the episode, as an agent that thinks.
import { resolveDataset } from '../dist/datasets/resolve-dataset.js';
import { createEnvRegistry } from '../dist/envs/env-registry.js';
import { PythonEnv } from '../dist/envs/python/python-env.js';
import { BwrapProvider } from '../dist/sandbox/index.js';

const [episodes = 20, thinkMs = 0] = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith('--'))
  .map(Number);
const deterministic = process.argv.includes('--deterministic')
  ? { deterministic: { clockMs: Date.parse('2023-06-01T12:00:00Z') } }
  : {};
const provider = new BwrapProvider();
const dataset = await resolveDataset('mbpp/test');
const gold = createEnvRegistry().get('python').goldActions;
const modes = { on: true, off: false };
const envs = Object.fromEntries(
  Object.entries(modes).map(([mode, warm]) => [
    mode,
    new PythonEnv({ dataset, provider, warm, ...deterministic }),
  ]),
);
const times = Object.fromEntries(
  Object.keys(modes).map((mode) => [mode, { reset: [], step: [], submit: [] }]),
);
const pause = () => new Promise((resolve) => setTimeout(resolve, thinkMs));
const timed = async (action) => {
  const started = performance.now();
  const value = await action();
  return [value, performance.now() - started];
};
// Two episodes each first, not counted: the sandboxes and interpreters start.
for (let i = 0; i < episodes + 2; i += 1) {
  for (const mode of Object.keys(modes)) {
    const env = envs[mode];
    const task = dataset.tasks[i + 1];
    const [code, submit] = gold(task);
    const [, reset] = await timed(() => env.reset({ taskId: task.id }));
    await pause();
    const [, step] = await timed(() => env.step(code));
    await pause();
    const [result, scored] = await timed(() => env.step(submit));
    await pause();
    if (result.reward !== 1) process.stdout.write(`${mode}: ${task.id} scored ${result.reward}\n`);
    if (i >= 2) {
      times[mode].reset.push(reset);
      times[mode].step.push(step);
      times[mode].submit.push(scored);
    }
  }
}
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.round(q * (sorted.length - 1))].toFixed(1);
};
for (const [mode, phases] of Object.entries(times)) {
  for (const [phase, values] of Object.entries(phases)) {
    process.stdout.write(
      `pool ${mode} ${phase}: p50 ${quantile(values, 0.5)} p10 ${quantile(values, 0.1)} p90 ${quantile(values, 0.9)}\n`,
    );
  }
}
await Promise.all(Object.values(envs).map((env) => env.close()));
await provider.close();
