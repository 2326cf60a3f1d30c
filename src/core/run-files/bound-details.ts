/** Longest string kept whole in recorded details, in UTF-8 bytes (16 KiB). */
export const DETAILS_MAX_STRING_BYTES = 16 * 1024;
/** Most entries of an array (or keys of an object) kept in recorded details. */
export const DETAILS_MAX_ENTRIES = 500;
/** Deepest nesting kept in recorded details (the details object itself is depth 1). */
export const DETAILS_MAX_DEPTH = 8;
/** UTF-8 bytes of string text kept in one details object in all: past it, strings are cut to nothing. */
export const DETAILS_MAX_TOTAL_BYTES = 256 * 1024;

interface Budget {
  /** String bytes still allowed in the whole result. */
  bytes: number;
}

/**
 * `text` cut to `limit` UTF-8 bytes (never inside a character), followed by `…[cut N bytes]` naming
 * how many bytes were left out; as it is when it fits.
 */
function boundString(text: string, budget: Budget): string {
  const limit = Math.max(0, Math.min(DETAILS_MAX_STRING_BYTES, budget.bytes));
  // A UTF-16 unit is at most 3 UTF-8 bytes: short strings need no count.
  const size = text.length * 3 <= limit ? text.length : Buffer.byteLength(text, 'utf8');
  if (size <= limit) {
    budget.bytes -= size;
    return text;
  }
  const bytes = Buffer.from(text, 'utf8');
  let end = limit;
  // Back off to the first byte of a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  budget.bytes -= end;
  return `${bytes.subarray(0, end).toString('utf8')}…[cut ${bytes.length - end} bytes]`;
}

/** A number as JSON can hold it: NaN and the infinities become their names. */
function boundNumber(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

/** Whether `value` has no JSON form and is left out of an object (as `JSON.stringify` does). */
function dropped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function bound(value: unknown, depth: number, seen: Set<object>, budget: Budget): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return boundString(value, budget);
  if (typeof value === 'number') return boundNumber(value);
  if (typeof value === 'bigint') return value.toString();
  if (dropped(value)) return null;
  const object = value as object;
  if (object instanceof Date) {
    return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
  }
  if (ArrayBuffer.isView(object)) {
    const bytes = Buffer.from(object.buffer, object.byteOffset, object.byteLength);
    return boundString(`0x${bytes.toString('hex')}`, budget);
  }
  if (seen.has(object)) return '…[cut: cycle]';
  if (depth > DETAILS_MAX_DEPTH) return `…[cut: nested deeper than ${DETAILS_MAX_DEPTH}]`;
  seen.add(object);
  try {
    if (Array.isArray(object) || object instanceof Set) {
      const items = [...(object as Iterable<unknown>)];
      const out = items.slice(0, DETAILS_MAX_ENTRIES).map((item) => bound(item, depth + 1, seen, budget));
      if (items.length > DETAILS_MAX_ENTRIES)
        out.push(`…[cut ${items.length - DETAILS_MAX_ENTRIES} entries]`);
      return out;
    }
    const entries =
      object instanceof Map
        ? [...object].map(([key, item]) => [String(key), item] as const)
        : Object.entries(object);
    return boundEntries(entries, depth, seen, budget);
  } finally {
    seen.delete(object);
  }
}

function boundEntries(
  entries: readonly (readonly [string, unknown])[],
  depth: number,
  seen: Set<object>,
  budget: Budget,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const [index, [key, item]] of entries.entries()) {
    if (dropped(item)) continue;
    if (kept === DETAILS_MAX_ENTRIES) {
      out['…'] = `…[cut ${entries.length - index} keys]`;
      break;
    }
    out[key] = bound(item, depth + 1, seen, budget);
    kept += 1;
  }
  return out;
}

/**
 * A score's `details` as a turn of `episodes.jsonl` records it: plain JSON whose size is bounded,
 * so that a record never explodes. Strings over 16 KiB (UTF-8) are cut and end with
 * `…[cut N bytes]`; arrays over 500 entries keep the first 500 and a last entry `…[cut N entries]`;
 * objects over 500 keys keep the first 500 and a key `…`; what is nested deeper than 8 levels, or
 * refers back to an enclosing object, becomes a `…[cut: …]` string; past 256 KiB of string text in
 * all, further strings are cut to their mark. Non-JSON values: `undefined`, functions and symbols
 * are left out of objects (`null` in arrays), bigints become decimal strings, NaN and the infinities
 * their names, dates ISO strings, byte arrays `0x…` hex strings, sets arrays, maps objects.
 * Undefined or empty details give undefined (nothing recorded).
 */
export function boundDetails(
  details: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  if (details === undefined || details === null) return undefined;
  const out = bound(details, 1, new Set(), { bytes: DETAILS_MAX_TOTAL_BYTES });
  if (typeof out !== 'object' || out === null || Array.isArray(out)) return { value: out };
  return Object.keys(out).length > 0 ? (out as Record<string, unknown>) : undefined;
}
