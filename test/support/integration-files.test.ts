import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { INTEGRATION_FILES } from './integration-files.js';
import { PROJECT_ROOT } from './project.js';

it('lists only test files that exist, once each (a renamed file would fall into the unit project)', () => {
  expect(INTEGRATION_FILES.filter((path) => !existsSync(join(PROJECT_ROOT, path)))).toEqual([]);
  expect(new Set(INTEGRATION_FILES).size).toBe(INTEGRATION_FILES.length);
  expect(INTEGRATION_FILES.every((path) => path.endsWith('.test.ts'))).toBe(true);
});
