import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { release } from 'node:os';
import type { CheckItem } from '../../core/host/check-item.js';
import { detectCgroups } from '../cgroups.js';
import { hostPython } from '../host-python.js';
import type { ProviderCheck } from '../sandbox.js';
import { limitsCheck } from './limits-check.js';

function run(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    }).trim();
  } catch {
    return null;
  }
}

/** What the bwrap provider needs, each with the command that installs it. */
export async function checkBwrap(): Promise<ProviderCheck> {
  const items: CheckItem[] = [];
  const bwrap = run('bwrap', ['--version']);
  items.push({
    name: 'bubblewrap',
    ok: bwrap !== null,
    detail: bwrap ?? 'bwrap not found',
    fix: 'apt-get install -y bubblewrap',
  });
  const unshare = run('unshare', ['--version']);
  const nsenter = run('nsenter', ['--version']);
  const setpriv = run('setpriv', ['--version']);
  items.push({
    name: 'util-linux (unshare, nsenter, setpriv)',
    ok: unshare !== null && nsenter !== null && setpriv !== null,
    detail:
      unshare !== null && nsenter !== null && setpriv !== null
        ? unshare
        : 'unshare, nsenter or setpriv not found',
    fix: 'apt-get install -y util-linux',
  });
  const python = hostPython();
  const pythonVersion = run(python, ['--version']);
  items.push({
    name: 'python3 (mount helper)',
    ok: pythonVersion !== null,
    detail: pythonVersion ? `${python}: ${pythonVersion}` : 'python3 not found',
    fix: 'apt-get install -y python3',
  });
  let filesystems = '';
  try {
    filesystems = readFileSync('/proc/filesystems', 'utf8');
  } catch {
    // Not Linux.
  }
  items.push({
    name: 'overlayfs',
    ok: /\boverlay\b/.test(filesystems),
    detail: /\boverlay\b/.test(filesystems) ? 'kernel supports overlay' : 'overlay not in /proc/filesystems',
    fix: 'modprobe overlay',
  });
  if (process.getuid?.() !== 0) {
    let userns = 'unknown';
    try {
      userns = readFileSync('/proc/sys/user/max_user_namespaces', 'utf8').trim();
    } catch {
      // Older kernels.
    }
    items.push({
      name: 'user namespaces',
      ok: userns !== '0',
      detail: `max_user_namespaces=${userns}`,
      fix: 'sysctl -w user.max_user_namespaces=15000 kernel.unprivileged_userns_clone=1',
    });
  }
  items.push(isolationCheck(bwrap));
  items.push(renewalCheck());
  items.push(...limitsCheck(detectCgroups(), release()));
  return { ok: items.every((item) => item.ok || item.optional), items };
}

/**
 * What the sandbox's isolation needs: bwrap 0.8 (`--disable-userns`, `--seccomp`) and, as root,
 * idmapped mounts of ext4/tmpfs under overlayfs (kernel 6.3 or newer).
 */
function isolationCheck(bwrapVersion: string | null): CheckItem {
  const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(bwrapVersion ?? '') ?? []).slice(1).map(Number);
  const bwrapOk = major > 0 || minor >= 8;
  const root = process.getuid?.() === 0;
  const [kernelMajor = 0, kernelMinor = 0] = release()
    .split('.')
    .map((part) => Number.parseInt(part, 10));
  const kernelOk = !root || kernelMajor > 6 || (kernelMajor === 6 && kernelMinor >= 3);
  return {
    name: 'isolation (user namespace, seccomp filter)',
    ok: bwrapOk && kernelOk,
    detail: !bwrapOk
      ? `bubblewrap 0.8 or newer needed (--disable-userns), found ${bwrapVersion ?? 'none'}`
      : !kernelOk
        ? `kernel ${release()}: idmapped tmpfs mounts need Linux 6.3 or newer`
        : root
          ? 'sandbox root is an unprivileged host user (idmapped layers); no nested user namespaces; seccomp policy'
          : 'sandbox root is this user; no nested user namespaces; seccomp policy',
    fix: bwrapOk ? 'upgrade the kernel to 6.3 or newer' : 'apt-get install -y bubblewrap (0.8 or newer)',
  };
}

/**
 * What a reset in place needs (`renew-root.py`): `ns_last_pid` (a kernel built with
 * CONFIG_CHECKPOINT_RESTORE), to start process ids over, and the system call numbers of this machine.
 * Without them every reset starts a new bubblewrap tree: the same sandbox, about twice the CPU.
 */
function renewalCheck(): CheckItem {
  const lastPid = existsSync('/proc/sys/kernel/ns_last_pid');
  const arch = process.arch === 'x64' || process.arch === 'arm64';
  return {
    name: 'resets in place',
    ok: lastPid && arch,
    optional: true,
    detail:
      lastPid && arch
        ? 'a reset renews the sandbox around its running shell'
        : `${lastPid ? `no system call table for ${process.arch}` : 'no /proc/sys/kernel/ns_last_pid'}: each reset starts a new bubblewrap tree (about twice the CPU)`,
    fix: 'a kernel built with CONFIG_CHECKPOINT_RESTORE, on x86-64 or arm64',
  };
}
