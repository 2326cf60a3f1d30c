import { accessSync, constants } from 'node:fs';

/** Whether this process may execute the file at `path`. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
