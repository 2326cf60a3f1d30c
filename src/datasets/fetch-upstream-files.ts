import { ensureUpstreamFile, type UpstreamFileResult } from './fetch-upstream-file.js';

/** Downloads several pinned upstream files (a few at a time); returns their local paths by upstream path. */
export async function fetchUpstreamFiles(
  paths: readonly string[],
  options: { readonly onFile?: (result: UpstreamFileResult) => void; readonly concurrency?: number } = {},
): Promise<Record<string, string>> {
  const local: Record<string, string> = {};
  const queue = [...paths];
  const worker = async (): Promise<void> => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const result = await ensureUpstreamFile(path);
      local[path] = result.localPath;
      options.onFile?.(result);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 6, queue.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return local;
}
