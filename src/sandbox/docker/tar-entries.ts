import { SandboxError } from '../../core/errors.js';

/** One entry of a tar archive, its content in memory. */
export interface TarEntry {
  /** Path as stored (raw bytes as latin1 text, so that no name is altered by decoding). */
  readonly name: string;
  readonly type: 'file' | 'dir' | 'symlink' | 'hardlink' | 'char' | 'block' | 'fifo' | 'other';
  readonly mode: number;
  readonly linkName: string;
  readonly content: Buffer;
}

const TYPES: Record<string, TarEntry['type']> = {
  '0': 'file',
  '\0': 'file',
  '7': 'file',
  '5': 'dir',
  '2': 'symlink',
  '1': 'hardlink',
  '3': 'char',
  '4': 'block',
  '6': 'fifo',
};

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('latin1');
}

function octal(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  // GNU base-256 for large numbers.
  if (((field[0] ?? 0) & 0x80) !== 0) {
    let value = 0;
    for (let i = 1; i < field.length; i += 1) value = value * 256 + (field[i] ?? 0);
    return value;
  }
  const digits = text(block, start, length).trim();
  return digits === '' ? 0 : Number.parseInt(digits, 8);
}

function paxRecords(data: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number.parseInt(data.subarray(at, space).toString('latin1'), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString('latin1');
    const equals = record.indexOf('=');
    if (equals > 0) records[record.slice(0, equals)] = record.slice(equals + 1);
    at += length;
  }
  return records;
}

/** Parses a whole (uncompressed) tar archive. PAX and GNU long names are applied. */
export function tarEntries(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let at = 0;
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  while (at + 512 <= archive.length) {
    const block = archive.subarray(at, at + 512);
    if (block.every((byte) => byte === 0)) break;
    const typeflag = String.fromCharCode(block[156] ?? 0);
    const size = pax.size !== undefined ? Number(pax.size) : octal(block, 124, 12);
    // A size that is not a whole, non-negative number of bytes would move the parse backwards or
    // nowhere (a loop without end): the archive is malformed.
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new SandboxError('SANDBOX_IO', `malformed tar archive: entry size ${String(pax.size ?? size)}`);
    }
    const content = archive.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (typeflag === 'x') {
      pax = { ...pax, ...paxRecords(content) };
      continue;
    }
    if (typeflag === 'g') continue;
    if (typeflag === 'L') {
      longName = text(content, 0, content.length);
      continue;
    }
    if (typeflag === 'K') {
      longLink = text(content, 0, content.length);
      continue;
    }
    const prefix = text(block, 345, 155);
    const base = text(block, 0, 100);
    // PAX values are UTF-8; names elsewhere are kept as raw bytes (latin1).
    const name =
      pax.path !== undefined
        ? Buffer.from(pax.path, 'latin1').toString('latin1')
        : (longName ?? (prefix ? `${prefix}/${base}` : base));
    const linkName = pax.linkpath ?? longLink ?? text(block, 157, 100);
    entries.push({
      name,
      type: TYPES[typeflag] ?? 'other',
      mode: octal(block, 100, 8) & 0o7777,
      linkName,
      content: Buffer.from(content),
    });
    pax = {};
    longName = undefined;
    longLink = undefined;
  }
  return entries;
}
