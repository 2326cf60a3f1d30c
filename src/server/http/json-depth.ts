/** Deepest nesting a request body or frame may have (OpenEnv's pydantic stack would fail far later). */
export const MAX_JSON_DEPTH = 64;

/**
 * True when JSON text nests objects/arrays deeper than `limit`. A scan of the text (strings skipped),
 * so a hostile body is refused before `JSON.parse` builds it.
 */
export function jsonTooDeep(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth -= 1;
    }
  }
  return false;
}
