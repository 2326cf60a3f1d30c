import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Demultiplexer } from '../../../src/sandbox/docker/supervised-exec.js';
import { tarEntries } from '../../../src/sandbox/docker/tar-entries.js';

const root = mkdtempSync(join(tmpdir(), 'intercode-tar-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const longName = `${'d'.repeat(80)}/${'f'.repeat(120)}.txt`;
mkdirSync(join(root, 'tree', 'd'.repeat(80)), { recursive: true });
writeFileSync(join(root, 'tree', 'plain.txt'), 'plain\n', { mode: 0o640 });
writeFileSync(join(root, 'tree', longName), Buffer.from([0, 1, 2, 255]));
writeFileSync(join(root, 'tree', 'ünï cödé'), 'héllo');
symlinkSync(`../${'t'.repeat(150)}`, join(root, 'tree', 'long-link'));

describe('tarEntries', () => {
  for (const format of ['gnu', 'pax'] as const) {
    it(`reads what GNU tar writes in ${format} format: long names and links, modes, bytes`, () => {
      const archive = execFileSync('tar', [`--format=${format}`, '-C', root, '-cf', '-', 'tree']);
      const entries = tarEntries(archive);
      const byName = new Map(
        entries.map((entry) => [Buffer.from(entry.name, 'latin1').toString('utf8'), entry]),
      );
      expect(byName.get('tree/')?.type ?? byName.get('tree')?.type).toBe('dir');
      expect(byName.get('tree/plain.txt')).toMatchObject({ type: 'file', mode: 0o640 });
      expect(byName.get('tree/plain.txt')?.content.toString()).toBe('plain\n');
      expect([...(byName.get(`tree/${longName}`)?.content ?? [])]).toEqual([0, 1, 2, 255]);
      expect(byName.get('tree/ünï cödé')?.content.toString()).toBe('héllo');
      expect(byName.get('tree/long-link')).toMatchObject({
        type: 'symlink',
        linkName: `../${'t'.repeat(150)}`,
      });
    });
  }
});

/** A 512-byte tar header: `name`, `typeflag`, `size` (octal), without a checksum (not checked). */
function header(name: string, typeflag: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 'latin1');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  block.write(typeflag, 156, 'latin1');
  return block;
}

const padded = (data: Buffer) => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);

describe('tarEntries against malformed archives', () => {
  for (const value of ['-1024', '1.5', 'x']) {
    it(`rejects a PAX size of ${value} as malformed (the parse would move backwards or misread)`, () => {
      const record = ` size=${value}\n`;
      const body = Buffer.from(`${record.length + String(record.length + 2).length}${record}`, 'latin1');
      const archive = Buffer.concat([
        header('pax', 'x', body.length),
        padded(body),
        header('f', '0', 0),
        Buffer.alloc(1024),
      ]);
      expect(() => tarEntries(archive)).toThrow(/malformed tar archive/);
    });
  }
});

describe('Demultiplexer', () => {
  it("splits Docker's 8-byte framed stream into stdout and stderr across any chunk boundaries", () => {
    const frame = (stream: number, text: string) => {
      const body = Buffer.from(text);
      const header = Buffer.alloc(8);
      header[0] = stream;
      header.writeUInt32BE(body.length, 4);
      return Buffer.concat([header, body]);
    };
    const stream = Buffer.concat([frame(1, 'out one '), frame(2, 'err'), frame(1, ''), frame(1, 'out two')]);
    for (const size of [1, 3, 7, 8, 9, stream.length]) {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      const demux = new Demultiplexer(
        (chunk) => out.push(Buffer.from(chunk)),
        (chunk) => err.push(Buffer.from(chunk)),
      );
      for (let at = 0; at < stream.length; at += size) demux.push(stream.subarray(at, at + size));
      expect(Buffer.concat(out).toString(), `chunks of ${size}`).toBe('out one out two');
      expect(Buffer.concat(err).toString(), `chunks of ${size}`).toBe('err');
    }
  });
});
