import { createHash } from 'node:crypto';
import type { DumpDatabase, DumpModel, DumpTable, SkippedStatement } from './dump-model.js';
import { DumpParseError } from './dump-parse-error.js';
import { parseCreateTable, type TableBuilder } from './parse-create-table.js';
import { parseInsert } from './parse-insert.js';
import { type SqlStatement, splitTokens } from './split-statements.js';
import { isKeyword, type SqlToken } from './sql-token.js';
import { TokenCursor } from './token-cursor.js';
import { tokenizeSql } from './tokenize-sql.js';

interface DatabaseBuilder {
  readonly name: string;
  collation?: string;
  readonly tables: Map<string, TableBuilder>;
}

/**
 * Statements the reader leaves out, by leading keywords, and what they would do on a MySQL server:
 * session variables (character sets, time zone, `UNIQUE_CHECKS=0`, `FOREIGN_KEY_CHECKS=0`,
 * `SQL_MODE='NO_AUTO_VALUE_ON_ZERO'`, which lets a 0 in an AUTO_INCREMENT column stay 0), table locks
 * held while loading, and the dumps' test user `admin` with all privileges.
 */
const HARMLESS: readonly (readonly string[])[] = [
  ['SET'],
  ['LOCK', 'TABLES'],
  ['UNLOCK', 'TABLES'],
  ['CREATE', 'USER'],
  ['GRANT'],
  ['FLUSH'],
];

/** Conditional comments outside statements: `SET …` and `ALTER TABLE t DISABLE|ENABLE KEYS`. */
function conditionalKind(body: string): string | undefined {
  if (/^SET\s/i.test(body)) return 'SET';
  if (/^ALTER\s+TABLE\s+\S+\s+(DISABLE|ENABLE)\s+KEYS$/i.test(body)) return 'ALTER TABLE … KEYS';
  return undefined;
}

function startsWith(tokens: readonly SqlToken[], keywords: readonly string[]): boolean {
  return keywords.every((keyword, i) => isKeyword(tokens[i], keyword));
}

/**
 * Reads a MySQL dump (mysqldump output, or hand-written in its style) into a {@link DumpModel}:
 * `CREATE DATABASE`, `USE`, `DROP TABLE IF EXISTS`, `CREATE TABLE` and `INSERT` are applied;
 * `SET`, `LOCK`/`UNLOCK TABLES`, `CREATE USER`, `GRANT`, `FLUSH` and the conditional comments
 * mysqldump writes (`/*!40101 SET … *\/`, `/*!40000 ALTER TABLE … DISABLE KEYS *\/`) are recorded
 * as skipped; any other statement is a {@link DumpParseError} naming its line.
 */
export function parseMysqlDump(text: string): DumpModel {
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  const source = text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text;
  const tokens = tokenizeSql(source, 'mysql');
  const broken = tokens.find((token) => token.unterminated);
  if (broken) throw new DumpParseError(broken.line, `unclosed ${broken.kind} '${broken.text.slice(0, 20)}…'`);
  const reader = new DumpReader();
  for (const statement of splitTokens(source, tokens)) reader.statement(statement);
  return { sha256, databases: reader.databases(), skipped: reader.skipped };
}

class DumpReader {
  readonly skipped: SkippedStatement[] = [];
  private readonly all = new Map<string, DatabaseBuilder>();
  private current: DatabaseBuilder | undefined;

  databases(): DumpDatabase[] {
    return [...this.all.values()].map((database) => ({
      name: database.name,
      ...(database.collation !== undefined ? { collation: database.collation } : {}),
      tables: [...database.tables.values()] as DumpTable[],
    }));
  }

