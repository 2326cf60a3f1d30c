import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpGateway } from '../../../src/server/mcp/mcp-gateway.js';
import type { SessionHost } from '../../../src/server/session/session-host.js';

/** `/mcp` of a session host on a real loopback socket, as the app mounts it (JSON body parsed first). */
export interface GatewayServer {
  readonly url: string;
  readonly gateway: McpGateway;
  close(): Promise<void>;
}

export async function startGatewayServer(host: SessionHost): Promise<GatewayServer> {
  const gateway = new McpGateway({ sessions: host.sessions, version: '0.0.0-test' });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        res.writeHead(400).end();
        return;
      }
      gateway.handleHttp(req, res, body, req.socket.remoteAddress ?? '').catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(error));
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
