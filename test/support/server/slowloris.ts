import { connect } from 'node:net';

/** How one dribbling connection ended. */
export interface SlowlorisEnd {
  /** Seconds from connect until the socket was closed. */
  readonly seconds: number;
  /** Whether the server closed it (false: the give-up deadline closed it from our side). */
  readonly closedByServer: boolean;
  /** What the server wrote before closing (e.g. a 408 status line), first 200 bytes. */
  readonly reply: string;
}

/**
 * Opens a TCP connection to `port` and dribbles an HTTP request head that never ends, one byte every
 * `everyMs`, until the server closes the connection or `giveUpMs` passes.
 */
export function slowloris(port: number, everyMs = 500, giveUpMs = 60_000): Promise<SlowlorisEnd> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const head = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Slow: '.padEnd(10_000, 'a')}`;
    let at = 0;
    let reply = '';
    let byUs = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearInterval(timer);
      clearTimeout(deadline);
      resolve({ seconds: (Date.now() - started) / 1000, closedByServer: !byUs, reply: reply.slice(0, 200) });
    };
    const deadline = setTimeout(() => {
      byUs = true;
      socket.destroy();
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      reply += chunk;
    });
    socket.on('error', () => {
      // a reset by the server ends in 'close' as well
    });
    socket.on('close', finish);
    socket.on('connect', () => {
      timer = setInterval(() => {
        if (socket.destroyed || at >= head.length) return;
        socket.write(head[at]!);
        at += 1;
      }, everyMs);
    });
  });
}
