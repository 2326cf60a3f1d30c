import { deflateSync, gzipSync } from 'node:zlib';

/** Deterministic bytes (Mulberry32), so generated assets are the same on every machine. */
export function seededBytes(seed: number, length: number, pick: (value: number) => number): Uint8Array {
  let state = seed >>> 0;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i += 1) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    bytes[i] = pick(((t ^ (t >>> 14)) >>> 0) & 0xff);
  }
  return bytes;
}

const encoder = new TextEncoder();

/** Bytes of a text. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** ROT13 of the ASCII letters of a text. */
export function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** A gzip stream of the bytes (no name, time 0: reproducible). */
export function gzip(data: Uint8Array): Uint8Array {
  return new Uint8Array(gzipSync(data, { level: 9 }));
}

/** XOR with a repeating key. */
export function xorBytes(data: Uint8Array, key: Uint8Array): Uint8Array {
  return data.map((byte, i) => byte ^ key[i % key.length]!);
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0');
}

/** A POSIX (ustar) tar archive of regular files and folders, owned by root, time 2024-01-01. */
export function tarArchive(
  entries: readonly { path: string; data?: Uint8Array; mode?: number }[],
): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const entry of entries) {
    const folder = entry.data === undefined;
    const data = entry.data ?? new Uint8Array();
    const header = new Uint8Array(512);
    const put = (text: string, offset: number) => header.set(utf8(text), offset);
    put(folder && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path, 0);
    put(octal(entry.mode ?? (folder ? 0o755 : 0o644), 8), 100);
    put(octal(0, 8), 108);
    put(octal(0, 8), 116);
    put(octal(data.length, 12), 124);
    put(octal(1704067200, 12), 136);
    put('        ', 148);
    put(folder ? '5' : '0', 156);
    put('ustar\u000000', 257);
    put('root', 265);
    put('root', 297);
    const sum = header.reduce((total, byte) => total + byte, 0);
    put(`${octal(sum, 7)}\u0000 `, 148);
    blocks.push(header, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  return concat(blocks);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function u32(value: number): Uint8Array {
  return new Uint8Array([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const body = concat([utf8(type), data]);
  return concat([u32(data.length), body, u32(crc32(body))]);
}

/** A small grey-gradient PNG image carrying `text` as tEXt metadata chunks (keyword → value). */
export function pngWithText(
  width: number,
  height: number,
  text: Readonly<Record<string, string>>,
): Uint8Array {
  const rows: number[] = [];
  for (let y = 0; y < height; y += 1) {
    rows.push(0);
    for (let x = 0; x < width; x += 1) rows.push((x * 255) / Math.max(1, width - 1));
  }
  const header = concat([u32(width), u32(height), new Uint8Array([8, 0, 0, 0, 0])]);
  const idat = new Uint8Array(deflateSync(new Uint8Array(rows)));
  const textChunks = Object.entries(text).map(([keyword, value]) =>
    chunk('tEXt', concat([utf8(keyword), new Uint8Array([0]), utf8(value)])),
  );
  return concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...textChunks,
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array()),
  ]);
}
