import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type Docker from 'dockerode';
import { SandboxError } from '../../core/errors.js';
import { MAX_READ_BYTES } from '../base-sandbox.js';
import type { FileChange } from '../sandbox.js';
import { type TarEntry, tarEntries } from './tar-entries.js';

/** What Docker's archive API says about one path (the final symbolic link is not followed). */
export interface PathStat {
  readonly type: FileChange['type'];
  /** Permission bits. */
  readonly mode: number;
  readonly size: number;
  readonly linkTarget: string;
}

/** Go's os.FileMode bits, as Docker reports them. */
const bit = (mode: number, n: number) => Math.floor(mode / 2 ** n) % 2 === 1;

function typeOf(mode: number): FileChange['type'] {
  if (bit(mode, 31)) return 'dir';
  if (bit(mode, 27)) return 'symlink';
  // Device, named pipe, socket, character device, irregular.
  if ([26, 25, 24, 21, 19].some((n) => bit(mode, n))) return 'other';
  return 'file';
}

/** Permission bits with set-user-id, set-group-id and sticky, as stat(2) gives them. */
function permissionsOf(mode: number): number {
  return (
    (mode % 0o1000) +
    (bit(mode, 23) ? 0o4000 : 0) +
    (bit(mode, 22) ? 0o2000 : 0) +
    (bit(mode, 20) ? 0o1000 : 0)
  );
}

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

/** The stat of `path` in `container`, or null when it does not exist. */
export async function statPath(container: Docker.Container, path: string): Promise<PathStat | null> {
  try {
    const response = (await container.infoArchive({ path })) as NodeJS.ReadableStream & {
      headers?: Record<string, string>;
    };
    (response as NodeJS.ReadableStream & { resume?: () => void }).resume?.();
    const header = response.headers?.['x-docker-container-path-stat'];
    if (!header) return null;
    const stat = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as {
      mode: number;
      size: number;
      linkTarget?: string;
    };
    return {
      type: typeOf(stat.mode),
      mode: permissionsOf(stat.mode),
      size: stat.size,
      linkTarget: stat.linkTarget ?? '',
    };
  } catch (error) {
    const status = statusOf(error);
    if (status === 404 || status === 400) return null;
    throw ioFailure(error, `cannot stat ${path}`);
  }
}

