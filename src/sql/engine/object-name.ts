import { createHash } from 'node:crypto';

/**
 * A MySQL/PostgreSQL-safe object name from parts: lower case, `[a-z0-9_]` only, at most `max`
 * characters; when it has to be shortened or changed, a hash of the original keeps it unique.
 */
export function objectName(parts: readonly string[], max: number): string {
  const raw = parts.join('_');
  const clean = raw.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  if (clean === raw.toLowerCase() && clean.length <= max) return clean;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 8);
  return `${clean.slice(0, max - 9)}_${hash}`;
}
