import { chmodSync, copyFileSync, linkSync, lstatSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from '../../core/errors.js';

/** Where a sandbox's shell controller binary appears inside it (on bwrap's private /dev tmpfs). */
export const CONTROLLER_PATH = '/dev/.intercode-shell';

/** A host directory bound read-only into a sandbox: at the same path, or `{ source, target }`. */
export type Bind = string | { readonly source: string; readonly target: string };

/**
 * Copies the image's bash to `<dir>/shell` with mode 0111 (execute only) and returns the copy.
 *
 * Bound read-only into the sandbox and started from there, it gives a **non-dumpable** controller:
 * execve leaves a process non-dumpable when its binary is not readable by it, and no process of the
 * sandbox may read it (no capabilities, so no DAC override). A non-dumpable process's
 * `/proc/<pid>/mem`, `/proc/<pid>/fd`, `pidfd_getfd` and ptrace are closed to processes of the same
 * user without CAP_SYS_PTRACE. The bash comes from the image (its libraries are the image's), found
 * as the sandbox would see `/usr/bin/bash` or `/bin/bash`: through the binds, then the layers, top
 * first, without following symbolic links on the host.
 */
export function prepareControllerBinary(
  dir: string,
  lowers: readonly string[],
  binds: readonly Bind[],
): string {
  const source = imageBash(lowers, binds);
  if (!source) {
    throw new SandboxError(
      'SANDBOX_START_FAILED',
      'the image has no /usr/bin/bash or /bin/bash for its shell',
    );
  }
  const target = join(dir, 'shell');
  // Sandboxes of the same image share one inode (hard links), so its pages are shared too.
  const shared = copies.get(source);
  if (shared) {
    try {
      linkSync(shared, target);
      return target;
    } catch {
      // That sandbox is gone: this copy becomes the one to link.
    }
  }
  const partial = `${target}.partial`;
  copyFileSync(source, partial);
  chmodSync(partial, 0o111);
  renameSync(partial, target);
  copies.set(source, target);
  return target;
}

/** A live execute-only copy per image bash, for the next sandbox of the same image to link. */
const copies = new Map<string, string>();

function imageBash(lowers: readonly string[], binds: readonly Bind[]): string | undefined {
  for (const path of ['usr/bin/bash', 'bin/bash']) {
    for (const bind of binds) {
      const { source, target } = typeof bind === 'string' ? { source: bind, target: bind } : bind;
      const prefix = `${target.replace(/\/+$/, '')}/`;
      if (`/${path}`.startsWith(prefix) && regularFile(join(source, `/${path}`.slice(prefix.length)))) {
        return join(source, `/${path}`.slice(prefix.length));
      }
    }
    for (const lower of lowers) {
      if (regularFile(join(lower, path), lower)) return join(lower, path);
    }
  }
  return undefined;
}

/** A regular file whose path under `root` has no symbolic link (the whole path when no root). */
function regularFile(path: string, root?: string): boolean {
  try {
    if (root) {
      let at = root;
      for (const part of path.slice(root.length).split('/').filter(Boolean).slice(0, -1)) {
        at = join(at, part);
        if (!lstatSync(at).isDirectory()) return false;
      }
    }
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
