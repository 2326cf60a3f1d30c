import { createServer, type Server } from 'node:http';

/** The answer of the bench's endpoint: a fenced command that also reads as a two-step plan. */
const PLAN_AND_CODE = '1. List the files.\n2. Count them.\n\n```bash\nls /data | wc -l\n```';
const REACT = 'Thought: count the files\nAction: execute[ls /data | wc -l]';

/**
 * A loopback OpenAI-compatible chat-completions endpoint for `intercode bench --only llm`: it answers
 * at once, in the shape each strategy expects (a tool call when tools are offered, a ReAct step when
 * a stop sequence is set, else a fenced command that is also a numbered plan), so that the bench
 * measures the harness's own loop through the real provider client. (Tests use the testkit's
 * ScriptedLlmServer; `src/` may not import the testkit.)
 */
export class BenchLlmEndpoint {
  readonly #server: Server;
  /** Base URL of the OpenAI-compatible API (`http://127.0.0.1:PORT/v1`). */
  readonly url: string;
  #requests = 0;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
  }

  static async start(): Promise<BenchLlmEndpoint> {
    let count: (() => void) | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        count?.();
        if (request.method === 'GET') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          tools?: unknown[];
          stop?: unknown;
        };
        const message =
          body.tools && body.tools.length > 0
            ? {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: 'call_1',
                    type: 'function',
                    function: { name: 'execute', arguments: JSON.stringify({ code: 'ls /data | wc -l' }) },
                  },
                ],
              }
            : { role: 'assistant', content: body.stop ? REACT : PLAN_AND_CODE };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'bench',
            object: 'chat.completion',
            created: 0,
            model: 'bench',
            choices: [{ index: 0, message, finish_reason: body.tools?.length ? 'tool_calls' : 'stop' }],
            usage: { prompt_tokens: 500, completion_tokens: 20, total_tokens: 520 },
          }),
        );
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the bench endpoint got no port');
    const endpoint = new BenchLlmEndpoint(server, `http://127.0.0.1:${address.port}/v1`);
    count = () => {
      endpoint.#requests += 1;
    };
    return endpoint;
  }

  /** Requests answered so far. */
  get requests(): number {
    return this.#requests;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }
}
