import { isCodeToken, isKeyword, type SqlToken } from '../../dump/sql-token.js';
import { tokenizeSql } from '../../dump/tokenize-sql.js';

const ABORT_WORDS = new Set(['UNION', 'INTERSECT', 'EXCEPT', 'INTO', 'ROLLUP', 'FOR', 'LOCK']);

/**
 * MySQL 8 returns the groups of a `GROUP BY` without `ORDER BY` in the order its temporary table
 * produced them (first appearance); MariaDB, like MySQL 5, sorts them by the grouping key. The order
 * of result rows is part of InterCode's reward (Kendall tau), and the paper's runs were on MySQL 8,
 * so on MariaDB a top-level `SELECT … GROUP BY …` without `ORDER BY` gets `ORDER BY NULL`, which
 * makes MariaDB skip its implicit sort and return the temporary table's order, as MySQL 8 does.
 * Anything else (subqueries, UNION, `WITH ROLLUP`, `INTO`, locking reads, CTEs) is left unchanged.
 */
export function withMysql8GroupOrder(sql: string): string {
  const tokens: SqlToken[] = tokenizeSql(sql, 'mysql').filter(isCodeToken);
  if (!isKeyword(tokens[0], 'SELECT')) return sql;
  let depth = 0;
  let grouped = false;
  let limit: SqlToken | undefined;
  let last: SqlToken | undefined;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind === 'symbol') {
      if (token.text === '(') depth += 1;
      else if (token.text === ')') depth -= 1;
    }
    if (!(token.kind === 'symbol' && token.text === ';')) last = token;
    if (depth !== 0 || token.kind !== 'word') continue;
    const word = token.value.toUpperCase();
    if (ABORT_WORDS.has(word)) return sql;
    if (word === 'ORDER' && isKeyword(tokens[i + 1], 'BY')) return sql;
    if (word === 'GROUP' && isKeyword(tokens[i + 1], 'BY')) grouped = true;
    if (word === 'LIMIT' && grouped && !limit) limit = token;
  }
  if (!grouped || !last) return sql;
  if (limit) return `${sql.slice(0, limit.start)}ORDER BY NULL ${sql.slice(limit.start)}`;
  return `${sql.slice(0, last.end)} ORDER BY NULL${sql.slice(last.end)}`;
}
