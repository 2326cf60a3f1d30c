import pg from 'pg';

/** Type OIDs of PostgreSQL's built-in types that need a decision. */
const OID = {
  int8: 20,
  int2: 21,
  int4: 23,
  oid: 26,
  json: 114,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  numeric: 1700,
  jsonb: 3802,
} as const;

const INTEGERS = new Set<number>([OID.int8, OID.int2, OID.int4, OID.oid]);
const AS_TEXT = new Set<number>([
  OID.json,
  OID.jsonb,
  OID.date,
  OID.time,
  OID.timestamp,
  OID.timestamptz,
  OID.interval,
  OID.timetz,
  OID.numeric,
]);

const toBigInt = (text: string) => BigInt(text);
const asText = (text: string) => text;

/**
 * How result values are converted (pg's `types` option), so that no precision is lost and every
 * type stays distinguishable, for the mapping to what Python's `psycopg2` returns:
 * - `int2`, `int4`, `int8`, `oid` → `bigint` (pg's default turns `int8` into a string and `int4`
 *   into a `number` that looks like a float);
 * - `numeric` → `string`, the server's text (`'37.0000000000000000'`);
 * - `float4`, `float8` → `number`; `bool` → `boolean`; `bytea` → `Buffer`;
 * - `date`, `timestamp`, `timestamptz`, `time`, `timetz`, `interval` → `string` as the server writes
 *   it (pg's default makes a JS `Date` in the client's time zone and drops microseconds);
 * - `json`, `jsonb` → `string` (not parsed);
 * - text types (`text`, `varchar`, `bpchar`, `citext`, `name`) and everything else → `string`.
 * The column types go with the rows (`columnTypes`).
 */
export const postgresTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (INTEGERS.has(oid)) return toBigInt;
    if (AS_TEXT.has(oid)) return asText;
    return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  },
};

const BUILTIN_NAMES = new Map<number, string>(
  Object.entries(pg.types.builtins).map(([name, oid]) => [oid as number, name.toLowerCase()]),
);

/**
 * The name of a type (`pg_type.typname`: `int4`, `numeric`, `text`, `citext`, …): built-in types
 * from pg's table, others (extensions, types the session made) from `known` (filled from
 * `pg_type` by the session), else `oid<N>`.
 */
export function postgresTypeName(oid: number, known: ReadonlyMap<number, string>): string {
  return BUILTIN_NAMES.get(oid) ?? known.get(oid) ?? `oid${oid}`;
}

/** True when `postgresTypeName` needs a look-up in `pg_type` for this OID. */
export function isBuiltinType(oid: number): boolean {
  return BUILTIN_NAMES.has(oid);
}
