/**
 * A small assembler for classic BPF, the language of seccomp filters: instructions with symbolic
 * labels, resolved into the `struct sock_filter` array the kernel takes (8 bytes each: u16 code,
 * u8 jt, u8 jf, u32 k, in host byte order).
 */

const BPF_LD = 0x00;
const BPF_ALU = 0x04;
const BPF_JMP = 0x05;
const BPF_RET = 0x06;
const BPF_W = 0x00;
const BPF_ABS = 0x20;
const BPF_AND = 0x50;
const BPF_JA = 0x00;
const BPF_JEQ = 0x10;
const BPF_JGE = 0x30;
const BPF_JSET = 0x40;
const BPF_K = 0x00;

/** The kernel refuses longer programs (BPF_MAXINSNS). */
const MAX_INSTRUCTIONS = 4096;

/** A jump target: a label, or `null` for the next instruction. */
export type Target = string | null;

type Instruction =
  | { readonly op: 'ld'; readonly offset: number }
  | { readonly op: 'and'; readonly k: number }
  | { readonly op: 'jeq' | 'jge' | 'jset'; readonly k: number; readonly jt: Target; readonly jf: Target }
  | { readonly op: 'ja'; readonly to: string }
  | { readonly op: 'ret'; readonly k: number };

export class BpfAssembler {
  readonly #code: Instruction[] = [];
  readonly #labels = new Map<string, number>();
  #nextLabel = 0;

  /** A fresh label name, unique in this program. */
  newLabel(hint: string): string {
    this.#nextLabel += 1;
    return `${hint}#${this.#nextLabel}`;
  }

  /** Places `name` at the next instruction. */
  label(name: string): this {
    if (this.#labels.has(name)) throw new Error(`BPF label defined twice: ${name}`);
    this.#labels.set(name, this.#code.length);
    return this;
  }

  /** A = the 32-bit word at `offset` of `struct seccomp_data`. */
  load(offset: number): this {
    this.#code.push({ op: 'ld', offset });
    return this;
  }

  and(k: number): this {
    this.#code.push({ op: 'and', k });
    return this;
  }

  jeq(k: number, jt: Target, jf: Target = null): this {
    this.#code.push({ op: 'jeq', k, jt, jf });
    return this;
  }

  jge(k: number, jt: Target, jf: Target = null): this {
    this.#code.push({ op: 'jge', k, jt, jf });
    return this;
  }

  /** Jumps to `jt` when A & k is not zero. */
  jset(k: number, jt: Target, jf: Target = null): this {
    this.#code.push({ op: 'jset', k, jt, jf });
    return this;
  }

  /** Unconditional jump (32-bit offset: any distance). */
  ja(to: string): this {
    this.#code.push({ op: 'ja', to });
    return this;
  }

  ret(k: number): this {
    this.#code.push({ op: 'ret', k });
    return this;
  }

  get length(): number {
    return this.#code.length;
  }

  /** The program as `struct sock_filter[]` bytes. */
  assemble(): Buffer {
    if (this.#code.length > MAX_INSTRUCTIONS) {
      throw new Error(`BPF program too long: ${this.#code.length} instructions`);
    }
    const out = Buffer.alloc(this.#code.length * 8);
    this.#code.forEach((instruction, pc) => {
      const at = pc * 8;
      const offset = (target: Target, wide = false): number => {
        if (target === null) return 0;
        const to = this.#labels.get(target);
        if (to === undefined) throw new Error(`BPF label not defined: ${target}`);
        const distance = to - (pc + 1);
        if (distance < 0 || (!wide && distance > 255)) {
          throw new Error(`BPF jump from ${pc} to ${target} (${to}) out of range`);
        }
        return distance;
      };
      let code: number;
      let jt = 0;
      let jf = 0;
      let k: number;
      switch (instruction.op) {
        case 'ld':
          code = BPF_LD | BPF_W | BPF_ABS;
          k = instruction.offset;
          break;
        case 'and':
          code = BPF_ALU | BPF_AND | BPF_K;
          k = instruction.k;
          break;
        case 'jeq':
        case 'jge':
        case 'jset':
          code = BPF_JMP | { jeq: BPF_JEQ, jge: BPF_JGE, jset: BPF_JSET }[instruction.op] | BPF_K;
          jt = offset(instruction.jt);
          jf = offset(instruction.jf);
          k = instruction.k;
          break;
        case 'ja':
          code = BPF_JMP | BPF_JA;
          k = offset(instruction.to, true);
          break;
        case 'ret':
          code = BPF_RET | BPF_K;
          k = instruction.k;
          break;
      }
      out.writeUInt16LE(code, at);
      out.writeUInt8(jt, at + 2);
      out.writeUInt8(jf, at + 3);
      out.writeUInt32LE(k >>> 0, at + 4);
    });
    return out;
  }
}
