import { type ArgCondition, SYSCALL_POLICY, type SyscallRule } from './syscall-policy.js';

interface DockerArg {
  readonly index: number;
  readonly value: number;
  readonly valueTwo: number;
  readonly op: 'SCMP_CMP_MASKED_EQ';
}

interface DockerSyscall {
  readonly names: string[];
  readonly action: 'SCMP_ACT_ERRNO';
  readonly errnoRet: number;
  readonly args: DockerArg[];
  readonly comment: string;
}

/** The same policy as the bwrap filter, as a Docker seccomp profile (`SecurityOpt: seccomp=<json>`). */
export interface DockerSeccompProfile {
  readonly defaultAction: 'SCMP_ACT_ALLOW';
  readonly archMap: { architecture: string; subArchitectures: string[] }[];
  readonly syscalls: DockerSyscall[];
}

const LOW_32 = 0xffffffff;
const BIT_31 = 0x80000000;

/**
 * A condition as alternatives of single comparisons (libseccomp takes at most one comparison per
 * argument in a rule, and Docker ORs the rules of a call). Comparisons are masked to the low 32 bits,
 * as the kernel reads these int arguments.
 */
function comparisons(condition: ArgCondition): DockerArg[][] {
  const masked = (mask: number, value: number): DockerArg => ({
    index: condition.arg,
    value: mask >>> 0,
    valueTwo: value >>> 0,
    op: 'SCMP_CMP_MASKED_EQ',
  });
  if ('eq' in condition) return [[masked(LOW_32, condition.eq)]];
  if ('maskedEq' in condition) return [[masked(condition.maskedEq[0], condition.maskedEq[1])]];
  if ('anyBit' in condition) return bits(condition.anyBit).map((bit) => [masked(bit, bit)]);
  // "Not one of these values", for personality(2): any bit outside the allowed values' bits, while
  // bit 31 is clear (the query value 0xffffffff has every bit set), or bit 31 set with bit 0 clear.
  const allowedBits = condition.notIn.filter((value) => value !== LOW_32).reduce((a, b) => a | b, 0);
  const forbidden = bits(~allowedBits & ~BIT_31);
  return [...forbidden.map((bit) => [masked(bit | BIT_31, bit)]), [masked(BIT_31 | 1, BIT_31)]];
}

function bits(mask: number): number[] {
  const out: number[] = [];
  for (let bit = 0; bit < 32; bit++) if ((mask >>> bit) & 1) out.push((1 << bit) >>> 0);
  return out;
}

function entries(rule: SyscallRule): DockerSyscall[] {
  const base = { names: [rule.name], action: 'SCMP_ACT_ERRNO' as const, errnoRet: rule.errno };
  if (!rule.when) return [{ ...base, args: [], comment: rule.reason }];
  const out: DockerSyscall[] = [];
  for (const conjunction of rule.when) {
    // A conjunction of conditions on distinct arguments, each possibly several alternatives.
    let rows: DockerArg[][] = [[]];
    for (const condition of conjunction) {
      rows = rows.flatMap((row) => comparisons(condition).map((alternative) => [...row, ...alternative]));
    }
    for (const args of rows) out.push({ ...base, args, comment: rule.reason });
  }
  return out;
}

/** The Docker profile of the sandbox policy: allow by default, deny what the table denies. */
export function dockerSeccompProfile(policy: readonly SyscallRule[] = SYSCALL_POLICY): DockerSeccompProfile {
  return {
    defaultAction: 'SCMP_ACT_ALLOW',
    archMap: [
      { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
      { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
    ],
    syscalls: policy.flatMap(entries),
  };
}
