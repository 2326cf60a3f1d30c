import type { SqlStatement } from '../../dump/split-statements.js';
import { isCodeToken, type SqlToken } from '../../dump/sql-token.js';
import { tokenizeSql } from '../../dump/tokenize-sql.js';

/**
 * What a statement can do to the session's database, for the reset (see `MysqlSession`):
 * - `read`: changes nothing that `COM_RESET_CONNECTION` does not undo (SELECT, SHOW, SET of session
 *   and user variables, temporary tables, ROLLBACK, savepoints);
 * - `write`: DML inside the session's open transaction (autocommit is off), undone by a rollback;
 * - `commit`: ends the open transaction (COMMIT, BEGIN, START TRANSACTION): pending writes become
 *   permanent;
 * - `other`: anything else (DDL and every statement not recognised), which may change the database
 *   for good: the reset rebuilds it.
 */
export type MysqlStatementKind = 'read' | 'write' | 'commit' | 'other';

/** The verdict on one statement. */
interface Verdict {
  readonly kind: MysqlStatementKind;
  /** Why the statement is refused (`FORBIDDEN_STATEMENT`), when it is. */
  readonly refusal?: string;
  /** `USE <name>`: the database named (the session maps its own name to its copy, refuses others). */
  readonly use?: string;
  /**
   * Every identifier and word of the statement, lower case: a superset of the tables it can change
   * (a statement changes only tables it names, or, through foreign-key cascades, their children).
   */
  readonly names: readonly string[];
}

/** The verdict on one statement (see {@link checkMysqlStatement}). */
export type MysqlStatementCheck = Verdict;

type KindCheck = Omit<Verdict, 'names'>;

/**
 * Functions the session's privileges cannot deny: named locks are shared by every session of the
 * server. (Files are its privileges' business: without FILE, `LOAD_FILE` reads nothing.)
 */
const REFUSED_FUNCTIONS = new Map([
  ['GET_LOCK', 'named locks are shared by every session of the server'],
  ['RELEASE_LOCK', 'named locks are shared by every session of the server'],
  ['RELEASE_ALL_LOCKS', 'named locks are shared by every session of the server'],
  ['IS_FREE_LOCK', 'named locks are shared by every session of the server'],
  ['IS_USED_LOCK', 'named locks are shared by every session of the server'],
]);

/**
 * Statements (by first word) refused whatever the privileges: XA transactions outlive the session
 * (a prepared one keeps its locks after the connection ends), and prepared statements would run
 * text built at run time, past the checks here.
 */
const REFUSED_FIRST_WORDS = new Map([
  ['XA', 'XA transactions are not allowed: they outlive the session'],
  ['PREPARE', 'prepared statements are not allowed: run the statement itself'],
  ['EXECUTE', 'prepared statements are not allowed: run the statement itself'],
  ['DEALLOCATE', 'prepared statements are not allowed: run the statement itself'],
]);

/** Statements that only read, by first word. */
const READ_FIRST_WORDS = new Set([
  'SELECT',
  'VALUES',
  'TABLE',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'EXPLAIN',
  'HELP',
  'DO',
  'CHECKSUM',
  'USE',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'HANDLER',
  'SIGNAL',
  'RESIGNAL',
  'GET',
]);

const WRITE_FIRST_WORDS = new Set(['INSERT', 'REPLACE', 'UPDATE', 'DELETE']);
const COMMIT_FIRST_WORDS = new Set(['COMMIT', 'BEGIN']);

/** Sequence functions change a sequence outside the transaction. */
const SEQUENCE_WORDS = new Set(['NEXTVAL', 'SETVAL', 'LASTVAL', 'NEXT', 'PREVIOUS']);

function word(token: SqlToken | undefined): string {
  return token?.kind === 'word' ? token.value.toUpperCase() : '';
}

/**
 * The code tokens with MySQL's conditional comments (`/*!40101 … *\/`, `/*M!100100 … *\/`) opened
 * up: the server runs their bodies, so the checks must see them (every version is assumed to apply).
 */
