// Starts a database server (argv[2]: mariadb or postgres), reports it as one JSON line, and waits to
// be killed with SIGKILL. Runs the compiled package: build it first (`npm run build`).
import { MariadbServer, PostgresServer } from '../../../../../dist/envs/sql/server/index.js';
import { currentOwner } from '../../../../../dist/sandbox/owner.js';

const server = process.argv[2] === 'postgres' ? await PostgresServer.start() : await MariadbServer.start();
process.stdout.write(`${JSON.stringify({ pid: server.pid, dir: server.dir, owner: currentOwner() })}\n`);
// A crashed test runner closes our standard input: leave then (exit handlers stop the server).
process.stdin.on('close', () => process.exit(1));
process.stdin.resume();
