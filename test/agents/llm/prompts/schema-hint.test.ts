import { describe, expect, it } from 'vitest';
import { schemaHint } from '../../../../src/agents/llm/prompts/schema-hint.js';

describe('schemaHint', () => {
  it('lists each table with its columns, one line each, in order', () => {
    const hint = schemaHint([
      { name: 'singer', columns: ['singer_id', 'name', 'age'] },
      { name: 'concert', columns: ['concert_id', 'year'] },
    ]);
    expect(hint).toBe(
      'The database has these tables (with their columns):\n- singer: singer_id, name, age\n- concert: concert_id, year',
    );
  });

  it('says when a table has no columns listed', () => {
    expect(schemaHint([{ name: 'empty', columns: [] }]).split('\n')[1]).toBe('- empty: (no columns listed)');
  });

  it('is empty without tables', () => {
    expect(schemaHint([])).toBe('');
  });
});