function codeTokens(tokens: readonly SqlToken[]): SqlToken[] {
  const out: SqlToken[] = [];
  for (const token of tokens) {
    if (!isCodeToken(token)) continue;
    if (token.kind === 'conditional-comment') out.push(...codeTokens(tokenizeSql(token.value, 'mysql')));
    else out.push(token);
  }
  return out;
}

function refusal(kind: MysqlStatementKind, reason: string): KindCheck {
  return { kind, refusal: reason };
}

/** Refusals that apply wherever the words appear (named locks). */
function anywhereRefusal(tokens: readonly SqlToken[]): string | undefined {
  for (const token of tokens) {
    const name = word(token);
    const reason = name ? REFUSED_FUNCTIONS.get(name) : undefined;
    if (reason) return `${name}() is not allowed: ${reason}`;
  }
  return undefined;
}

/** The words after CREATE/ALTER/DROP/RENAME, skipping `OR REPLACE`, `IF [NOT] EXISTS`, `DEFINER = x`, … */
function objectWord(words: readonly string[]): string {
  const skip = new Set(['OR', 'REPLACE', 'IF', 'NOT', 'EXISTS', 'TEMPORARY', 'ONLINE', 'OFFLINE', 'IGNORE']);
  for (const candidate of words.slice(1, 6)) {
    if (!skip.has(candidate)) return candidate;
  }
  return '';
}

function setCheck(tokens: readonly SqlToken[], words: readonly string[]): KindCheck {
  // Any account may change its own password, which no privilege denies: the session could no
  // longer connect to its copy.
  if (words[1] === 'PASSWORD') return refusal('other', 'password changes are not allowed');
  if (words[1] === 'STATEMENT') {
    const at = words.indexOf('FOR');
    if (at < 0) return { kind: 'other' };
    const inner = checkTokens(tokens.slice(at + 1));
    if (inner.refusal) return inner;
    const settings = setCheck(tokens.slice(0, at), words.slice(0, at));
    if (settings.refusal) return settings;
    return { kind: inner.kind === 'read' && settings.kind === 'read' ? 'read' : 'other' };
  }
  for (const token of tokens) {
    const text = token.text.toLowerCase();
    const name = word(token);
    if (name === 'COMPLETION_TYPE' || text.includes('completion_type')) {
      return refusal('other', 'completion_type cannot be changed: it would end the connection on COMMIT');
    }
  }
  // Turning autocommit on commits the pending transaction and every later write: rebuild.
  const autocommit = tokens.some((token) => token.text.toLowerCase().includes('autocommit'));
  const transaction = words[1] === 'TRANSACTION' || words[2] === 'TRANSACTION';
  return { kind: autocommit && !transaction ? 'other' : 'read' };
}

