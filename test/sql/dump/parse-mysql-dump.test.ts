import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../../../src/core/errors.js';
import type { DumpModel, DumpTable } from '../../../src/sql/dump/dump-model.js';
import { DumpParseError } from '../../../src/sql/dump/dump-parse-error.js';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';
import { readMysqlDump } from '../../../src/sql/dump/read-mysql-dump.js';
import { MIRROR_PRESENT, mirrorDump, SPIDER_DUMP, WIKISQL_DUMP } from '../../envs/sql/sql-fixtures.js';

function table(model: DumpModel, database: string, name: string): DumpTable {
  const found = model.databases.find((d) => d.name === database)?.tables.find((t) => t.name === name);
  if (!found) throw new Error(`no table ${database}.${name}`);
  return found;
}

function rowCount(model: DumpModel): number {
  return model.databases.flatMap((d) => d.tables).reduce((sum, t) => sum + t.rows.length, 0);
}

const SMALL = `-- a hand-written dump
CREATE USER 'admin'@'%' IDENTIFIED BY 'admin';
CREATE DATABASE IF NOT EXISTS \`shop\` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */;
USE \`shop\`;
/*!40101 SET NAMES utf8 */;
DROP TABLE IF EXISTS \`item\`;
CREATE TABLE \`item\` (
  \`id\` int(11) unsigned NOT NULL AUTO_INCREMENT,
  \`name\` varchar(50) COLLATE utf8mb4_bin NOT NULL DEFAULT '',
  \`price\` decimal(10,2) DEFAULT '0.00',
  \`kind\` enum('a','b''c') DEFAULT NULL,
  \`added\` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  \`note\` text COMMENT 'free text',
  PRIMARY KEY (\`id\`),
  UNIQUE KEY \`by_name\` (\`name\`(20)),
  KEY \`by_kind\` (\`kind\`,\`price\` DESC),
  CONSTRAINT \`fk\` FOREIGN KEY (\`kind\`) REFERENCES \`kinds\` (\`code\`) ON DELETE CASCADE
) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
LOCK TABLES \`item\` WRITE;
/*!40000 ALTER TABLE \`item\` DISABLE KEYS */;
INSERT INTO \`item\` VALUES (1,'O\\'Reilly',-1.50,'a','2020-01-02 03:04:05',NULL),(2,'x' 'y',1e3,NULL,'2020-01-02',_utf8mb4'z');
INSERT INTO \`item\` (\`name\`, \`id\`, \`added\`) VALUES ("two\\nlines", 3, '2021-01-01');
UNLOCK TABLES;
`;

