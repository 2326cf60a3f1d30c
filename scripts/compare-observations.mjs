#!/usr/bin/env node
// Compares the observations of two runs of the same tasks, episode by episode: the share of episodes
// whose every observation is byte-identical (how deterministic the environment is), and which differ.
// Usage: node scripts/compare-observations.mjs RUN_DIR_A RUN_DIR_B [--show N]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [a, b, ...rest] = process.argv.slice(2);
if (a === undefined || b === undefined) {
  process.stderr.write('usage: compare-observations.mjs RUN_DIR_A RUN_DIR_B [--show N]\n');
  process.exit(2);
}
const show = rest[0] === '--show' ? Number(rest[1] ?? 5) : 5;

/** Episodes of a run directory by task id: their observation texts, in order. */
function observations(directory) {
  const episodes = new Map();
  for (const line of readFileSync(join(directory, 'episodes.jsonl'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const episode = JSON.parse(line);
    const key = `${episode.dataset} ${episode.taskId}`;
    episodes.set(
      key,
      (episode.turns ?? []).map((turn) => turn.observation ?? ''),
    );
  }
  return episodes;
}

const left = observations(a);
const right = observations(b);
const common = [...left.keys()].filter((key) => right.has(key));
const differing = common.filter((key) => JSON.stringify(left.get(key)) !== JSON.stringify(right.get(key)));
const share = common.length === 0 ? 0 : (common.length - differing.length) / common.length;
process.stdout.write(
  `${common.length - differing.length}/${common.length} episodes with byte-identical observations (${(100 * share).toFixed(1)} %)\n`,
);
for (const key of differing.slice(0, show)) {
  const [x, y] = [left.get(key), right.get(key)];
  const turn = x.findIndex((text, index) => text !== y[index]);
  const at = turn < 0 ? Math.min(x.length, y.length) : turn;
  const clip = (text) => JSON.stringify((text ?? '<none>').slice(0, 160));
  process.stdout.write(`  ${key}, turn ${at + 1}:\n    ${clip(x[at])}\n    ${clip(y[at])}\n`);
}
if (differing.length > show) process.stdout.write(`  … and ${differing.length - show} more\n`);