function checkTokens(tokens: readonly SqlToken[]): KindCheck {
  const anywhere = anywhereRefusal(tokens);
  if (anywhere) return refusal('other', anywhere);
  const words = tokens.map(word);
  let first = words[0] ?? '';
  if (tokens[0]?.kind === 'symbol' && tokens[0].value === '(') first = 'SELECT';
  const refused = REFUSED_FIRST_WORDS.get(first);
  if (refused) return refusal('other', refused);
  if (first === 'CREATE' || first === 'ALTER' || first === 'DROP' || first === 'RENAME') {
    const object = objectWord(words);
    // The session holds DROP and ALTER on its copy (for its tables, which MySQL cannot grant
    // apart), so only this check keeps the copy itself (and its options) as the reset expects it.
    if (object === 'DATABASE' || object === 'SCHEMA') {
      return refusal('other', `${first} ${object} is not allowed: a session stays on its own database`);
    }
    if (object === 'USER' && first === 'ALTER') return refusal('other', 'password changes are not allowed');
    // Temporary tables live in the session only; `COM_RESET_CONNECTION` drops them.
    if ((first === 'CREATE' || first === 'DROP') && words.slice(1, 4).includes('TEMPORARY'))
      return { kind: 'read' };
    return { kind: 'other' };
  }
  if (first === 'START' && words[1] === 'TRANSACTION') return { kind: 'commit' };
  if (first === 'COMMIT' || first === 'ROLLBACK') {
    const release = words.indexOf('RELEASE');
    if (release > 0 && words[release - 1] !== 'NO') {
      return refusal('other', `${first} … RELEASE is not allowed: it would end the connection`);
    }
  }
  if (first === 'USE') {
    const target = tokens[1];
    const name =
      target && (target.kind === 'word' || target.kind === 'quoted-identifier') ? target.value : '';
    return { kind: 'read', use: name };
  }
  if (first === 'SET') return setCheck(tokens, words);
  if (first === 'ANALYZE' || first === 'EXPLAIN' || first === 'DESCRIBE' || first === 'DESC') {
    return explainCheck(tokens, words);
  }
  if (COMMIT_FIRST_WORDS.has(first)) return { kind: 'commit' };
  if (WRITE_FIRST_WORDS.has(first)) return { kind: 'write' };
  if (first === 'WITH') {
    if (words.some((name) => WRITE_FIRST_WORDS.has(name))) return { kind: 'write' };
    return { kind: words.some((name) => SEQUENCE_WORDS.has(name)) ? 'other' : 'read' };
  }
  if (READ_FIRST_WORDS.has(first)) {
    if (first === 'SELECT' && words.some((name) => SEQUENCE_WORDS.has(name))) return { kind: 'other' };
    return { kind: 'read' };
  }
  return { kind: 'other' };
}

/**
 * `EXPLAIN`/`DESCRIBE` only plan (read), except with `ANALYZE`, which runs the statement; MariaDB's
 * `ANALYZE <statement>` runs it too; `ANALYZE TABLE` writes statistics and commits.
 */
function explainCheck(tokens: readonly SqlToken[], words: readonly string[]): KindCheck {
  const analyze = words.indexOf('ANALYZE');
  if (analyze < 0) return { kind: 'read' };
  const rest = tokens.slice(analyze + 1);
  let start = 0;
  while (start < rest.length) {
    const name = word(rest[start]);
    if (name === 'FORMAT' && rest[start + 1]?.value === '=') start += 3;
    else if (name === 'EXTENDED' || name === 'PARTITIONS') start += 1;
    else break;
  }
  const inner = rest.slice(start);
  const innerFirst = word(inner[0]);
  if (
    innerFirst === 'TABLE' ||
    innerFirst === 'NO_WRITE_TO_BINLOG' ||
    innerFirst === 'LOCAL' ||
    inner.length === 0
  ) {
    return { kind: 'other' };
  }
  return checkTokens(inner);
}

/**
 * Checks one MySQL statement: why it is refused (a refusal is an error outcome, the statement never
 * reaches the server), what it may change (for the reset), and the target of `USE`. The server's
 * privileges are the barrier (the session's account has rights on its own database only, no FILE,
 * SUPER, PROCESS, RELOAD, SHUTDOWN, CREATE USER or GRANT OPTION; `local_infile` is off on both ends;
 * `secure_file_priv` points at an empty folder): files, other databases, accounts, privileges,
 * plugins and server settings are denied there (`test/sql/engine/mysql/mysql-privileges.test.ts`).
 * Refused here is only what privileges cannot express: the copy itself (`DROP/ALTER DATABASE`: the
 * session needs DROP and ALTER for its tables), its own password (`SET PASSWORD`, `ALTER USER`),
 * statements that end the connection (`COMMIT RELEASE`, `completion_type`), XA transactions (they
 * outlive the session), named locks (`GET_LOCK`: shared by every session of the server), and
 * prepared statements (which would run text built at run time; without them, and without stored
 * routines, which the account cannot create, every statement is text these checks see). Conditional
 * comments are read as code.
 */
export function checkMysqlStatement(statement: SqlStatement): MysqlStatementCheck {
  const tokens = codeTokens(statement.tokens);
  const names = tokens
    .filter((token) => token.kind === 'word' || token.kind === 'quoted-identifier')
    .map((token) => token.value.toLowerCase());
  return { ...checkTokens(tokens), names };
}
