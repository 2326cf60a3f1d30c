const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * Collects a command's output within a byte cap: the first and the last half of the cap are kept,
 * everything in between is counted and dropped, so memory stays bounded whatever the command prints.
 */
export class OutputBuffer {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(maxBytes: number) {
    this.#headLimit = Math.ceil(maxBytes / 2);
    this.#tailLimit = Math.floor(maxBytes / 2);
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(this.#headLimit - this.#headBytes, rest.length);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.#tailLimit === 0) return;
    if (rest.length >= this.#tailLimit) {
      this.#tail = [Buffer.from(rest.subarray(rest.length - this.#tailLimit))];
      this.#tailBytes = this.#tailLimit;
      return;
    }
    this.#tail.push(Buffer.from(rest));
    this.#tailBytes += rest.length;
    while (this.#tailBytes > this.#tailLimit) {
      const first = this.#tail[0]!;
      const excess = this.#tailBytes - this.#tailLimit;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailBytes -= first.length;
      } else {
        this.#tail[0] = first.subarray(excess);
        this.#tailBytes -= excess;
      }
    }
  }

  /** The kept bytes, head then tail, without a marker. */
  bytes(): Buffer {
    return Buffer.concat([...this.#head, ...this.#tail]);
  }

  /** The kept text, with a one-line marker where bytes were dropped. */
  result(): { text: string; truncated?: { originalBytes: number } } {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    const dropped = this.#total - head.length - tail.length;
    if (dropped <= 0) return { text: decoder.decode(Buffer.concat([head, tail])) };
    const marker = `\n[... ${dropped} bytes of output omitted: ${this.#total} bytes in total ...]\n`;
    return {
      text: decoder.decode(head) + marker + decoder.decode(tail),
      truncated: { originalBytes: this.#total },
    };
  }
}
