/**
 * The Python driver's compiled code, kept from a driver started in a new sandbox and given to the next
 * starts (driver-bytecode.ts): in real bwrap sandboxes, the driver started from kept code runs as the one
 * that compiled its source; code of another interpreter, or offered by a driver of a used sandbox, is not
 * run or kept.
 */
import { afterAll, beforeEach, describe, expect } from 'vitest';
import {
  driverCodeKept,
  forgetDriverCode,
  keepDriverCode,
} from '../../../src/envs/python/driver-bytecode.js';
import { PythonInterpreter, pythonDriverSource } from '../../../src/envs/python/python-interpreter.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import type { Sandbox } from '../../../src/sandbox/sandbox.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();
const sandboxes: Sandbox[] = [];
const interpreters: PythonInterpreter[] = [];
const options = { memoryBytes: 2 ** 31 };

async function started(newSandbox: boolean): Promise<PythonInterpreter> {
  const sandbox = await provider.create({ label: 'driver-bytecode' });
  sandboxes.push(sandbox);
  const interpreter = await PythonInterpreter.start(sandbox, options, newSandbox);
  interpreters.push(interpreter);
  return interpreter;
}

/** What a few codes give: an expression, a definition and its call, an exception, a traceback's file. */
async function answers(interpreter: PythonInterpreter): Promise<unknown[]> {
  const codes = [
    '6 * 7',
    'def f(n):\n    return [n] * 2',
    'f(3)',
    '1 / 0',
    'import traceback\ntry:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print(e.__traceback__.tb_frame.f_code.co_filename)',
  ];
  const reply = await interpreter.run('agent', codes, {
    timeoutMs: 5000,
    maxOutputBytes: 10_000,
    wrap: true,
  });
  return reply.results.map((result) => [result.output, result.error, result.ok]);
}

beforeEach(() => forgetDriverCode());

afterAll(async () => {
  for (const interpreter of interpreters) interpreter.close();
  await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
  await provider.close();
});

describe("the Python driver's kept compiled code", () => {
  it('is kept from a driver of a new sandbox, and the next driver runs it the same', async ({ needs }) => {
    needs(noBwrap);
    const first = await started(true);
    expect(first.compiled).toBe(true);
    expect(driverCodeKept(pythonDriverSource())).toBe(true);
    const second = await started(true);
    expect(second.compiled).toBe(false);
    const expected = [
      ['42', '', true],
      ['', '', true],
      ['[3, 3]', '', true],
      [null, 'Error: division by zero', false],
      ['<string>', '', true],
    ];
    expect(await answers(first)).toEqual(expected);
    expect(await answers(second)).toEqual(expected);
  });

  it('is not kept from a driver started in a sandbox where something may have run', async ({ needs }) => {
    needs(noBwrap);
    const interpreter = await started(false);
    expect(interpreter.compiled).toBe(true);
    expect(driverCodeKept(pythonDriverSource())).toBe(false);
  });

  it('leaves a worker the same modules whether its driver compiled the source or was given code', async ({
    needs,
  }) => {
    needs(noBwrap);
    const modules = async (interpreter: PythonInterpreter) => {
      const reply = await interpreter.run('agent', ['import sys\nprint(sorted(sys.modules))'], {
        timeoutMs: 5000,
        maxOutputBytes: 100_000,
        wrap: false,
      });
      return reply.results[0]?.output;
    };
    const compiling = await started(true);
    expect(compiling.compiled).toBe(true);
    const given = await started(true);
    expect(given.compiled).toBe(false);
    expect(await modules(given)).toBe(await modules(compiling));
  });

  it('made by another interpreter is not run: the driver compiles its source and offers its own', async ({
    needs,
  }) => {
    needs(noBwrap);
    const foreign = Buffer.concat([Buffer.from('2.7.18 (default)\0'), Buffer.from('not marshal data')]);
    keepDriverCode(pythonDriverSource(), { code: foreign.toString('hex') }, true);
    const interpreter = await started(true);
    expect(interpreter.compiled).toBe(true);
    expect((await answers(interpreter))[0]).toEqual(['42', '', true]);
    expect((await started(true)).compiled).toBe(false);
  });
});
