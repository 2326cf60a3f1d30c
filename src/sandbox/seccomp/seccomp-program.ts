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
 * 32-bit binaries, and the x32 table, refused), and aarch64; any other is refused.
 */
export function seccompProgram(policy: readonly SyscallRule[] = SYSCALL_POLICY): Buffer {
  const asm = new BpfAssembler();
  const arches = Object.keys(AUDIT_ARCH) as SeccompArch[];
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
    for (const rule of rules.filter((rule) => !rule.when)) {
      const skip = asm.newLabel('skip');
      asm.jeq(rule.nr[arch]!, null, skip).ret(errnoAction(rule.errno)).label(skip);
    }
    for (const rule of rules.filter((rule) => rule.when)) emitConditional(asm, rule, rule.nr[arch]!);
    asm.ret(SECCOMP_RET_ALLOW);
  }
  return asm.assemble();
}

/** Denies `rule` when one of its alternatives holds; leaves A undefined (each rule reloads nr). */
function emitConditional(asm: BpfAssembler, rule: SyscallRule, nr: number): void {
  const end = asm.newLabel(`${rule.name}-end`);
  const alternatives = rule.when ?? [];
  asm.load(NR_OFFSET).jeq(nr, null, end);
  alternatives.forEach((conditions, index) => {
    const fail = index + 1 < alternatives.length ? asm.newLabel(`${rule.name}-alt`) : end;
    for (const condition of conditions) emitCondition(asm, condition, fail);
    asm.ret(errnoAction(rule.errno));
    if (fail !== end) asm.label(fail);
  });
  asm.label(end);
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
