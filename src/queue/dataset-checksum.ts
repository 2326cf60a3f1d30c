import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { canonicalJson } from '../agents/llm/response-cache-key.js';
import type { Dataset } from '../core/task.js';
import { sha256File } from '../datasets/sha256-file.js';

/**
 * The checksum a distributed run and each of its workers compare before a worker plays an episode:
 * SHA-256 of the canonical JSON of the loaded tasks and of the SHA-256 of each asset file (a
 * database dump, a setup script). The paths themselves are left out: every machine has its own cache.
 */
export async function datasetChecksum(dataset: Dataset): Promise<string> {
  const assets: Record<string, string> = {};
  for (const [name, path] of Object.entries(dataset.assets)) {
    assets[name] = statSync(path).isFile() ? await sha256File(path) : 'directory';
  }
  return createHash('sha256')
    .update(canonicalJson({ id: dataset.id, env: dataset.env, tasks: dataset.tasks, assets }))
    .digest('hex');
}
