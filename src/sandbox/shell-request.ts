import { randomFillSync } from 'node:crypto';
import { LEFTOVER_PROCESSES_COMMAND } from './leftover-processes.js';
import { OutputBuffer } from './output-buffer.js';
import { RENEW_COMMAND, STATE_EXPORT_COMMAND, WIRE_TOKENS } from './shell-protocol.js';

/** The end of a command's reply: its exit code and the shell's working directory after it. */
export interface ReplyEnd {
  readonly exitCode: number;
  readonly cwd: string;
}

/** The fixed requests the controller answers itself, by the token each travels as. */
const TOKEN_OF: ReadonlyMap<string, string> = new Map([
  [RENEW_COMMAND, WIRE_TOKENS.renew],
  [STATE_EXPORT_COMMAND, WIRE_TOKENS.export],
  [LEFTOVER_PROCESSES_COMMAND, WIRE_TOKENS.leftover],
]);
const TOKENS: ReadonlySet<string> = new Set(Object.values(WIRE_TOKENS));

/**
 * A command as it travels to the controller (see `WIRE_TOKENS` in `shell-protocol.ts`): one of the
 * fixed requests as its short token, a command that is a token itself with a space in front (a
 * comment either way, so it runs as bash would run it), any other command as it is, NUL bytes removed.
 */
export function wireCommand(command: string): string {
  const text = command.replaceAll('\0', '');
  const token = TOKEN_OF.get(text);
  if (token !== undefined) return token;
  return TOKENS.has(text) ? ` ${text}` : text;
}

/** Random bytes for nonces, filled 4 KiB at a time (one call to the system's generator per 256 nonces). */
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;

/** `__IC_` and 32 hex digits of fresh randomness: `NONCE_LENGTH` characters (shell-protocol.ts). */
function newNonce(): Buffer {
  if (poolAt + 16 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const nonce = Buffer.from(`__IC_${POOL.toString('hex', poolAt, poolAt + 16)}`);
  POOL.fill(0, poolAt, poolAt + 16);
  poolAt += 16;
  return nonce;
}

/**
 * One command in flight: its request bytes, and the scanner of the shell's reply stream that keeps
 * the command's output (capped) and finds the nonce that ends it. Bytes that could be the start of
 * the nonce are held back until the next chunk decides.
 */
export class ShellRequest {
  readonly #nonce: Buffer;
  readonly output: OutputBuffer;
  #pending: Buffer = Buffer.alloc(0);

  constructor(maxOutputBytes: number) {
    this.#nonce = newNonce();
    this.output = new OutputBuffer(maxOutputBytes);
  }

  /** What to write to the controller: the command as it travels (`wireCommand`), a NUL, the nonce. */
  request(command: string): Buffer {
    return Buffer.from(`${wireCommand(command)}\0${this.#nonce.toString()}`);
  }

  /** Takes a chunk of the reply stream; returns the end of the reply once it is complete (nonce, exit code, directory, NUL). */
  push(chunk: Buffer): ReplyEnd | undefined {
    let data = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    const at = data.indexOf(this.#nonce);
    if (at >= 0) {
      const end = data.indexOf(0, at + this.#nonce.length);
      this.output.push(data.subarray(0, at));
      if (end < 0) {
        this.#pending = Buffer.from(data.subarray(at));
        return undefined;
      }
      this.#pending = Buffer.alloc(0);
      const [code, ...cwdParts] = data
        .subarray(at + this.#nonce.length + 1, end)
        .toString()
        .split(':');
      return { exitCode: Number(code), cwd: cwdParts.join(':') };
    }
    const keep = this.#nonce.length - 1;
    if (data.length > keep) {
      this.output.push(data.subarray(0, data.length - keep));
      data = data.subarray(data.length - keep);
    }
    this.#pending = Buffer.from(data);
    return undefined;
  }

  /** The shell ended without a reply: the bytes held back belong to the output after all. */
  flush(): void {
    this.output.push(this.#pending);
    this.#pending = Buffer.alloc(0);
  }
}