/** The tar of `path` (recursively for a directory), parsed; null when it does not exist. */
export async function readArchive(container: Docker.Container, path: string): Promise<TarEntry[] | null> {
  let stream: NodeJS.ReadableStream;
  try {
    stream = await container.getArchive({ path });
  } catch (error) {
    const status = statusOf(error);
    if (status === 404 || status === 400) return null;
    throw ioFailure(error, `cannot read ${path}`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return tarEntries(Buffer.concat(chunks));
}

/** The content of a file in `container`, following symbolic links (`Sandbox.readFile`). */
export async function readContainerFile(container: Docker.Container, path: string): Promise<Uint8Array> {
  let current = posix.resolve('/', path);
  for (let hops = 0; hops < 40; hops += 1) {
    const stat = await statPath(container, current);
    if (!stat) throw new SandboxError('SANDBOX_IO', `cannot read ${path}: No such file or directory`);
    if (stat.type === 'symlink') {
      current = posix.resolve(posix.dirname(current), stat.linkTarget);
      continue;
    }
    if (stat.type !== 'file') throw new SandboxError('SANDBOX_IO', `cannot read ${path}: not a regular file`);
    if (stat.size > MAX_READ_BYTES) {
      throw new SandboxError('SANDBOX_IO', `cannot read ${path}: larger than ${MAX_READ_BYTES} bytes`);
    }
    const entries = await readArchive(container, current);
    const entry = entries?.[0];
    if (entry?.type !== 'file') {
      throw new SandboxError('SANDBOX_IO', `cannot read ${path}: No such file or directory`);
    }
    return new Uint8Array(entry.content);
  }
  throw new SandboxError('SANDBOX_IO', `cannot read ${path}: too many levels of symbolic links`);
}

/** Content digests of paths in `container`, as `Sandbox.digest` gives them (see `digestEntries`). */
export async function digestContainerPaths(
  container: Docker.Container,
  paths: readonly string[],
): Promise<Record<string, string | null>> {
  const linkCache = new Map<string, Promise<boolean>>();
  const isLink = (path: string) => {
    let known = linkCache.get(path);
    if (!known) {
      known = statPath(container, path).then((stat) => stat?.type === 'symlink');
      linkCache.set(path, known);
    }
    return known;
  };
  const values = await pool(paths, 8, async (path): Promise<string | null> => {
    const absolute = posix.resolve('/', path);
    // Like bwrap: a path reached through a symbolic link in a parent folder does not exist.
    const parts = absolute.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i += 1) {
      if (await isLink(`/${parts.slice(0, i).join('/')}`)) return null;
    }
    const entries = await readArchive(container, absolute);
    return entries ? digestEntries(entries) : null;
  });
  return Object.fromEntries(paths.map((path, index) => [path, values[index] ?? null]));
}

export function ioFailure(error: unknown, what: string): SandboxError {
  if (error instanceof SandboxError) return error;
  const status = statusOf(error);
  const message =
    (error as { json?: { message?: string } }).json?.message ?? (error as Error).message ?? String(error);
  if (status === 404 && /no such container/i.test(message)) {
    return new SandboxError('SANDBOX_CLOSED', `${what}: the sandbox is gone`, { cause: error });
  }
  return new SandboxError('SANDBOX_IO', `${what}: ${message.trim()}`, { cause: error });
}

/** Runs `work` over `items` with at most `width` at a time. */
export async function pool<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** One entry of Docker's change list: 0 modified, 1 added, 2 deleted. */
interface DockerChange {
  readonly Path: string;
  readonly Kind: 0 | 1 | 2;
}

/** The raw change list of a container's writable layer. */
export async function containerChanges(container: Docker.Container): Promise<DockerChange[]> {
  let raw: unknown;
  try {
    raw = await container.changes();
  } catch (error) {
    throw ioFailure(error, 'cannot list changes');
  }
  if (Buffer.isBuffer(raw)) raw = JSON.parse(raw.toString('utf8'));
  return Array.isArray(raw) ? (raw as DockerChange[]) : [];
}

async function sameFile(
  current: Docker.Container,
  pristine: Docker.Container,
  path: string,
  now: PathStat,
  before: PathStat,
): Promise<boolean> {
  if (now.type !== before.type || now.mode !== before.mode) return false;
  if (now.type === 'symlink') return now.linkTarget === before.linkTarget;
  if (now.type !== 'file') return true;
  if (now.size !== before.size) return false;
  const [a, b] = await Promise.all([readArchive(current, path), readArchive(pristine, path)]);
  const left = a?.[0]?.content;
  const right = b?.[0]?.content;
  return left !== undefined && right !== undefined && left.equals(right);
}

/**
 * Added, modified and deleted paths of `current` against its image (read from `pristine`, a
 * never-started container of the same image). Docker lists every copied-up file as changed; a file
 * whose type, permissions and content equal the image's is not, and directories only change type.
 */
export async function diffContainer(
  current: Docker.Container,
  pristine: Docker.Container,
): Promise<FileChange[]> {
  const changes = await containerChanges(current);
  const classified = await pool(changes, 8, async (change): Promise<FileChange | null> => {
    const path = change.Path;
    if (change.Kind === 1) {
      const now = await statPath(current, path);
      return now ? { path, kind: 'added', type: now.type } : null;
    }
    if (change.Kind === 2) {
      const before = await statPath(pristine, path);
      return before ? { path, kind: 'deleted', type: before.type } : null;
    }
    const [now, before] = await Promise.all([statPath(current, path), statPath(pristine, path)]);
    if (!now) return before ? { path, kind: 'deleted', type: before.type } : null;
    if (!before) return { path, kind: 'added', type: now.type };
    if (now.type === 'dir' && before.type === 'dir') return null;
    return (await sameFile(current, pristine, path, now, before))
      ? null
      : { path, kind: 'modified', type: now.type };
  });
  return classified
    .filter((change): change is FileChange => change !== null)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

/**
 * Digests in the bwrap provider's format (`file:<md5>`, `link:<target>`, `dir:<md5 of the sorted
 * entries>`, `other:<octal type>`), computed from the archive of one path.
 */
export function digestEntries(entries: readonly TarEntry[]): string | null {
  const first = entries[0];
  if (!first) return null;
  const strip = (name: string) => name.replace(/\/+$/, '');
  const root = strip(first.name);
  const byName = new Map<string, TarEntry>();
  const children = new Map<string, string[]>();
  for (const entry of entries) {
    const name = strip(entry.name);
    byName.set(name, entry);
    if (name === root) continue;
    const slash = name.lastIndexOf('/');
    const parent = slash < 0 ? '' : name.slice(0, slash);
    const list = children.get(parent) ?? [];
    list.push(name);
    children.set(parent, list);
  }
  // Raw bytes (latin1 strings): the link target and names are hashed as stored.
  const digest = (name: string): string => {
    let entry = byName.get(name)!;
    if (entry.type === 'hardlink') entry = byName.get(strip(entry.linkName)) ?? entry;
    switch (entry.type) {
      case 'file':
      case 'hardlink':
        return `file:${md5(entry.content)}`;
      case 'symlink':
        return `link:${entry.linkName}`;
      case 'dir': {
        const hash = createHash('md5');
        const names = (children.get(name) ?? []).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        for (const child of names) {
          const base = child.slice(child.lastIndexOf('/') + 1);
          hash.update(Buffer.from(`${base}\0${digest(child)}\n`, 'latin1'));
        }
        return `dir:${hash.digest('hex')}`;
      }
      case 'fifo':
        return 'other:10000';
      case 'char':
        return 'other:20000';
      case 'block':
        return 'other:60000';
      default:
        return 'other:0';
    }
  };
  // Names and link targets were kept as raw bytes; the result is text.
  return Buffer.from(digest(root), 'latin1').toString('utf8');
}
