/** The SQL engines by name: `sqlite` (embedded, the default), `mysql` (MariaDB or MySQL), `postgres`. */
export const SQL_ENGINES = ['sqlite', 'mysql', 'postgres'] as const;

export type SqlEngineName = (typeof SQL_ENGINES)[number];

/** The URL schemes a server engine's `--db-url` takes. */
export const SQL_URL_SCHEMES: Readonly<Record<Exclude<SqlEngineName, 'sqlite'>, readonly string[]>> = {
  mysql: ['mysql:', 'mariadb:'],
  postgres: ['postgres:', 'postgresql:'],
};

export function isSqlEngineName(value: string): value is SqlEngineName {
  return (SQL_ENGINES as readonly string[]).includes(value);
}
