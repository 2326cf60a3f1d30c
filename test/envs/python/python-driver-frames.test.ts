import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DRIVER_BOOT, driverInput } from '../../../src/envs/python/driver-bytecode.js';
import { pythonDriverSource } from '../../../src/envs/python/python-interpreter.js';
import type { Sandbox, SandboxProcess } from '../../../src/sandbox/index.js';
import { suiteSandbox } from '../../support/suite-sandbox.js';

// The Python driver's host channel at the byte level (python-driver.py's host_recv): a frame is
// `<nonce> <size>\n<size bytes of JSON>`; the nonce and its space are read in one call, the size a
// byte at a time. A frame that does not start with the session's nonce, or whose size is not a
// number, ends the driver: nothing after it is read as a request.

interface Driver {
  readonly process: SandboxProcess;
  readonly nonce: string;
  /** The next frame the driver sends (its JSON), or undefined once it has exited. */
  next(): Promise<unknown>;
}

async function startDriver(sandbox: Sandbox): Promise<Driver> {
  const process = await sandbox.spawn!([
    '/usr/bin/python3',
    '-u',
    '-I',
    '-B',
    '-c',
    DRIVER_BOOT,
    JSON.stringify({ contained: true, memory_bytes: 768 * 2 ** 20, warm: false }),
  ]);
  const nonce = randomBytes(16).toString('hex');
  let buffer = Buffer.alloc(0);
  const frames: unknown[] = [];
  let wake: (() => void) | undefined;
  let exited = false;
  process.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const newline = buffer.indexOf(10);
      if (newline < 0) break;
      const size = Number(buffer.subarray(0, newline).toString().split(' ')[1]);
      if (buffer.length < newline + 1 + size) break;
      frames.push(JSON.parse(buffer.subarray(newline + 1, newline + 1 + size).toString()));
      buffer = buffer.subarray(newline + 1 + size);
    }
    wake?.();
  });
  process.exited.then(() => {
    exited = true;
    wake?.();
  });
  process.stdin.on('error', () => {});
  process.stdin.write(driverInput(pythonDriverSource()));
  process.stdin.write(`${nonce}\n`);
  const next = async (): Promise<unknown> => {
    while (frames.length === 0 && !exited) await new Promise<void>((resolve) => (wake = resolve));
    return frames.shift();
  };
  return { process, nonce, next };
}

function frame(nonce: string, body: unknown, size?: string): string {
  const json = JSON.stringify(body);
  return `${nonce} ${size ?? Buffer.byteLength(json)}\n${json}`;
}

describe('the Python driver’s host frames (bwrap)', () => {
  const sandbox = suiteSandbox({ image: 'host' });

  it('answers frames that carry its nonce, one after another in one write', async () => {
    const driver = await startDriver(sandbox());
    expect(await driver.next()).toMatchObject({});
    driver.process.stdin.write(frame(driver.nonce, { op: 'pool' }) + frame(driver.nonce, { op: 'pool' }));
    expect(await driver.next()).toBeTypeOf('object');
    expect(await driver.next()).toBeTypeOf('object');
    driver.process.kill();
    await driver.process.exited;
  });

  it.each([
    [
      'another nonce of the same length',
      (nonce: string) => frame(nonce.replace(/^./, nonce[0] === 'a' ? 'b' : 'a'), { op: 'pool' }),
    ],
    [
      'the nonce without its space',
      (nonce: string) => `${nonce}x${frame(nonce, { op: 'pool' }).slice(nonce.length + 1)}`,
    ],
    ['a size that is not a number', (nonce: string) => frame(nonce, { op: 'pool' }, '1e3')],
  ])('ends at a frame with %s, answering nothing', async (_name, bad) => {
    const driver = await startDriver(sandbox());
    await driver.next();
    driver.process.stdin.write(bad(driver.nonce) + frame(driver.nonce, { op: 'pool' }));
    expect(await driver.next()).toBeUndefined();
    expect(await driver.process.exited).not.toBe(0);
  });
});
