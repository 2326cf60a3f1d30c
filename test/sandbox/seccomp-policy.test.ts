import { describe, expect, it } from 'vitest';
import { dockerSeccompProfile } from '../../src/sandbox/seccomp/docker-seccomp-profile.js';
import { AUDIT_ARCH, SECCOMP_RET_ALLOW, seccompProgram } from '../../src/sandbox/seccomp/seccomp-program.js';
import {
  ENOSYS,
  EPERM,
  type SeccompArch,
  SYSCALL_POLICY,
  X32_SYSCALL_BIT,
} from '../../src/sandbox/seccomp/syscall-policy.js';

const ERRNO = (errno: number) => 0x00050000 | errno;

/** Runs a classic BPF seccomp program on one `struct seccomp_data`, as the kernel does. */
function run(program: Buffer, arch: number, nr: number, args: readonly number[] = []): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  args.forEach((value, index) => {
    data.writeUInt32LE(value >>> 0, 16 + 8 * index);
  });
  let a = 0;
  let pc = 0;
  for (let steps = 0; steps < 10_000; steps++) {
    const at = pc * 8;
    if (at >= program.length) throw new Error('ran off the end of the program');
    const code = program.readUInt16LE(at);
    const jt = program.readUInt8(at + 2);
    const jf = program.readUInt8(at + 3);
    const k = program.readUInt32LE(at + 4);
    pc += 1;
    switch (code) {
      case 0x20: // ld [k]
        a = data.readUInt32LE(k);
        break;
      case 0x54: // and #k
        a = (a & k) >>> 0;
        break;
      case 0x05: // ja
        pc += k;
        break;
      case 0x15: // jeq
        pc += a === k ? jt : jf;
        break;
      case 0x35: // jge
        pc += a >= k ? jt : jf;
        break;
      case 0x45: // jset
        pc += (a & k) !== 0 ? jt : jf;
        break;
      case 0x06: // ret #k
        return k;
      default:
        throw new Error(`unknown BPF code ${code.toString(16)}`);
    }
  }
  throw new Error('BPF program did not return');
}

/** Docker's semantics for the generated profile: rules of a call ORed, a rule's args ANDed. */
function dockerDecision(name: string, args: readonly number[]): number {
  for (const rule of dockerSeccompProfile().syscalls) {
    if (!rule.names.includes(name)) continue;
    const matches = rule.args.every(
      (arg) => ((args[arg.index] ?? 0) & arg.value) >>> 0 === arg.valueTwo >>> 0,
    );
    if (matches) return ERRNO(rule.errnoRet);
  }
  return SECCOMP_RET_ALLOW;
}

const program = seccompProgram(SYSCALL_POLICY, ['x86_64', 'i386', 'aarch64']);
const X86_64 = AUDIT_ARCH.x86_64;

describe('the sandbox seccomp filter', () => {
  it('denies every unconditional rule on every architecture that has the call, with its errno', () => {
    for (const rule of SYSCALL_POLICY.filter((entry) => !entry.when)) {
      for (const [arch, nr] of Object.entries(rule.nr) as [SeccompArch, number][]) {
        expect(run(program, AUDIT_ARCH[arch], nr), `${rule.name} on ${arch}`).toBe(ERRNO(rule.errno));
      }
    }
  });

  it('lets ordinary calls through on each architecture', () => {
    // read, write, openat, execve, wait4 / mmap, ptrace (debuggers in CTF tasks)
    for (const nr of [0, 1, 257, 59, 61, 9, 101]) expect(run(program, X86_64, nr)).toBe(SECCOMP_RET_ALLOW);
    for (const nr of [3, 4, 11, 192, 26]) expect(run(program, AUDIT_ARCH.i386, nr)).toBe(SECCOMP_RET_ALLOW);
    for (const nr of [63, 64, 56, 221, 117])
      expect(run(program, AUDIT_ARCH.aarch64, nr)).toBe(SECCOMP_RET_ALLOW);
  });

  it('on this machine, holds its own architectures only and refuses the others', () => {
    const native = seccompProgram();
    expect(native.length).toBeLessThan(program.length);
    if (process.arch === 'x64') {
      expect(run(native, X86_64, 250)).toBe(ERRNO(EPERM));
      expect(run(native, AUDIT_ARCH.i386, 288)).toBe(ERRNO(EPERM));
      expect(run(native, AUDIT_ARCH.i386, 3)).toBe(SECCOMP_RET_ALLOW);
      expect(run(native, AUDIT_ARCH.aarch64, 63)).toBe(ERRNO(EPERM));
    }
  });

  it('refuses the x32 table and unknown architectures; clone3 gets ENOSYS so the C library falls back', () => {
    expect(run(program, X86_64, X32_SYSCALL_BIT | 0)).toBe(ERRNO(ENOSYS));
    expect(run(program, 0x40000028 /* ARM */, 0)).toBe(ERRNO(EPERM));
    expect(run(program, X86_64, 435)).toBe(ERRNO(ENOSYS));
  });

  it('checks the flags of clone, the families of socket and the values of personality', () => {
    const cases: [name: string, nr: number, args: number[], denied: boolean][] = [
      ['clone', 56, [0x3d0f00], false], // a pthread
      ['clone', 56, [0x01200011], false], // fork() with SIGCHLD
      ['clone', 56, [0x10000000 | 17], true], // CLONE_NEWUSER
      ['clone', 56, [0x00020000 | 17], true], // CLONE_NEWNS
      ['clone', 56, [0x40000000], true], // CLONE_NEWNET
      ['socket', 41, [1, 1, 0], false], // AF_UNIX stream
      ['socket', 41, [2, 1, 0], false], // AF_INET stream
      ['socket', 41, [16, 3, 0], false], // AF_NETLINK raw (iproute2)
      ['socket', 41, [2, 3, 1], true], // AF_INET raw
      ['socket', 41, [10, 3 | 0x80000, 58], true], // AF_INET6 raw, close-on-exec
      ['socket', 41, [17, 3, 0], true], // AF_PACKET
      ['socket', 41, [40, 1, 0], true], // AF_VSOCK
      ['personality', 135, [0], false],
      ['personality', 135, [0xffffffff], false],
      ['personality', 135, [0x20008], false],
      ['personality', 135, [0x0040000], true], // ADDR_NO_RANDOMIZE
      ['personality', 135, [0x0400000], true], // READ_IMPLIES_EXEC
      ['personality', 135, [0x80000000], true],
    ];
    for (const [name, nr, args, denied] of cases) {
      const expected = denied ? ERRNO(EPERM) : SECCOMP_RET_ALLOW;
      expect(run(program, X86_64, nr, args), `${name}(${args.map((x) => x.toString(16))})`).toBe(expected);
      expect(dockerDecision(name, args), `docker: ${name}(${args.map((x) => x.toString(16))})`).toBe(
        expected,
      );
    }
  });

  it('gives Docker the same unconditional denials', () => {
    const denied = new Set(
      dockerSeccompProfile()
        .syscalls.filter((rule) => rule.args.length === 0)
        .flatMap((rule) => rule.names),
    );
    for (const rule of SYSCALL_POLICY.filter((entry) => !entry.when)) {
      expect(denied.has(rule.name), rule.name).toBe(true);
    }
    expect(dockerSeccompProfile().defaultAction).toBe('SCMP_ACT_ALLOW');
  });
});
