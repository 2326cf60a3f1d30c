import { it } from 'vitest';
import { MysqlEngine } from '../../../../../src/envs/sql/engine/mysql/mysql-engine.js';
import { mirrorDump, SPIDER_DUMP, WIKISQL_DUMP } from '../../sql-fixtures.js';
const O = { timeoutMs: 2000, maxRows: 5 };
const j = (r: unknown) => JSON.stringify(r, (k, v) => typeof v === 'bigint' ? `${v}n` : v);
it('works', async () => {
  let t = performance.now();
  const engine = await MysqlEngine.start();
  await engine.prepare(mirrorDump(SPIDER_DUMP));
  await engine.prepare(mirrorDump(WIKISQL_DUMP));
  const s = await engine.open('museum_visit');
  for (const q of ['INSERT INTO museum (Name) VALUES ("x")', 'SELECT max(Museum_ID) FROM museum', 'COMMIT', 'create view v as select * from visitor', 'update v set name = "zz"', 'select name from visitor limit 2']) {
    const r = await s.query(q, O);
    console.log(q.slice(0, 50), '=>', j(r).slice(0, 300));
  }
  t = performance.now(); await s.reset(); console.log('reset', performance.now() - t);
  await s.query('INSERT INTO museum (Name) VALUES ("y")', O);
  console.log(j(await s.query('SELECT max(Museum_ID), count(*) FROM museum', O)));
  console.log(j(await s.query('select name from visitor limit 2', O)));
  console.log(j(await s.query('show tables', O)));
  t = performance.now(); await s.reset(); console.log('reset', performance.now() - t);
  const d = await engine.open('dev');
  for (const q of ['create table foo (a int)', 'drop table table_1_10015132_11', 'delete from table_1_10015132_12']) {
    await d.query(q, O);
    t = performance.now(); await d.reset(); console.log('dev reset', q, performance.now() - t);
  }
  console.log(j(await d.query('select count(*) from table_1_10015132_11', O)));
  await engine.close();
});
