// @ts-check
// An environment defined outside intercode: JavaScript actions run in one persistent Node.js
// interpreter inside the sandbox. Run it with
//   intercode run examples/node-repl/tasks.json --env ./examples/node-repl/node-repl-env.js --agent gold
import { fileURLToPath } from 'node:url';
import { defineEnvironment, shellQuote } from 'intercode';

/** The interpreter script on the host, copied into every sandbox. */
const SERVER = fileURLToPath(new URL('./repl-server.js', import.meta.url));

/** @param {import('intercode').Task} task */
function goldCode(task) {
  if (task.gold === undefined) return [];
  return typeof task.gold === 'string' ? [task.gold] : [...task.gold];
}

export default defineEnvironment({
  name: 'node-repl',
  description: 'JavaScript in a persistent Node.js interpreter; a task is solved when its test holds',
  image: { name: 'host', tools: [{ command: 'node', debianPackage: 'nodejs' }] },

  // The interpreter script goes into the sandbox before each episode.
  taskFiles: () => [{ from: SERVER, to: '/opt/node-repl/server.js' }],
  workdir: () => '/work',

  // Start the interpreter in the background of the sandbox's bash session, reading and writing two
  // FIFOs it holds open both ways (so it never sees end-of-file between actions). Each command of a
  // session runs in its own process, so a coprocess's descriptors would not reach the next one.
  async setup({ shell }) {
    const started = await shell.run(
      'mkfifo /tmp/node-repl.in /tmp/node-repl.out && ' +
        '{ node /opt/node-repl/server.js <>/tmp/node-repl.in 1<>/tmp/node-repl.out 2>/tmp/node-repl.log & }',
    );
    if (started.exitCode !== 0) throw new Error(`node-repl: cannot start node: ${started.output}`);
  },

  // One action: send the code to the interpreter, read its reply (up to the byte 0x04).
  async run(code, { shell, timeoutMs }) {
    const request = JSON.stringify({ code, timeoutMs: Math.max(100, timeoutMs - 500) });
    const command = [
      `printf '%s\\n' ${shellQuote(request)} >/tmp/node-repl.in`,
      `IFS= read -r -d $'\\004' __reply </tmp/node-repl.out`,
      `printf '%s' "$__reply"`,
    ].join(' && ');
    const result = await shell.run(command, { timeoutMs });
    if (result.exitCode !== 0 || result.timedOut) {
      return { output: result.output || 'the interpreter stopped', admissible: false };
    }
    const newline = result.output.indexOf('\n');
    const status = result.output.slice(0, newline);
    return { output: result.output.slice(newline + 1), admissible: status === 'ok' };
  },

  // The reward is the task's own test: a JavaScript expression that must evaluate to true.
  async reward({ task, run }) {
    const test = String(task.meta.test);
    const outcome = await run(test);
    const passed = outcome.admissible === true && outcome.output.trim() === 'true';
    return { value: passed ? 1 : 0, details: { test, output: outcome.output } };
  },

  goldActions: (task) => [...goldCode(task), 'submit'],
});
