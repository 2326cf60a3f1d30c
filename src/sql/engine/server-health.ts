import type { ManagedServer } from '../server/managed-server.js';
import { errorReason, SqlEngineError } from './sql-engine-error.js';

/**
 * Whether a database server still answers (`ping` within 5 s). When it does not, the error that
 * says so; a server of our own that stopped answering is dying, so its exit is awaited first (up to
 * 2 s) and gives the better message in its log.
 */
export async function unansweredServer(
  ping: () => Promise<unknown>,
  server: ManagedServer | undefined,
  title: string,
): Promise<SqlEngineError | undefined> {
  try {
    await Promise.race([
      ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 5 s')), 5_000).unref()),
    ]);
    return undefined;
  } catch (error) {
    if (server) {
      await new Promise<void>((resolve) => {
        server.onExit(() => resolve());
        setTimeout(resolve, 2_000).unref();
      });
    }
    const reason = errorReason(error);
    return new SqlEngineError('SQL_ENGINE_FAILED', `the ${title} server does not answer: ${reason}`, {
      cause: error,
    });
  }
}
