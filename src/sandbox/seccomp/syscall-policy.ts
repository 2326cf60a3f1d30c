/**
 * The system calls a sandbox may not make, on both backends (bwrap loads it as a BPF program, docker
 * as a JSON profile; both are generated from this table). Modelled on Docker's default profile, but
 * written as a deny list: everything not listed here behaves as on the host, so the fidelity of
 * ordinary programs does not change. Each entry says why it is denied.
 */

/** The architectures the filter knows; a call from any other is refused. */
export type SeccompArch = 'x86_64' | 'i386' | 'aarch64';

export const EPERM = 1;
export const ENOSYS = 38;

/** One test on an argument (its low 32 bits: every argument tested here is an int or flags word). */
export type ArgCondition =
  | { readonly arg: number; readonly eq: number }
  | { readonly arg: number; readonly maskedEq: readonly [mask: number, value: number] }
  | { readonly arg: number; readonly anyBit: number }
  | { readonly arg: number; readonly notIn: readonly number[] };

export interface SyscallRule {
  readonly name: string;
  /** The call's number on each architecture where it exists. */
  readonly nr: Partial<Record<SeccompArch, number>>;
  /** The errno returned instead of running the call. */
  readonly errno: number;
  /**
   * When present, the call is denied only if one of these alternatives holds (each alternative
   * is a conjunction of argument conditions); otherwise it is always denied.
   */
  readonly when?: readonly (readonly ArgCondition[])[];
  readonly reason: string;
}

/** x86_64 numbers with the x32 bit set: a second system-call table, refused as a whole. */
export const X32_SYSCALL_BIT = 0x40000000;

/** Namespace flags of clone(2) (CLONE_NEWTIME shares its bit with the exit signal there). */
const CLONE_NAMESPACE_FLAGS = 0x7e020000;

const AF_INET = 2;
const AF_INET6 = 10;
const AF_KEY = 15;
const AF_PACKET = 17;
const AF_VSOCK = 40;
const SOCK_TYPE_MASK = 0xf;
const SOCK_RAW = 3;

/** personality(2) values Docker allows: PER_LINUX, PER_LINUX32, UNAME26 (with either), and a query. */
export const PERSONALITY_ALLOWED = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff] as const;

const same = (nr: number): Partial<Record<SeccompArch, number>> => ({ x86_64: nr, i386: nr, aarch64: nr });

const deny = (
  name: string,
  nr: Partial<Record<SeccompArch, number>>,
  reason: string,
  errno = EPERM,
): SyscallRule => ({ name, nr, errno, reason });

