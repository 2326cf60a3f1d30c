import { randomBytes } from 'node:crypto';
import { shellQuote } from '../core/shell-quote.js';
import { OutputBuffer } from './output-buffer.js';

/**
 * The protocol of a persistent bash session, the same on every backend. The shell reads one command
 * per request as data (up to a NUL byte), evaluates it at its top level with stdin from /dev/null and
 * stdout+stderr on a reply descriptor that user redirections cannot hide, then reads a fresh random
 * nonce that was not readable while the command ran, and prints `nonce:exit-code:cwd` + NUL.
 */

/** Descriptor the shell keeps for its own replies. */
const REPLY_FD = 200;

const STEP = `IFS= read -r -d '' __ic_c; eval "$__ic_c" </dev/null >&${REPLY_FD} 2>&${REPLY_FD}; __ic_done $? >&${REPLY_FD}\n`;

/** What a fresh shell is sent first: the reply descriptor, the backend's prelude, the reply helper. */
export function shellInit(prelude: string): string {
  return `exec ${REPLY_FD}>&1 2>/dev/null\n${prelude}\n__ic_done() { IFS= read -r __ic_n; builtin printf '%s:%d:%s\\0' "$__ic_n" "$1" "$PWD"; }\n`;
}

/** The first command of a (re)started shell: back to the working directory it had, if not the initial one. */
export function returnToCwd(cwd: string, initial: string): string {
  return cwd === initial ? 'true' : `cd -- ${shellQuote(cwd)} 2>/dev/null`;
}

/** The end of a command's reply: its exit code and the shell's working directory after it. */
export interface ReplyEnd {
  readonly exitCode: number;
  readonly cwd: string;
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
    this.#nonce = Buffer.from(`__IC_${randomBytes(16).toString('hex')}`);
    this.output = new OutputBuffer(maxOutputBytes);
  }

  /** What to write to the shell: the step, the command (NUL bytes removed), the nonce line. */
  request(command: string): Buffer {
    return Buffer.from(`${STEP}${command.replaceAll('\0', '')}\0${this.#nonce.toString()}\n`);
  }

  /** Takes a chunk of the reply stream; returns the end of the reply once the nonce line is complete. */
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
