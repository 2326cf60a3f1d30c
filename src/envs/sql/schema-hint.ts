import type { Task } from '../../core/task.js';

/**
 * The schema hint of the paper's Table 5 ("handicap"): every table of the task's database with its
 * columns, one line each, written for this project.
 */
export function schemaHint(task: Task): string | undefined {
  const tables = task.meta.db_tables;
  if (typeof tables !== 'object' || tables === null) return undefined;
  const lines = Object.entries(tables as Record<string, unknown>).map(
    ([table, columns]) => `- ${table}: ${Array.isArray(columns) ? columns.join(', ') : String(columns)}`,
  );
  return lines.length > 0 ? `Tables of this database and their columns:\n${lines.join('\n')}` : undefined;
}
