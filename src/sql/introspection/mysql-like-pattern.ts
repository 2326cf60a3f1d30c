/** MySQL's LIKE as a regular expression: `%`, `_`, `\` escapes; case-insensitive (the names' collation). */
export function likePattern(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '\\' && i + 1 < pattern.length) {
      i++;
      source += (pattern[i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else if (char === '%') source += '.*';
    else if (char === '_') source += '.';
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'is');
}
