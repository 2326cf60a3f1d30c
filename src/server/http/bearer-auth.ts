import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks a bearer token in constant time (both sides hashed first, so neither the length nor a common
 * prefix leaks through timing). `authorization` is the header; `queryToken` the WS URL's `?token=`.
 */
export function tokenMatches(
  expected: string,
  authorization: string | undefined,
  queryToken?: string | null,
): boolean {
  const given = bearerOf(authorization) ?? queryToken ?? undefined;
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

function bearerOf(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim();
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
