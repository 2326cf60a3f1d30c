import { describe, expect, it } from 'vitest';
import { limitsCheck } from '../../src/sandbox/bwrap/limits-check.js';

describe("bwrap's resource-limit lines in intercode doctor", () => {
  it('reports limits per sandbox with cgroups', () => {
    const items = limitsCheck({ version: 2, base: '/sys/fs/cgroup/intercode' }, '6.18.44');
    expect(items).toEqual([
      expect.objectContaining({
        name: 'resource limits',
        ok: true,
        detail: expect.stringContaining('cgroup v2'),
      }),
    ]);
  });

  it('says what the rlimit fallback does not guarantee, as a warning with its fix', () => {
    const items = limitsCheck(
      { version: null, reason: 'cannot create /sys/fs/cgroup/memory/intercode' },
      '6.18.44',
    );
    expect(items).toHaveLength(1);
    const [line] = items;
    expect(line).toMatchObject({ ok: false, optional: true });
    expect(line?.detail).toContain('not in total');
    expect(line?.detail).toContain('no CPU quota');
    expect(line?.detail).toContain('cannot create /sys/fs/cgroup/memory/intercode');
    expect(line?.fix).toContain('user@UID.service');
  });

  it('warns that a kernel before 5.14 counts the process limit per user, not per sandbox', () => {
    const none = { version: null, reason: 'not root' } as const;
    expect(limitsCheck(none, '5.10.0-28-amd64').map((item) => item.name)).toEqual([
      'resource limits',
      'process limit without cgroups',
    ]);
    expect(limitsCheck(none, '5.14.0').map((item) => item.name)).toEqual(['resource limits']);
  });
});
