import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../core/host/atomic-write.js';
import type { ChatMessageData } from '../../../core/run-files/episode-record-schema.js';
import type { ChatMessage } from '../model-client.js';

/** The file of a run directory that holds each shared prompt prefix once. */
export const PREFIXES_FILE = 'prefixes.json';

/**
 * The shared prompt prefixes of a run (system prompt, demonstrations): every model call of every
 * episode starts with one, so `episodes.jsonl` names it (`prefix` of a call) instead of repeating
 * it. `prefixes.json` maps each name (the first 16 hex digits of the SHA-256 of the messages' JSON)
 * to its messages; it is rewritten atomically when a new prefix appears, and a resumed run keeps
 * the prefixes it already had.
 */
export class PrefixStore {
  #path: string | undefined;
  readonly #prefixes = new Map<string, readonly ChatMessageData[]>();
  /** The name of each prefix array already seen, so that a turn costs no hashing. */
  readonly #names = new WeakMap<readonly ChatMessage[], string>();

  /** A store that writes `prefixes.json` into `directory`; without one, only once {@link open}ed. */
  constructor(directory?: string) {
    if (directory !== undefined) this.open(directory);
  }

  /** The file the store writes, once it has a directory. */
  get path(): string | undefined {
    return this.#path;
  }

  /**
   * Writes into `directory` from now on, keeping the prefixes its `prefixes.json` already holds (a
   * resumed run). The file is written at the first new prefix, so a run that fails before its first
   * model call leaves none.
   */
  open(directory: string): void {
    this.#path = join(directory, PREFIXES_FILE);
    if (existsSync(this.#path)) {
      const stored = JSON.parse(readFileSync(this.#path, 'utf8')) as Record<string, ChatMessageData[]>;
      for (const [name, messages] of Object.entries(stored)) {
        if (!this.#prefixes.has(name)) this.#prefixes.set(name, messages);
      }
    }
  }

  /** The name of `messages` as a prefix, stored (and written to disk) the first time it is seen. */
  name(messages: readonly ChatMessage[]): string {
    const known = this.#names.get(messages);
    if (known !== undefined) return known;
    const data = messages.map(messageData);
    const name = prefixName(data);
    this.#names.set(messages, name);
    if (!this.#prefixes.has(name)) {
      this.#prefixes.set(name, data);
      this.#write();
    }
    return name;
  }

  /**
   * Adds prefixes named elsewhere (a queue worker's, for the records it played), writing the file
   * once if any is new. Each name must be the content hash of its messages: a prefix is never
   * replaced by other content under a name already used.
   */
  add(prefixes: Readonly<Record<string, readonly ChatMessageData[]>>): void {
    let added = false;
    for (const [name, messages] of Object.entries(prefixes)) {
      const actual = prefixName(messages);
      if (actual !== name)
        throw new Error(`prefix ${name} does not match its messages (their name is ${actual})`);
      if (this.#prefixes.has(name)) continue;
      this.#prefixes.set(name, messages);
      added = true;
    }
    if (added) this.#write();
  }

  #write(): void {
    if (this.#path !== undefined) {
      writeFileAtomic(this.#path, `${JSON.stringify(Object.fromEntries(this.#prefixes), null, 2)}\n`);
    }
  }

  /** The messages of a prefix by name. */
  get(name: string): readonly ChatMessageData[] | undefined {
    return this.#prefixes.get(name);
  }
}

/** The name of a prefix: the first 16 hex digits of the SHA-256 of its messages' JSON. */
export function prefixName(messages: readonly ChatMessageData[]): string {
  return createHash('sha256').update(JSON.stringify(messages)).digest('hex').slice(0, 16);
}

/** A message as `episodes.jsonl` and `prefixes.json` keep it (tool call arguments as their text). */
export function messageData(message: ChatMessage): ChatMessageData {
  switch (message.role) {
    case 'system':
    case 'user':
      return {
        role: message.role,
        content: message.content,
        ...(message.cacheBreakpoint ? { cacheBreakpoint: true } : {}),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              toolCalls: message.toolCalls.map((call) => ({
                id: call.id,
                name: call.name,
                argumentsText: call.argumentsText,
              })),
            }
          : {}),
      };
    case 'tool':
      return {
        role: 'tool',
        content: message.content,
        toolCallId: message.toolCallId,
        toolName: message.toolName,
      };
  }
}
