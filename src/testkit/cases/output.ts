import { describe, expect } from 'vitest';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

const FLOOD_BYTES = 200_000_000;
const FLOOD = `echo HEAD; head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' a; echo TAIL`;
/** Room for the one-line marker that says where bytes were dropped. */
const MARKER_ROOM = 256;

/** Output that is binary, invalid UTF-8 or far too large. */
export function outputCases(it: ConformanceTest, context: ConformanceContext): void {
  describe('output', () => {
    it('returns binary and invalid UTF-8 output as a string without throwing', async ({ sandbox }) => {
      for (const run of [
        (command: string) => sandbox.session().run(command),
        (command: string) => sandbox.exec(command),
      ]) {
        const random = await run('head -c 100000 /dev/urandom');
        expect(typeof random.output).toBe('string');
        expect(random.output.length).toBeGreaterThan(50_000);
        expect(random.exitCode).toBe(0);
        const invalid = await run("printf 'ok\\377\\376end'");
        expect(invalid.output).toBe('ok\uFFFD\uFFFDend');
      }
      expect((await sandbox.session().run('echo still-framed')).output).toBe('still-framed\n');
    });

    it('caps 200 MB of output at the default cap, keeping head and tail', async ({ sandbox }) => {
      const cap = context.options.maxOutputBytes;
      for (const run of [
        () => sandbox.session().run(FLOOD, { timeoutMs: 30_000 }),
        () => sandbox.exec(FLOOD, { timeoutMs: 30_000 }),
      ]) {
        const result = await run();
        expect(result).toMatchObject({ exitCode: 0, timedOut: false });
        expect(result.truncated).toEqual({ originalBytes: FLOOD_BYTES + 'HEAD\n'.length + 'TAIL\n'.length });
        expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(cap + MARKER_ROOM);
        expect(Buffer.byteLength(result.output)).toBeGreaterThanOrEqual(cap * 0.9);
        expect(result.output.startsWith('HEAD\naaaa')).toBe(true);
        expect(result.output.endsWith('aaaaTAIL\n')).toBe(true);
      }
      const next = await sandbox.session().run('echo small');
      expect(next.output).toBe('small\n');
      expect(next.truncated).toBeUndefined();
    });
  });
}
