import { fileURLToPath } from 'node:url';
import { beforeAll } from 'vitest';
import { currentOwner } from '../../src/core/host/owner.js';
import { BwrapProvider, ensureDebianImage } from '../../src/sandbox/index.js';
import { describeSandboxConformance } from '../../src/testkit/index.js';
import { bwrapResidue } from './bwrap-residue.js';

// The same conformance suite as the host image, on the Debian root built by mmdebstrap (`bash`
// profile). The first run builds the image (about a minute); later runs find it in the cache.
beforeAll(async () => {
  await ensureDebianImage('bash');
}, 600_000);

const crashOwner = fileURLToPath(new URL('../fixtures/bwrap-crash-owner.js', import.meta.url));

describeSandboxConformance('bwrap (debian image)', () => new BwrapProvider(), {
  spec: { image: 'debian' },
  host: {
    currentOwner,
    residue: bwrapResidue,
    crashOwnerCommand: [process.execPath, crashOwner],
  },
});
