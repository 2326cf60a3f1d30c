#!/usr/bin/env node
// Compares two runs task by task: `node scripts/compare-episodes.mjs <a>/episodes.jsonl <b>/episodes.jsonl [--observations]`.
// Prints solved counts, how many tasks have the same reward, and every task whose reward differs
// (with its last observation on each side); with --observations, also tasks whose observations differ.
// Exit code 1 when a reward differs or a task is in one run only.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const showObservations = args.includes('--observations');
const [left, right] = args.filter((arg) => !arg.startsWith('--'));
if (!left || !right) {
  process.stderr.write(
    'usage: compare-episodes.mjs <a/episodes.jsonl> <b/episodes.jsonl> [--observations]\n',
  );
  process.exit(2);
}

function load(file) {
  const episodes = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const episode = JSON.parse(line);
    episodes.set(String(episode.taskId), episode);
  }
  return episodes;
}

const a = load(left);
const b = load(right);
const ids = [...new Set([...a.keys(), ...b.keys()])];
const solved = (runs) => [...runs.values()].filter((episode) => episode.reward === 1).length;
const observations = (episode) => (episode?.turns ?? []).map((turn) => turn.observation);
const last = (episode) => {
  const text = String(observations(episode).at(-1) ?? '');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

let same = 0;
let failed = false;
const lines = [];
for (const id of ids) {
  const x = a.get(id);
  const y = b.get(id);
  if (!x || !y) {
    failed = true;
    lines.push(`${id}: only in ${x ? 'a' : 'b'}`);
    continue;
  }
  if (x.reward === y.reward) {
    same += 1;
    if (showObservations && JSON.stringify(observations(x)) !== JSON.stringify(observations(y))) {
      lines.push(`${id}: same reward ${x.reward}, observations differ`);
      lines.push(`  a: ${JSON.stringify(last(x))}`);
      lines.push(`  b: ${JSON.stringify(last(y))}`);
    }
    continue;
  }
  failed = true;
  lines.push(`${id}: reward ${x.reward} vs ${y.reward}`);
  lines.push(`  a: ${JSON.stringify(last(x))}`);
  lines.push(`  b: ${JSON.stringify(last(y))}`);
}
process.stdout.write(`a: ${left}: ${a.size} tasks, ${solved(a)} solved\n`);
process.stdout.write(`b: ${right}: ${b.size} tasks, ${solved(b)} solved\n`);
process.stdout.write(`identical reward: ${same} of ${ids.length}\n`);
for (const line of lines) process.stdout.write(`${line}\n`);
process.exit(failed ? 1 : 0);
