// The program of a SQLite session process (plain CommonJS, run with `node -e <source> <config>`,
// so that it works the same from the TypeScript sources under test and from the built package). It
// holds databases in numbered slots (one per session; an environment's sessions share a process):
// each database's pristine image in memory, once per file, and a writable in-memory copy of it per
// slot (`new Database(buffer)`). It answers the messages of `SqliteChildRequest` over the IPC channel
// (V8 serialisation, so `bigint` and `Buffer` values cross intact), in order.
//
// Why a process and not a worker thread: better-sqlite3 is synchronous and has no interrupt, and a
// worker stuck in `sqlite3_step` cannot be terminated (`worker.terminate()` waits for JavaScript to
// run again, which never happens for `WITH RECURSIVE … SELECT count(*)`); a process can be killed.
//
// argv[1] is a JSON object: `{ modulePath, memoryBytes, parent, watchdog }`. Started through
// `setpriv --pdeathsig KILL` (`watchdog: false`), the kernel kills the process when its parent dies,
// and the parent enforces the memory limit (`sqlite-memory-watch.ts`). Otherwise (`watchdog: true`,
// no `setpriv` here) a watchdog thread (it runs while the main thread is stuck inside a query) kills
// the process when its parent dies, and when its resident memory passes `memoryBytes`, writing
// `intercode-sqlite: memory limit exceeded` to stderr first; starting that thread costs about as much
// CPU as starting the process. SQLite's own heap limit cannot serve: better-sqlite3 is built without
// memory statistics (`SQLITE_DEFAULT_MEMSTATUS=0`), which `PRAGMA hard_heap_limit` needs.

'use strict';
const { readFileSync } = require('node:fs');
const { Worker } = require('node:worker_threads');
const config = JSON.parse(process.argv[1]);
const Database = require(config.modulePath);

// The parent died before the parent-death signal was set: nobody will ever ask anything.
if (!config.watchdog && process.ppid !== config.parent) process.exit(0);

if (config.watchdog)
  new Worker(
    "const { writeSync } = require('node:fs');" +
      "const { workerData } = require('node:worker_threads');" +
      'setInterval(() => {' +
      "  if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL');" +
      '  const rss = process.memoryUsage.rss();' +
      '  if (rss > workerData.limit) {' +
      "    writeSync(2, '\\nintercode-sqlite: memory limit exceeded (' + Math.round(rss / 1048576) + ' MiB)\\n');" +
      "    process.kill(process.pid, 'SIGKILL');" +
      '  }' +
      '}, 50);',
    { eval: true, workerData: { parent: config.parent, limit: Number(config.memoryBytes) } },
  ).unref();

// Pristine images by file (shared by the slots of one database) and the slots' working copies.
const images = new Map();
const slots = new Map();

function fresh(image) {
  const db = new Database(image);
  db.defaultSafeIntegers(true);
  db.pragma('foreign_keys = OFF');
  db.pragma('temp_store = MEMORY');
  db.pragma('trusted_schema = OFF');
  return db;
}

function drop(slot) {
  const held = slots.get(slot);
  if (!held) return;
  slots.delete(slot);
  try {
    held.db.close();
  } catch {}
  for (const other of slots.values()) if (other.file === held.file) return;
  images.delete(held.file);
}

function put(slot, file, db) {
  drop(slot);
  slots.set(slot, { file, db });
}

function slotOf(message) {
  const held = slots.get(message.slot);
  if (!held) throw new Error(`no database is open in slot ${message.slot}`);
  return held;
}

function openSlot(slot, file) {
  drop(slot);
  let image = images.get(file);
  if (!image) {
    image = readFileSync(file);
    images.set(file, image);
  }
  put(slot, file, fresh(image));
}

function reset(message) {
  const held = slotOf(message);
  const image = images.get(held.file);
  try {
    held.db.close();
  } catch {}
  held.db = fresh(image);
  return held.db;
}

function failure(error) {
  const message = error && typeof error.message === 'string' ? error.message : String(error);
  // biome-ignore lint/complexity/useOptionalChain: a falsy thrown value (0, '') is reported as itself, not undefined.
  const code = error && typeof error.code === 'string' ? error.code : error && error.name;
  return { kind: 'error', message, code };
}

// `reference`: the statement must only read (SQLite's own verdict, sqlite3_stmt_readonly), so that
// it leaves nothing on the connection the session can observe: changes(), total_changes() and
// last_insert_rowid() move only with writes, and the database stays as it was.
function query(db, sql, maxRows, countLimit, reference = false) {
  let statement;
  try {
    statement = db.prepare(sql);
  } catch (error) {
    return failure(error);
  }
  if (reference && !statement.readonly) {
    return {
      kind: 'error',
      message: 'the reference query must only read (it would change the database)',
      code: 'SQLITE_READONLY',
    };
  }
  const changes = !(statement.reader && statement.readonly);
  try {
    if (!statement.reader) {
      const info = statement.run();
      return { kind: 'ok', affectedRows: info.changes, changes };
    }
    statement.raw(true);
    const columns = statement.columns().map((column) => column.name);
    const rows = [];
    let total = 0;
    let capped = false;
    for (const row of statement.iterate()) {
      total++;
      if (rows.length < maxRows) rows.push(row);
      else if (total > countLimit) {
        total--;
        capped = true;
        break;
      }
    }
    return { kind: 'rows', columns, rows, totalRows: total, capped, changes };
  } catch (error) {
    return failure(error);
  }
}

function replay(db, statements) {
  for (let i = 0; i < statements.length; i++) {
    const outcome = query(db, statements[i], 0, Number.POSITIVE_INFINITY);
    if (outcome.kind === 'error') return { kind: 'error', message: outcome.message, failedAt: i };
  }
  return { kind: 'ok' };
}

function handle(message) {
  switch (message.op) {
    case 'open':
      openSlot(message.slot, message.file);
      return { kind: 'ok' };
    case 'copy': {
      const source = slotOf({ slot: message.from });
      if (source.db.inTransaction) {
        return { kind: 'error', message: 'a database inside an open transaction cannot be copied' };
      }
      // A copy of the main database leaves the connection's temporary tables, views and triggers out.
      if (source.db.prepare('SELECT count(*) FROM temp.sqlite_master').pluck().get() > 0n) {
        return { kind: 'error', message: 'a connection with temporary objects cannot be copied' };
      }
      put(message.slot, source.file, fresh(source.db.serialize()));
      return { kind: 'ok' };
    }
    case 'reset':
      reset(message);
      return { kind: 'ok' };
    case 'close':
      drop(message.slot);
      return { kind: 'ok' };
    case 'query': {
      const db = message.reset === true ? reset(message) : slotOf(message).db;
      return query(db, message.sql, message.maxRows, message.countLimit, message.reference === true);
    }
    case 'replay':
      return replay(slotOf(message).db, message.statements);
    default:
      return { kind: 'error', message: `unknown request ${message.op}` };
  }
}

function answer(message) {
  let reply;
  try {
    reply = handle(message);
  } catch (error) {
    reply = failure(error);
  }
  reply.id = message.id;
  process.send(reply);
}

// A message is one request, or an array of requests made together (answered one by one, in order).
process.on('message', (message) => {
  if (Array.isArray(message)) for (const request of message) answer(request);
  else answer(message);
});
process.on('disconnect', () => process.exit(0));
process.send({ id: 0, kind: 'ok' });
