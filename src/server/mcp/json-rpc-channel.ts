import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * A transport of one request at a time and its reply, for MCP messages that arrive inside another
 * protocol: OpenEnv's JSON-RPC on `POST /mcp` (`params.session_id`) and the WebSocket `mcp` frame.
 * The server's own notifications (a resource update) have no way back here and are dropped; a
 * client that wants them uses Streamable HTTP or stdio.
 */
export class JsonRpcChannel implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #waiting = new Map<RequestId, (reply: JSONRPCMessage) => void>();

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (!('id' in message) || message.id === undefined || 'method' in message) return;
    const resolve = this.#waiting.get(message.id);
    this.#waiting.delete(message.id);
    resolve?.(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /**
   * Hands `message` to the server: a request resolves with its reply, a notification at once with
   * undefined. Two requests in flight with the same id would mix their replies: the caller's id is
   * its own business, so each request here goes out under a private id and comes back under the
   * caller's.
   */
  request(message: JSONRPCMessage): Promise<JSONRPCMessage | undefined> {
    if (!('method' in message) || !('id' in message) || message.id === undefined) {
      this.onmessage?.(message);
      return Promise.resolve(undefined);
    }
    const callerId = message.id;
    const privateId = `channel-${++this.#next}`;
    return new Promise((resolve) => {
      this.#waiting.set(privateId, (reply) => resolve({ ...reply, id: callerId } as JSONRPCMessage));
      this.onmessage?.({ ...message, id: privateId } as JSONRPCMessage);
    });
  }

  #next = 0;
}
