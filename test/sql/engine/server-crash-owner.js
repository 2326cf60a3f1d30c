// Starts a database server (argv[2]: mariadb or postgres), reports it as one JSON line, and waits to
// be killed with SIGKILL. Runs the compiled package: build it first (`npm run build`).

import { currentOwner } from '../../../dist/core/host/owner.js';
import { MariadbServer, PostgresServer } from '../../../dist/sql/server/index.js';

const server = process.argv[2] === 'postgres' ? await PostgresServer.start() : await MariadbServer.start();
process.stdout.write(`${JSON.stringify({ pid: server.pid, dir: server.dir, owner: currentOwner() })}\n`);
// A crashed test runner closes our standard input: leave then (exit handlers stop the server).
process.stdin.on('close', () => process.exit(1));
process.stdin.resume();
