import { describe, expect, it } from 'vitest';
import { OutputBuffer } from '../../src/sandbox/output-buffer.js';

describe('OutputBuffer', () => {
  it('keeps everything under the cap', () => {
    const buffer = new OutputBuffer(10);
    buffer.push(Buffer.from('hello'));
    buffer.push(Buffer.from('world'));
    expect(buffer.result()).toEqual({ text: 'helloworld' });
  });

  it('keeps head and tail over the cap and records the original size', () => {
    const buffer = new OutputBuffer(8);
    for (const chunk of ['abc', 'def', 'ghi', 'jkl', 'mno']) buffer.push(Buffer.from(chunk));
    const { text, truncated } = buffer.result();
    expect(truncated).toEqual({ originalBytes: 15 });
    expect(text.startsWith('abcd\n[... 7 bytes of output omitted: 15 bytes in total ...]\n')).toBe(true);
    expect(text.endsWith('lmno')).toBe(true);
  });

  it('handles one chunk larger than the whole cap', () => {
    const buffer = new OutputBuffer(6);
    buffer.push(Buffer.from('0123456789'));
    expect(buffer.bytes().toString()).toBe('012789');
  });

  it('decodes invalid UTF-8 without throwing', () => {
    const buffer = new OutputBuffer(100);
    buffer.push(Buffer.from([0x61, 0xff, 0xfe, 0x62]));
    expect(buffer.result().text).toBe('a\uFFFD\uFFFDb');
  });
});