  statement(statement: SqlStatement): void {
    const code: SqlToken[] = [];
    for (const token of statement.tokens) {
      if (token.kind !== 'conditional-comment') code.push(token);
      else if (statement.tokens.length === 1 || !startsWith(statement.tokens, ['CREATE', 'DATABASE'])) {
        const kind = conditionalKind(token.value);
        if (!kind) throw new DumpParseError(token.line, `unsupported conditional comment '${token.text}'`);
        this.skipped.push({ line: token.line, kind, text: token.value });
      }
    }
    if (code.length === 0) return;
    const first = code[0] as SqlToken;
    const harmless = HARMLESS.find((keywords) => startsWith(code, keywords));
    if (harmless) {
      this.skipped.push({ line: first.line, kind: harmless.join(' '), text: statement.text });
    } else if (startsWith(code, ['CREATE', 'DATABASE']) || startsWith(code, ['CREATE', 'SCHEMA'])) {
      this.createDatabase(statement);
    } else if (startsWith(code, ['USE'])) this.use(statement, code);
    else if (startsWith(code, ['CREATE', 'TABLE']) || startsWith(code, ['CREATE', 'TEMPORARY', 'TABLE'])) {
      const table = parseCreateTable(statement, code);
      const database = this.database(first.line);
      const key = table.name.toLowerCase();
      if (database.tables.has(key))
        throw new DumpParseError(first.line, `table ${table.name} exists already`);
      database.tables.set(key, table);
    } else if (startsWith(code, ['INSERT'])) {
      parseInsert({ ...statement, tokens: code }, (name, cursor) => {
        const table = this.database(first.line).tables.get(name.toLowerCase());
        if (!table) throw cursor.error(`INSERT into unknown table ${name}`);
        return table;
      });
    } else if (startsWith(code, ['DROP', 'TABLE', 'IF', 'EXISTS'])) this.dropTables(statement, code);
    else {
      const words = code.slice(0, 3).map((token) => token.text);
      throw new DumpParseError(first.line, `unsupported statement '${words.join(' ')} …'`);
    }
  }

  private database(line: number): DatabaseBuilder {
    if (!this.current) throw new DumpParseError(line, 'a table statement before any USE');
    return this.current;
  }

  private createDatabase(statement: SqlStatement): void {
    const options = statement.tokens.filter((token) => token.kind !== 'conditional-comment');
    const cursor = new TokenCursor(options, statement.line);
    cursor.expectKeywords('CREATE');
    if (!cursor.acceptKeywords('DATABASE')) cursor.expectKeywords('SCHEMA');
    const ifNotExists = cursor.acceptKeywords('IF', 'NOT', 'EXISTS');
    const name = cursor.identifier();
    const key = name.toLowerCase();
    if (this.all.has(key)) {
      if (!ifNotExists) throw cursor.error(`database ${name} exists already`);
      return;
    }
    const clauses = statement.tokens.flatMap((token) =>
      token.kind === 'conditional-comment' ? tokenizeSql(token.value, 'mysql') : [token],
    );
    const collate = clauses.findIndex((token) => isKeyword(token, 'COLLATE'));
    const after = clauses[collate + 1]?.value === '=' ? clauses[collate + 2] : clauses[collate + 1];
    const database: DatabaseBuilder = { name, tables: new Map() };
    if (collate >= 0 && after) database.collation = after.value;
    this.all.set(key, database);
  }

  private use(statement: SqlStatement, code: readonly SqlToken[]): void {
    const cursor = new TokenCursor(code, statement.line);
    cursor.expectKeywords('USE');
    const name = cursor.identifier();
    cursor.expectEnd();
    const database = this.all.get(name.toLowerCase());
    if (!database) throw new DumpParseError(statement.line, `USE of unknown database ${name}`);
    this.current = database;
  }

  private dropTables(statement: SqlStatement, code: readonly SqlToken[]): void {
    const cursor = new TokenCursor(code, statement.line);
    cursor.expectKeywords('DROP', 'TABLE', 'IF', 'EXISTS');
    do {
      const name = cursor.qualifiedName();
      this.current?.tables.delete(name.toLowerCase());
    } while (cursor.acceptSymbol(','));
    cursor.expectEnd();
  }
}
