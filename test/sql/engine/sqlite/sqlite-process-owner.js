// Starts a SQLite session process on a new database file (argv[2]) and, with argv[3]:
// - `runaway`: sends it a statement that never ends, prints `{ "pid": <its pid> }` and waits to be
//   killed (SIGKILL): the session process must end with it;
// - `memory`: sends it a statement that passes a 160 MiB memory limit and prints
//   `{ "reason": <why the process ended> }`.
// Run with PATH unset to take the path of a machine without `setpriv`. Runs the compiled package:
// build it first (`npm run build`).

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SqliteProcess } from '../../../../dist/sql/engine/sqlite/sqlite-process.js';

const Database = createRequire(import.meta.url)('better-sqlite3');
const [file, mode] = process.argv.slice(2);
const db = new Database(file);
db.exec('CREATE TABLE t (x INTEGER)');
db.close();

const child = await SqliteProcess.start({ memoryBytes: 160 * 2 ** 20 });
await child.request({ op: 'open', slot: 1, file });
if (mode === 'runaway') {
  const sql = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c';
  child.request({ op: 'query', slot: 1, sql, maxRows: 1, countLimit: 1 }).catch(() => {});
  const pids = readdirSync('/proc/self/task').flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
  );
  process.stdout.write(`${JSON.stringify({ pid: Number(pids[0]) })}\n`);
  process.stdin.on('close', () => process.exit(1));
  process.stdin.resume();
} else {
  const sql =
    'SELECT length(group_concat(hex(randomblob(1000000)))) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 400) SELECT x FROM c)';
  const outcome = await child.request({ op: 'query', slot: 1, sql, maxRows: 1, countLimit: 1 }).then(
    (reply) => ({ reply }),
    () => undefined,
  );
  await child.finished;
  process.stdout.write(`${JSON.stringify(outcome ?? { reason: child.crashReason() ?? null })}\n`);
}
