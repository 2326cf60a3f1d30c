import type { DatasetSpec } from './dataset-spec.js';
import { isUpstreamFileCached } from './fetch-upstream-file.js';

/** Where a dataset stands on this machine. */
export type DatasetStatus = 'built-in' | 'cached' | 'partly cached' | 'not cached' | 'unavailable';

/** The status of a dataset, from a cheap look at the cache (sizes only; hashes are checked on use). */
export function datasetStatus(spec: DatasetSpec): DatasetStatus {
  if (spec.builtIn) return 'built-in';
  if (spec.unavailable) return 'unavailable';
  const cached = spec.files.filter(isUpstreamFileCached).length;
  if (cached === spec.files.length) return 'cached';
  return cached === 0 ? 'not cached' : 'partly cached';
}