describe('parseMysqlDump on a small dump', () => {
  const model = parseMysqlDump(SMALL);
  const item = table(model, 'shop', 'item');

  it('reads the database, its collation and the table structure', () => {
    expect(model.sha256).toBe(createHash('sha256').update(SMALL).digest('hex'));
    expect(model.databases).toHaveLength(1);
    expect(model.databases[0]?.collation).toBe('utf8mb4_general_ci');
    expect(item.columns.map((c) => [c.name, c.mysqlType, c.notNull, c.autoIncrement])).toEqual([
      ['id', 'int unsigned', true, true],
      ['name', 'varchar(50)', true, false],
      ['price', 'decimal(10,2)', false, false],
      ['kind', "enum('a','b''c')", false, false],
      ['added', 'timestamp', true, false],
      ['note', 'text', false, false],
    ]);
    expect(item.columns[1]).toMatchObject({
      collation: 'utf8mb4_bin',
      default: { kind: 'string', value: '' },
    });
    expect(item.columns[2]?.default).toEqual({ kind: 'string', value: '0.00' });
    expect(item.columns[3]?.default).toEqual({ kind: 'null' });
    expect(item.columns[4]?.default).toEqual({ kind: 'expression', text: 'CURRENT_TIMESTAMP' });
    expect(item.primaryKey).toEqual(['id']);
    expect(item.indexes).toEqual([
      { name: 'by_name', columns: ['name'], unique: true },
      { name: 'by_kind', columns: ['kind', 'price'], unique: false },
    ]);
    expect(item.foreignKeys).toEqual([
      { name: 'fk', columns: ['kind'], refTable: 'kinds', refColumns: ['code'] },
    ]);
    expect(item.collation).toBe('utf8mb4_general_ci');
    expect(item.line).toBe(7);
    expect(item.createSql).toMatch(/^CREATE TABLE `item` \(\n/);
  });

  it('reads rows exactly as written: numbers as text, strings unescaped and concatenated', () => {
    expect(item.rows).toEqual([
      [
        { kind: 'integer', text: '1' },
        { kind: 'string', value: "O'Reilly" },
        { kind: 'decimal', text: '-1.50' },
        { kind: 'string', value: 'a' },
        { kind: 'string', value: '2020-01-02 03:04:05' },
        { kind: 'null' },
      ],
      [
        { kind: 'integer', text: '2' },
        { kind: 'string', value: 'xy' },
        { kind: 'float', text: '1e3' },
        { kind: 'null' },
        { kind: 'string', value: '2020-01-02' },
        { kind: 'string', value: 'z' },
      ],
      [
        { kind: 'integer', text: '3' },
        { kind: 'string', value: 'two\nlines' },
        { kind: 'string', value: '0.00' },
        { kind: 'null' },
        { kind: 'string', value: '2021-01-01' },
        { kind: 'null' },
      ],
    ]);
  });

  it('records what it skipped, with what it is', () => {
    expect(model.skipped.map((s) => s.kind)).toEqual([
      'CREATE USER',
      'SET',
      'LOCK TABLES',
      'ALTER TABLE … KEYS',
      'UNLOCK TABLES',
    ]);
  });

  it('applies DROP TABLE IF EXISTS to a table defined before', () => {
    const model = parseMysqlDump(`${SMALL}DROP TABLE IF EXISTS \`ITEM\`;\n`);
    expect(model.databases[0]?.tables).toEqual([]);
  });
});

describe('parseMysqlDump errors name the line', () => {
  const cases: [string, string, number, RegExp][] = [
    ['an unknown statement', 'USE x;', 1, /unknown database x/],
    [
      'an unsupported statement',
      'CREATE DATABASE d;\nUSE d;\nDELETE FROM t;',
      3,
      /unsupported statement 'DELETE FROM t …'/,
    ],
    ['a table before USE', '\n\nINSERT INTO t VALUES (1);', 3, /before any USE/],
    [
      'an insert into an unknown table',
      'CREATE DATABASE d;\nUSE d;\nINSERT INTO t VALUES (1);',
      3,
      /unknown table t/,
    ],
    [
      'a row of the wrong width',
      'CREATE DATABASE d;\nUSE d;\nCREATE TABLE t (a int);\nINSERT INTO t VALUES (1),\n(1,2);',
      5,
      /a row of 2 values for 1 columns/,
    ],
    ['an unclosed string', "CREATE DATABASE d;\nUSE d;\nSELECT 'abc", 3, /unclosed string/],
    [
      'an unknown conditional comment',
      '/*!50001 CREATE VIEW v AS SELECT 1 */;',
      1,
      /unsupported conditional comment/,
    ],
    [
      'a generated column',
      'CREATE DATABASE d;\nUSE d;\nCREATE TABLE t (\na int GENERATED ALWAYS AS (1));',
      4,
      /unsupported option of column a/,
    ],
    [
      'an expression value',
      'CREATE DATABASE d;\nUSE d;\nCREATE TABLE t (a int);\nINSERT INTO t VALUES (1+1);',
      4,
      /expected '\)' at '\+'/,
    ],
    ['a plain DROP TABLE', 'DROP TABLE t;', 1, /unsupported statement/],
  ];
  it.each(cases)('%s', (_name, dump, line, message) => {
    let error: unknown;
    try {
      parseMysqlDump(dump);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DumpParseError);
    expect(error).toBeInstanceOf(DatasetError);
    expect((error as DumpParseError).code).toBe('DATASET_INVALID');
    expect((error as DumpParseError).line).toBe(line);
    expect((error as Error).message).toMatch(new RegExp(`^dump line ${line}: `));
    expect((error as Error).message).toMatch(message);
  });
});

describe.skipIf(!MIRROR_PRESENT)('parseMysqlDump on the upstream dumps', () => {
  it('reads all of Spider: 20 databases, 81 tables, 6952 rows', async () => {
    const model = mirrorDump(SPIDER_DUMP);
    expect(model.databases).toHaveLength(20);
    expect(model.databases.flatMap((d) => d.tables)).toHaveLength(81);
    expect(rowCount(model)).toBe(6952);
    const counts = Object.fromEntries(
      model.databases.map((d) => [
        d.name,
        [d.tables.length, d.tables.reduce((sum, t) => sum + t.rows.length, 0)],
      ]),
    );
    expect(counts).toEqual({
      museum_visit: [3, 20],
      course_teach: [3, 23],
      singer: [2, 16],
      orchestra: [4, 40],
      flight_2: [3, 162],
      wta_1: [4, 0],
      pets_1: [3, 40],
      voter_1: [3, 320],
      concert_singer: [4, 31],
      network_1: [3, 46],
      world_1: [3, 5302],
      student_transcripts_tracking: [11, 164],
      dog_kennels: [8, 72],
      employee_hire_evaluation: [4, 32],
      car_1: [6, 512],
      battle_death: [3, 28],
      tvshow: [3, 39],
      poker_player: [2, 12],
      cre_Doc_Template_Mgt: [4, 53],
      real_estate_properties: [5, 40],
    });
    expect(model.sha256).toBe(createHash('sha256').update(readFileSync(SPIDER_DUMP)).digest('hex'));
    expect((await readMysqlDump(SPIDER_DUMP)).sha256).toBe(model.sha256);
  });

  it('skips only the harmless statements of Spider', () => {
    const kinds: Record<string, number> = {};
    for (const skipped of mirrorDump(SPIDER_DUMP).skipped)
      kinds[skipped.kind] = (kinds[skipped.kind] ?? 0) + 1;
    expect(kinds).toEqual({
      'CREATE USER': 1,
      GRANT: 1,
      FLUSH: 1,
      SET: 603,
      'LOCK TABLES': 81,
      'ALTER TABLE … KEYS': 162,
      'UNLOCK TABLES': 81,
    });
  });

  it('normalises every Spider column type', () => {
    const types = new Set(
      mirrorDump(SPIDER_DUMP).databases.flatMap((d) =>
        d.tables.flatMap((t) => t.columns.map((c) => c.mysqlType)),
      ),
    );
    expect([...types].sort()).toEqual(
      [
        'char(15)',
        'char(2)',
        'char(20)',
        'char(26)',
        'char(3)',
        'char(30)',
        'char(35)',
        'char(45)',
        'char(52)',
        'char(60)',
        'date',
        'datetime',
        'decimal(19,4)',
        'double',
        'float',
        'float(10,2)',
        'float(3,1)',
        'float(4,1)',
        'int',
        'text',
        'timestamp',
        'varchar(1)',
        'varchar(10)',
        'varchar(12)',
        'varchar(2)',
        'varchar(20)',
        'varchar(255)',
        'varchar(3)',
        'varchar(40)',
        'varchar(50)',
        'varchar(80)',
      ].sort(),
    );
  });

  it('reads keys: composite and prefix primary keys, foreign keys, unique keys', () => {
    const model = mirrorDump(SPIDER_DUMP);
    const visit = table(model, 'museum_visit', 'visit');
    expect(visit.primaryKey).toEqual(['Museum_ID', 'visitor_ID']);
    expect(visit.foreignKeys).toEqual([
      { name: 'visit_FK_0_0', columns: ['visitor_ID'], refTable: 'visitor', refColumns: ['ID'] },
      { name: 'visit_FK_1_0', columns: ['Museum_ID'], refTable: 'museum', refColumns: ['Museum_ID'] },
    ]);
    expect(visit.indexes).toEqual([{ name: 'visit_FK_0_0', columns: ['visitor_ID'], unique: false }]);
    expect(table(model, 'employee_hire_evaluation', 'evaluation').primaryKey).toEqual([
      'Employee_ID',
      'Year_awarded',
    ]);
    expect(table(model, 'voter_1', 'area_code_state').indexes).toEqual([
      { name: 'sqlite_autoindex_AREA_CODE_STATE_1', columns: ['area_code'], unique: true },
    ]);
    expect(table(model, 'museum_visit', 'museum').columns[0]).toEqual({
      name: 'Museum_ID',
      mysqlType: 'int',
      notNull: true,
      autoIncrement: true,
    });
  });

  it('unescapes Spider strings and keeps numbers as written', () => {
    const model = mirrorDump(SPIDER_DUMP);
    const values = model.databases.flatMap((d) =>
      d.tables.flatMap((t) =>
        t.rows.flatMap((row) => row.filter((v) => v.kind === 'string').map((v) => v.value)),
      ),
    );
    expect(values).toContain("Do They Know It's Christmas");
    expect(values).toContain("Stark's Park");
    expect(values).toContain("Taufa'ahau Tupou IV");
    expect(values).toContain("People'sRepublic");
    expect(values.filter((v) => v.includes('\n'))).toHaveLength(30);
    expect(values.filter((v) => v.includes('\\'))).toEqual([]);
    const museum = table(model, 'museum_visit', 'museum');
    expect(museum.rows[0]).toEqual([
      { kind: 'integer', text: '1' },
      { kind: 'string', value: 'Plaza Museum' },
      { kind: 'integer', text: '62' },
      { kind: 'string', value: '2000' },
    ]);
    const country = table(model, 'world_1', 'country');
    const aruba = country.rows.find((row) => row[0]?.kind === 'string' && row[0].value === 'ABW');
    expect(aruba?.slice(4, 8)).toEqual([
      { kind: 'decimal', text: '193.00' },
      { kind: 'null' },
      { kind: 'integer', text: '103000' },
      { kind: 'decimal', text: '78.4' },
    ]);
    const negatives = model.databases.flatMap((d) =>
      d.tables.flatMap((t) =>
        t.rows.flatMap((row) =>
          row.filter(
            (v) => v.kind !== 'string' && v.kind !== 'null' && 'text' in v && v.text.startsWith('-'),
          ),
        ),
      ),
    );
    expect(negatives).toHaveLength(3);
  });

  it('reads WikiSQL: database dev, 50 tables, 835 rows, MySQL double-quoted strings', () => {
    const model = mirrorDump(WIKISQL_DUMP);
    expect(model.databases.map((d) => d.name)).toEqual(['dev']);
    const tables = model.databases[0]?.tables ?? [];
    expect(tables).toHaveLength(50);
    expect(rowCount(model)).toBe(835);
    const first = table(model, 'dev', 'table_1_10015132_11');
    expect(first.columns.map((c) => c.name)).toEqual([
      'id_fake',
      'Player',
      'No.',
      'Nationality',
      'Position',
      'Years_in_Toronto',
      'School/Club_Team',
    ]);
    const values = tables.flatMap((t) =>
      t.rows.flatMap((row) => row.filter((v) => v.kind === 'string').map((v) => v.value)),
    );
    expect(values).toContain("St. John's");
    expect(values).toContain('"Look Who\'s Taunting"');
    expect(values).toContain('" Per Manum "');
    const types = new Set(tables.flatMap((t) => t.columns.map((c) => c.mysqlType)));
    expect([...types].sort()).toEqual(['double', 'int', 'text']);
  });
});
