import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Task } from '../core/task.js';
import type { Agent, EpisodePolicy, TurnContext } from './agent.js';

/**
 * A person at a terminal: shows each observation and reads the next action. A line ending with
 * a backslash continues on the next line; the terminal keeps a history (arrow keys); end of input
 * (Ctrl-D) ends the episode.
 */
export class HumanAgent implements Agent {
  readonly name = 'human';
  readonly #input: Readable;
  readonly #output: Writable;
  #lines: Interface | undefined;
  readonly #buffered: string[] = [];
  readonly #waiting: ((line: string | undefined) => void)[] = [];
  #ended = false;

  constructor(input: Readable = process.stdin, output: Writable = process.stdout) {
    this.#input = input;
    this.#output = output;
  }

  #open(): Interface {
    if (this.#lines) return this.#lines;
    const lines = createInterface({
      input: this.#input,
      output: this.#output,
      terminal: Boolean((this.#input as { isTTY?: boolean }).isTTY),
      historySize: 500,
    });
    lines.on('line', (line) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(line);
      else this.#buffered.push(line);
    });
    lines.on('close', () => {
      this.#ended = true;
      for (const waiter of this.#waiting.splice(0)) waiter(undefined);
    });
    this.#lines = lines;
    return lines;
  }

  #readLine(prompt: string): Promise<string | undefined> {
    const lines = this.#open();
    const buffered = this.#buffered.shift();
    if (buffered !== undefined) return Promise.resolve(buffered);
    if (this.#ended) return Promise.resolve(undefined);
    lines.setPrompt(prompt);
    lines.prompt();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  async #readAction(): Promise<string | undefined> {
    const parts: string[] = [];
    let prompt = '> ';
    for (;;) {
      const line = await this.#readLine(prompt);
      if (line === undefined) return parts.length > 0 ? parts.join('\n') : undefined;
      if (line.endsWith('\\')) {
        parts.push(line.slice(0, -1));
        prompt = '… ';
        continue;
      }
      parts.push(line);
      const text = parts.join('\n');
      if (text.trim() === '') {
        parts.length = 0;
        prompt = '> ';
        continue;
      }
      return text;
    }
  }

  episode(task: Task): EpisodePolicy {
    return {
      act: async (context: TurnContext) => {
        if (context.turn === 0) {
          this.#output.write(`\nTask ${task.id}${task.group ? ` (${task.group})` : ''}:\n${task.query}\n`);
          this.#output.write('Type commands; `submit` to finish, `skip` to give up, Ctrl-D to stop.\n');
        } else {
          const text = context.observation.text;
          this.#output.write(text === '' ? '(no output)\n' : text.endsWith('\n') ? text : `${text}\n`);
        }
        return this.#readAction();
      },
    };
  }

  /** Releases the terminal. */
  close(): void {
    this.#lines?.close();
  }
}
