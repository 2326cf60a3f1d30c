import { fileURLToPath } from 'node:url';
import { currentOwner } from '../../src/core/host/owner.js';
import { BwrapProvider } from '../../src/sandbox/index.js';
import { describeSandboxConformance } from '../../src/testkit/index.js';
import { bwrapResidue } from './bwrap-residue.js';

// The crash-owner fixture runs the compiled package (dist/): `npm test` builds it first.
const crashOwner = fileURLToPath(new URL('../fixtures/bwrap-crash-owner.js', import.meta.url));

describeSandboxConformance('bwrap', () => new BwrapProvider(), {
  host: {
    currentOwner,
    residue: bwrapResidue,
    crashOwnerCommand: [process.execPath, crashOwner],
  },
});
