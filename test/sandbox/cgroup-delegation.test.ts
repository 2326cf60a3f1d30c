import { describe, expect, it } from 'vitest';
import { type CgroupDirState, chooseDelegatedBase, ownV2Path } from '../../src/sandbox/cgroup-delegation.js';

const ALL = ['cpuset', 'cpu', 'io', 'memory', 'pids'];

/** A user's systemd tree: root-owned slices above `user@1000.service`, which is delegated. */
function systemdTree(delegated: Partial<CgroupDirState> = {}): Record<string, CgroupDirState> {
  const rootOwned: CgroupDirState = {
    writable: false,
    procsWritable: false,
    subtreeWritable: false,
    controllers: ALL,
    subtreeControl: ALL,
  };
  const userOwned: CgroupDirState = {
    writable: true,
    procsWritable: true,
    subtreeWritable: true,
    controllers: ALL,
    subtreeControl: ['cpu', 'memory', 'pids'],
  };
  return {
    '/user.slice': rootOwned,
    '/user.slice/user-1000.slice': rootOwned,
    '/user.slice/user-1000.slice/user@1000.service': { ...userOwned, ...delegated },
    '/user.slice/user-1000.slice/user@1000.service/app.slice': userOwned,
    '/user.slice/user-1000.slice/user@1000.service/app.slice/run.scope': userOwned,
  };
}

const OWN = '/user.slice/user-1000.slice/user@1000.service/app.slice/run.scope';

function choose(tree: Record<string, CgroupDirState>, own = OWN) {
  return chooseDelegatedBase(own, (path) => tree[path] ?? null);
}

describe('cgroup v2 delegation (path logic)', () => {
  it("reads this process's unified path from /proc/self/cgroup", () => {
    expect(ownV2Path(`0::${OWN}\n`)).toBe(OWN);
    expect(ownV2Path('12:pids:/x\n1:name=systemd:/y\n0::/\n')).toBe('/');
    // A host with cgroup v1 only has no unified (0::) line.
    expect(ownV2Path('12:pids:/x\n11:memory:/x\n')).toBeNull();
  });

  it("uses the user's delegated subtree: the shallowest ancestor it may write, never a root-owned slice", () => {
    expect(choose(systemdTree())).toEqual({
      dir: '/user.slice/user-1000.slice/user@1000.service',
      enable: false,
    });
  });

  it('enables the controllers for the children of the delegated subtree when they are not yet', () => {
    expect(choose(systemdTree({ subtreeControl: ['cpu'] }))).toEqual({
      dir: '/user.slice/user-1000.slice/user@1000.service',
      enable: true,
    });
  });

  it('goes deeper when the delegated top lacks a controller or cannot enable it', () => {
    expect(choose(systemdTree({ controllers: ['cpu', 'memory'] }))).toEqual({
      dir: '/user.slice/user-1000.slice/user@1000.service/app.slice',
      enable: false,
    });
    expect(choose(systemdTree({ subtreeControl: [], subtreeWritable: false }))).toEqual({
      dir: '/user.slice/user-1000.slice/user@1000.service/app.slice',
      enable: false,
    });
  });

  it("never picks this process's own group (it holds processes), nor one without writable cgroup.procs", () => {
    const tree = systemdTree();
    const own = choose(tree, '/user.slice/user-1000.slice/user@1000.service');
    expect(own.dir).toBeNull();
    const noProcs = Object.fromEntries(
      Object.entries(tree).map(([path, state]) => [path, { ...state, procsWritable: false }]),
    );
    const refused = choose(noProcs);
    expect(refused.dir).toBeNull();
    expect(refused).toMatchObject({ reason: expect.stringContaining('cgroup.procs is not writable') });
  });

  it('reports why when nothing is delegated (a root-owned session scope)', () => {
    const tree = systemdTree({ writable: false, procsWritable: false, subtreeWritable: false });
    for (const path of Object.keys(tree)) tree[path] = { ...tree[path]!, writable: false };
    const result = choose(tree);
    expect(result).toEqual({
      dir: null,
      reason: `no cgroup v2 subtree above ${OWN} is delegated to this user`,
    });
    expect(choose({}, '/').dir).toBeNull();
  });
});
