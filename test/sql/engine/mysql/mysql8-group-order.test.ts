import { describe, expect, it } from 'vitest';
import { withMysql8GroupOrder } from '../../../../src/sql/engine/mysql/mysql8-group-order.js';

describe('withMysql8GroupOrder', () => {
  it('adds ORDER BY NULL to a top-level GROUP BY without ORDER BY, before LIMIT and a trailing semicolon', () => {
    expect(withMysql8GroupOrder('SELECT a, count(*) FROM t GROUP BY a')).toBe(
      'SELECT a, count(*) FROM t GROUP BY a ORDER BY NULL',
    );
    expect(withMysql8GroupOrder('SELECT a FROM t GROUP BY a HAVING count(*) > 1 LIMIT 3;')).toBe(
      'SELECT a FROM t GROUP BY a HAVING count(*) > 1 ORDER BY NULL LIMIT 3;',
    );
    expect(withMysql8GroupOrder('select a from t group by a -- why\n')).toBe(
      'select a from t group by a ORDER BY NULL -- why\n',
    );
  });

  it('leaves queries alone that order, combine, lock or group only inside a subquery', () => {
    for (const sql of [
      'SELECT a FROM t GROUP BY a ORDER BY count(*) DESC LIMIT 1',
      'SELECT a FROM t GROUP BY a UNION SELECT b FROM u GROUP BY b',
      'SELECT a FROM t GROUP BY a WITH ROLLUP',
      'SELECT a FROM t GROUP BY a FOR UPDATE',
      'SELECT x FROM (SELECT a AS x FROM t GROUP BY a) AS s',
      'WITH c AS (SELECT 1) SELECT * FROM c',
      'DELETE FROM t',
      "SELECT 'GROUP BY' FROM t",
    ]) {
      expect(withMysql8GroupOrder(sql)).toBe(sql);
    }
  });
});
