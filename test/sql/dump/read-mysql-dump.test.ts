import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';
import { readMysqlDump } from '../../../src/sql/dump/read-mysql-dump.js';
import { temporaryDir } from '../../support/temp-dirs.js';

const TEXT = `CREATE DATABASE \`shop\`;
USE \`shop\`;
CREATE TABLE \`item\` (\`id\` int NOT NULL, \`name\` varchar(20) DEFAULT NULL, \`price\` decimal(5,2), PRIMARY KEY (\`id\`));
INSERT INTO \`item\` VALUES (1,'Apple',1.50),(2,NULL,-0.25),(3,'O\\'Reilly',NULL);
CREATE TABLE \`empty\` (\`x\` blob);
CREATE DATABASE \`other\`;
USE \`other\`;
CREATE TABLE \`t\` (\`y\` double);
INSERT INTO \`t\` VALUES (1e3),(0x41);
`;

const dir = temporaryDir('read-dump');
afterAll(() => dir.remove());

describe('readMysqlDump with a cache folder', () => {
  const dump = join(dir.dir, 'dump.sql');
  writeFileSync(dump, TEXT);
  const cache = join(dir.dir, 'cache');

  it('parses once, then reads the same model from the cache, rows included', async () => {
    const parsed = parseMysqlDump(TEXT);
    const first = await readMysqlDump(dump, { cacheDir: cache });
    expect(JSON.parse(JSON.stringify(first))).toEqual(JSON.parse(JSON.stringify(parsed)));
    const files = readdirSync(cache);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^${parsed.sha256}-[0-9a-f]{16}\\.v8$`));
    const cached = await readMysqlDump(dump, { cacheDir: cache });
    expect(cached).not.toBe(first);
    expect(cached.sha256).toBe(parsed.sha256);
    expect(cached.databases.map((database) => database.tables.map((table) => table.rows))).toEqual(
      parsed.databases.map((database) => database.tables.map((table) => table.rows)),
    );
    expect(JSON.parse(JSON.stringify(cached))).toEqual(JSON.parse(JSON.stringify(parsed)));
  });

  it('keys the cache by the dump text: a changed dump is parsed anew', async () => {
    const changed = join(dir.dir, 'changed.sql');
    writeFileSync(changed, TEXT.replace("'Apple'", "'Pear'"));
    const model = await readMysqlDump(changed, { cacheDir: cache });
    expect(model.databases[0]?.tables[0]?.rows[0]?.[1]).toEqual({ kind: 'string', value: 'Pear' });
    expect(readdirSync(cache)).toHaveLength(2);
  });

  it('parses the dump when the cached file is torn', async () => {
    for (const name of readdirSync(cache)) {
      const bytes = readFileSync(join(cache, name));
      writeFileSync(join(cache, name), bytes.subarray(0, bytes.length - 10));
    }
    const model = await readMysqlDump(dump, { cacheDir: cache });
    expect(model.databases[0]?.tables[0]?.rows).toHaveLength(3);
  });

  it('parses the dump when the cached file is damaged', async () => {
    for (const name of readdirSync(cache)) writeFileSync(join(cache, name), 'not a model');
    const model = await readMysqlDump(dump, { cacheDir: cache });
    expect(model.databases.map((database) => database.name)).toEqual(['shop', 'other']);
    expect(model.databases[1]?.tables[0]?.rows).toHaveLength(2);
  });
});