export const SYSCALL_POLICY: readonly SyscallRule[] = [
  // Kernel keyrings are not namespaced by mount or pid: a session keyring inherited from the host,
  // or the keys of a concurrent episode, would be readable.
  deny('keyctl', { x86_64: 250, i386: 288, aarch64: 219 }, 'kernel keyring: shared with the host'),
  deny('add_key', { x86_64: 248, i386: 286, aarch64: 217 }, 'kernel keyring: shared with the host'),
  deny('request_key', { x86_64: 249, i386: 287, aarch64: 218 }, 'kernel keyring: shared with the host'),
  // io_uring performs system calls from kernel workers that no seccomp filter sees.
  deny('io_uring_setup', same(425), 'io_uring bypasses the system-call filter'),
  deny('io_uring_enter', same(426), 'io_uring bypasses the system-call filter'),
  deny('io_uring_register', same(427), 'io_uring bypasses the system-call filter'),
  deny('bpf', { x86_64: 321, i386: 357, aarch64: 280 }, 'loads programs into the kernel'),
  deny(
    'perf_event_open',
    { x86_64: 298, i386: 336, aarch64: 241 },
    'kernel profiling: leaks host activity, large attack surface',
  ),
  deny('userfaultfd', { x86_64: 323, i386: 374, aarch64: 282 }, 'a classic aid to kernel race exploits'),
  // The sandbox's mounts are made for it from outside; nothing inside may change them.
  deny('mount', { x86_64: 165, i386: 21, aarch64: 40 }, 'changes the file-system view'),
  deny('umount', { i386: 22 }, 'changes the file-system view'),
  deny('umount2', { x86_64: 166, i386: 52, aarch64: 39 }, 'changes the file-system view'),
  deny('pivot_root', { x86_64: 155, i386: 217, aarch64: 41 }, 'changes the file-system view'),
  deny('open_tree', same(428), 'new mount API: changes the file-system view'),
  deny('move_mount', same(429), 'new mount API: changes the file-system view'),
  deny('fsopen', same(430), 'new mount API: changes the file-system view'),
  deny('fsconfig', same(431), 'new mount API: changes the file-system view'),
  deny('fsmount', same(432), 'new mount API: changes the file-system view'),
  deny('fspick', same(433), 'new mount API: changes the file-system view'),
  deny('mount_setattr', same(442), 'new mount API: changes the file-system view'),
  deny('open_tree_attr', same(467), 'new mount API: changes the file-system view'),
  // Namespaces: a nested user namespace would give a full capability set inside the sandbox.
  deny('unshare', { x86_64: 272, i386: 310, aarch64: 97 }, 'creates namespaces'),
  deny('setns', { x86_64: 308, i386: 346, aarch64: 268 }, 'joins namespaces'),
  {
    name: 'clone',
    nr: { x86_64: 56, i386: 120, aarch64: 220 },
    errno: EPERM,
    when: [[{ arg: 0, anyBit: CLONE_NAMESPACE_FLAGS }]],
    reason: 'creates namespaces (only with CLONE_NEW* flags; plain fork and threads are allowed)',
  },
  // The flags of clone3 live in memory a filter cannot read: ENOSYS makes the C library fall back to
  // clone, whose flags are checked above (Docker does the same).
  deny('clone3', same(435), 'flags not inspectable; the C library falls back to clone', ENOSYS),
  deny('kexec_load', { x86_64: 246, i386: 283, aarch64: 104 }, 'replaces the running kernel'),
  deny('kexec_file_load', { x86_64: 320, aarch64: 294 }, 'replaces the running kernel'),
  deny('init_module', { x86_64: 175, i386: 128, aarch64: 105 }, 'loads kernel modules'),
  deny('finit_module', { x86_64: 313, i386: 350, aarch64: 273 }, 'loads kernel modules'),
  deny('delete_module', { x86_64: 176, i386: 129, aarch64: 106 }, 'unloads kernel modules'),
  deny(
    'open_by_handle_at',
    { x86_64: 304, i386: 342, aarch64: 265 },
    'opens files by handle, around the mount view (the "shocker" escape)',
  ),
  deny('acct', { x86_64: 163, i386: 51, aarch64: 89 }, 'host process accounting'),
  deny('swapon', { x86_64: 167, i386: 87, aarch64: 224 }, 'host swap'),
  deny('swapoff', { x86_64: 168, i386: 115, aarch64: 225 }, 'host swap'),
  deny('reboot', { x86_64: 169, i386: 88, aarch64: 142 }, 'reboots the host'),
  deny('settimeofday', { x86_64: 164, i386: 79, aarch64: 170 }, 'the clock is not namespaced'),
  deny('stime', { i386: 25 }, 'the clock is not namespaced'),
  deny('clock_settime', { x86_64: 227, i386: 264, aarch64: 112 }, 'the clock is not namespaced'),
  deny('clock_settime64', { i386: 404 }, 'the clock is not namespaced'),
  deny('adjtimex', { x86_64: 159, i386: 124, aarch64: 171 }, 'the clock is not namespaced'),
  deny('clock_adjtime', { x86_64: 305, i386: 343, aarch64: 266 }, 'the clock is not namespaced'),
  deny('clock_adjtime64', { i386: 405 }, 'the clock is not namespaced'),
  deny('syslog', { x86_64: 103, i386: 103, aarch64: 116 }, 'the kernel log is the host’s'),
  deny('quotactl', { x86_64: 179, i386: 131, aarch64: 60 }, 'host disk quotas'),
  deny('quotactl_fd', same(443), 'host disk quotas'),
  deny('lookup_dcookie', { x86_64: 212, i386: 253, aarch64: 18 }, 'kernel profiling'),
  deny('vhangup', { x86_64: 153, i386: 111, aarch64: 58 }, 'hangs up the controlling terminal'),
  deny('iopl', { x86_64: 172, i386: 110 }, 'raw I/O port access'),
  deny('ioperm', { x86_64: 173, i386: 101 }, 'raw I/O port access'),
  deny('fanotify_init', { x86_64: 300, i386: 338, aarch64: 262 }, 'watches file systems beyond the sandbox'),
  deny('nfsservctl', { x86_64: 180, i386: 169, aarch64: 42 }, 'kernel NFS server'),
  {
    name: 'personality',
    nr: { x86_64: 135, i386: 136, aarch64: 92 },
    errno: EPERM,
    when: [[{ arg: 0, notIn: PERSONALITY_ALLOWED }]],
    reason: 'execution domains that weaken memory protection (READ_IMPLIES_EXEC, MMAP_PAGE_ZERO, ...)',
  },
  {
    name: 'socket',
    nr: { x86_64: 41, i386: 359, aarch64: 198 },
    errno: EPERM,
    when: [
      [{ arg: 0, eq: AF_PACKET }],
      [{ arg: 0, eq: AF_VSOCK }],
      [{ arg: 0, eq: AF_KEY }],
      [
        { arg: 0, eq: AF_INET },
        { arg: 1, maskedEq: [SOCK_TYPE_MASK, SOCK_RAW] },
      ],
      [
        { arg: 0, eq: AF_INET6 },
        { arg: 1, maskedEq: [SOCK_TYPE_MASK, SOCK_RAW] },
      ],
    ],
    reason: 'packet, raw IP, vsock and IPsec key sockets (crafted packets, host channels)',
  },
];

/*
 * Allowed on purpose, as Docker does on kernels >= 4.8: ptrace, process_vm_readv/writev and kcmp.
 * CTF tasks debug their binaries with gdb and strace, the pid namespace limits them to the sandbox's
 * own processes, and since 4.8 a traced process can no longer use ptrace to bypass a seccomp filter.
 * i386 socketcall(2) is allowed: its arguments are in memory; the socket families above still need
 * CAP_NET_RAW, which no process of the sandbox holds in any namespace it can reach.
 */
