/**
 * @deprecated The old home of the CLI test helpers, kept so that imports not yet converted still work:
 * use `test/support/` (the `cli` fixture of `fixtures.ts` runs the CLI with the file's cache).
 */
export {
  type CliOptions,
  type CliResult,
  expectOneLineError,
  intercode,
  startIntercode,
} from '../support/cli-runner.js';
export { jsonLines } from '../support/json-lines.js';
export { ownerOf } from '../support/owner-of.js';
export { BIN } from '../support/project.js';
export { waitFor } from '../support/wait-for.js';
