import { describe, expect } from 'vitest';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

const INVALID_SPEC = { name: 'SandboxError', code: 'SANDBOX_INVALID_SPEC' };

/** What tells images apart: the programs in /usr/bin and the release the root says it is. */
async function fingerprint(sandbox: Sandbox): Promise<string> {
  const result = await sandbox.exec('ls -A /usr/bin | md5sum; cat /etc/os-release 2>&1 | md5sum');
  expect(result.exitCode, result.output).toBe(0);
  return result.output;
}

/** The backend's default image, and the up-front check of image names. */
export function imageCases(it: ConformanceTest, context: ConformanceContext): void {
  const { spec } = context.options;

  describe('images', () => {
    it("runs the provider's defaultImage when the spec names no image", async ({ open }) => {
      const provider = context.provider();
      expect(provider.defaultImage).toMatch(/\S/);
      expect(() => provider.checkImage(provider.defaultImage)).not.toThrow();
      const unnamed = await fingerprint(await open({ image: undefined }));
      expect(unnamed).toBe(await fingerprint(await open({ image: provider.defaultImage })));
      // The fingerprint does tell images apart: the suite's own image, when another, differs.
      if (spec.image !== undefined && spec.image !== provider.defaultImage) {
        expect(unnamed).not.toBe(await fingerprint(await open()));
      }
    });

    it('checkImage rejects names it cannot run in one line, as create() does, and creates nothing', async ({
      open,
    }) => {
      const provider = context.provider();
      if (spec.image !== undefined) expect(() => provider.checkImage(spec.image!)).not.toThrow();
      for (const image of ['no-such-image-kind', 'debian:no-such-profile', '']) {
        let thrown: unknown;
        try {
          provider.checkImage(image);
        } catch (error) {
          thrown = error;
        }
        expect(thrown, `checkImage(${JSON.stringify(image)})`).toMatchObject(INVALID_SPEC);
        expect((thrown as Error).message).not.toContain('\n');
        await expect(open({ image })).rejects.toMatchObject(INVALID_SPEC);
      }
    });
  });
}
