import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpToolGateway } from '../../../src/server/mcp/mcp-tool-gateway.js';
import type { SessionHost } from '../../../src/server/session/session-host.js';

/**
 * `/mcp` of a session host on a real loopback socket, routed as the app's `/mcp` route is asked to
 * route it (docs/server/mcp.md): the parsed body to `handleHttp` first (Streamable HTTP sessions),
 * else to `handleJsonRpc`. Until the app's route calls `handleHttp`, MCP clients over Streamable
 * HTTP are tested here.
 */
export interface GatewayServer {
  readonly url: string;
  readonly gateway: McpToolGateway;
  close(): Promise<void>;
}

export async function startGatewayServer(host: SessionHost): Promise<GatewayServer> {
  const gateway = new McpToolGateway({ version: '0.0.0-test' });
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body: unknown = text === '' ? undefined : JSON.parse(text);
        const context = { host, owner: request.socket.remoteAddress ?? '' };
        if (await gateway.handleHttp(request, response, body, context)) return;
        const reply = await gateway.handleJsonRpc(body ?? {}, context);
        if (reply === undefined) response.writeHead(202).end();
        else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      })().catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500);
        response.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    gateway,
    close: async () => {
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
