import { ensureUpstreamFile, type UpstreamFileResult } from './fetch-upstream-file.js';

/**
 * Downloads several pinned upstream files (a few at a time); returns their local paths by upstream
 * path. After a failure no further download starts; the ones under way finish, and the error thrown is
 * that of the first failing file in the order given, so the same missing files always give the same
 * message, whichever download happened to fail first.
 */
export async function fetchUpstreamFiles(
  paths: readonly string[],
  options: { readonly onFile?: (result: UpstreamFileResult) => void; readonly concurrency?: number } = {},
): Promise<Record<string, string>> {
  const local: Record<string, string> = {};
  const failures = new Map<number, unknown>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (failures.size === 0 && next < paths.length) {
      const index = next++;
      const path = paths[index] as string;
      try {
        const result = await ensureUpstreamFile(path);
        local[path] = result.localPath;
        options.onFile?.(result);
      } catch (error) {
        failures.set(index, error);
      }
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 6, paths.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  return local;
}
