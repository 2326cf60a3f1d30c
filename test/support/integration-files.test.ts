import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { expect, it } from 'vitest';
import { INTEGRATION_FILES } from './integration-files.js';
import { PROJECT_ROOT } from './project.js';

it('lists only test files that exist, once each (a renamed file would fall into the unit project)', () => {
  expect(INTEGRATION_FILES.filter((path) => !existsSync(join(PROJECT_ROOT, path)))).toEqual([]);
  expect(new Set(INTEGRATION_FILES).size).toBe(INTEGRATION_FILES.length);
  expect(INTEGRATION_FILES.every((path) => path.endsWith('.test.ts'))).toBe(true);
});

it('lists every test file that opens a sandbox provider (the unit project runs without root)', () => {
  const tests = readdirSync(join(PROJECT_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => `test/${path.split(sep).join('/')}`);
  const opening = tests.filter((path) =>
    // Directly, or through the BashEnv tests' demo/bash fixture or the PythonEnv tests' suite.
    /\bnew (Bwrap|Docker)Provider\(|\buseDemoBash\(|\bpythonEnvSuite\(/.test(
      readFileSync(join(PROJECT_ROOT, path), 'utf8'),
    ),
  );
  expect(opening.length).toBeGreaterThan(10);
  expect(opening.filter((path) => !INTEGRATION_FILES.includes(path))).toEqual([]);
});
