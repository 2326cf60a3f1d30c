// The interpreter of the node-repl example: runs inside the sandbox in the background of its bash session.
// Protocol (over two FIFOs): one JSON request per line on stdin, {"code": "...", "timeoutMs": 9000}; the reply is
// "ok" or "error" on its first line, then the output, then the byte 0x04.
import { createInterface } from 'node:readline';
import { format, inspect } from 'node:util';
import vm from 'node:vm';

/** @type {string[]} */
let printed = [];
const print = (/** @type {unknown[]} */ ...values) => {
  printed.push(format(...values));
};
const context = vm.createContext({
  console: { log: print, info: print, warn: print, error: print, debug: print },
  setTimeout,
  clearTimeout,
  URL,
  TextEncoder,
  TextDecoder,
  structuredClone,
});

/** @param {{ code: string, timeoutMs?: number }} request */
async function evaluate(request) {
  printed = [];
  const timeout = request.timeoutMs ?? 9000;
  try {
    let result = vm.runInContext(request.code, context, { filename: 'action.js', timeout });
    if (result && typeof result.then === 'function') {
      result = await Promise.race([
        result,
        new Promise((_, reject) => setTimeout(() => reject(new Error('promise did not settle')), timeout)),
      ]);
    }
    if (result !== undefined) printed.push(inspect(result));
    return { status: 'ok', output: printed.join('\n') };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : `Uncaught ${inspect(error)}`;
    printed.push(message);
    return { status: 'error', output: printed.join('\n') };
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const reply = await evaluate(JSON.parse(line));
  process.stdout.write(`${reply.status}\n${reply.output}\u0004`);
}
