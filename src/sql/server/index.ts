export { checkSqlEngines, type SqlEngineCheckOptions } from './check-sql-engines.js';
export { MariadbServer, type MariadbServerOptions } from './mariadb-server.js';
export { PostgresServer, type PostgresServerOptions } from './postgres-server.js';
export { reapStaleServers, serverBaseDir } from './server-dirs.js';
