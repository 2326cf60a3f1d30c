import { BpfAssembler, type Target } from './bpf-assembler.js';
import {
  type ArgCondition,
  ENOSYS,
  EPERM,
  type SeccompArch,
  SYSCALL_POLICY,
  type SyscallRule,
  X32_SYSCALL_BIT,
} from './syscall-policy.js';

/** `AUDIT_ARCH_*` values the kernel reports in `seccomp_data.arch`. */
export const AUDIT_ARCH: Record<SeccompArch, number> = {
  x86_64: 0xc000003e,
  i386: 0x40000003,
  aarch64: 0xc00000b7,
};

export const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;

/** Offsets in `struct seccomp_data` (nr, arch, instruction pointer, then six 64-bit arguments). */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** The low 32 bits of argument `index` (little-endian: x86_64 and aarch64). */
const argLow = (index: number): number => 16 + 8 * index;

export const errnoAction = (errno: number): number => SECCOMP_RET_ERRNO | (errno & 0xffff);

/**
 * The seccomp filter of a bwrap sandbox as `struct sock_filter[]` bytes, what `bwrap --seccomp FD`
 * reads. The architecture is checked first: x86_64 (with its i386 compatibility table, used by
 * 32-bit binaries, and the x32 table, refused), and aarch64; any other is refused. Within an
 * architecture the call number is found by a binary search (a few comparisons per call, and the
 * kernel's per-filter cache of always-allowed calls is cheap to build when the filter is attached).
 */
export function seccompProgram(
  policy: readonly SyscallRule[] = SYSCALL_POLICY,
  arches: readonly SeccompArch[] = hostArches(),
): Buffer {
  const asm = new BpfAssembler();
  const blocks = new Map(arches.map((arch) => [arch, asm.newLabel(arch)]));
  asm.load(ARCH_OFFSET);
  for (const arch of arches) {
    const next = asm.newLabel('arch');
    asm.jeq(AUDIT_ARCH[arch], null, next).ja(blocks.get(arch)!).label(next);
  }
  asm.ret(errnoAction(EPERM));
  for (const arch of arches) {
    asm.label(blocks.get(arch)!).load(NR_OFFSET);
    if (arch === 'x86_64') {
      const native = asm.newLabel('native');
      asm.jge(X32_SYSCALL_BIT, null, native).ret(errnoAction(ENOSYS)).label(native);
    }
    const rules = policy.filter((rule) => rule.nr[arch] !== undefined);
    // Where each call goes: a shared `ret errno` for unconditional denials, its own block otherwise.
    const returns = new Map<number, string>();
    const targets = rules
      .map((rule) => {
        let label: string;
        if (rule.when) label = asm.newLabel(`${rule.name}-${arch}`);
        else {
          label = returns.get(rule.errno) ?? asm.newLabel(`errno-${rule.errno}-${arch}`);
          returns.set(rule.errno, label);
        }
        return { nr: rule.nr[arch]!, label, rule };
      })
      .sort((a, b) => a.nr - b.nr);
    emitSearch(asm, targets);
    for (const [errno, label] of returns) asm.label(label).ret(errnoAction(errno));
    for (const target of targets.filter((entry) => entry.rule.when)) {
      asm.label(target.label);
      emitConditional(asm, target.rule);
    }
  }
  return asm.assemble();
}

/**
 * The architectures a process of this machine can call the kernel with: x86_64 and its i386 table,
 * or aarch64 (its 32-bit table is refused, as are the architectures of other machines).
 */
export function hostArches(): SeccompArch[] {
  if (process.arch === 'x64') return ['x86_64', 'i386'];
  if (process.arch === 'arm64') return ['aarch64'];
  return Object.keys(AUDIT_ARCH) as SeccompArch[];
}

/** Jumps to the target of the call number in A (sorted by number), or allows the call. */
function emitSearch(asm: BpfAssembler, targets: readonly { nr: number; label: string }[]): void {
  if (targets.length <= 3) {
    for (const target of targets) asm.jeq(target.nr, target.label, null);
    asm.ret(SECCOMP_RET_ALLOW);
    return;
  }
  const middle = Math.floor(targets.length / 2);
  const right = asm.newLabel('upper');
  asm.jge(targets[middle]!.nr, right, null);
  emitSearch(asm, targets.slice(0, middle));
  asm.label(right);
  emitSearch(asm, targets.slice(middle));
}

/** Denies the call when one of the rule's alternatives holds, allows it otherwise. */
function emitConditional(asm: BpfAssembler, rule: SyscallRule): void {
  const alternatives = rule.when ?? [];
  alternatives.forEach((conditions, index) => {
    const fail = asm.newLabel(`${rule.name}-alt`);
    for (const condition of conditions) emitCondition(asm, condition, fail);
    asm.ret(errnoAction(rule.errno));
    asm.label(fail);
    if (index + 1 === alternatives.length) asm.ret(SECCOMP_RET_ALLOW);
  });
}

/** Falls through when `condition` holds, jumps to `fail` otherwise. */
function emitCondition(asm: BpfAssembler, condition: ArgCondition, fail: Target): void {
  asm.load(argLow(condition.arg));
  if ('eq' in condition) asm.jeq(condition.eq >>> 0, null, fail);
  else if ('maskedEq' in condition) {
    const [mask, value] = condition.maskedEq;
    asm.and(mask >>> 0).jeq(value >>> 0, null, fail);
  } else if ('anyBit' in condition) asm.jset(condition.anyBit >>> 0, null, fail);
  else for (const value of condition.notIn) asm.jeq(value >>> 0, fail, null);
}

let cached: Buffer | undefined;

/** The filter of every sandbox (built once). */
export function sandboxSeccompProgram(): Buffer {
  cached ??= seccompProgram();
  return cached;
}
