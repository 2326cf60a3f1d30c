/**
 * The test files of the `integration` Vitest project: each needs root, a sandbox, a daemon, a database
 * server, or a CLI run that needs one of them. Every other test file is in the `unit` project, which a
 * contributor runs without root (`npm run test:unit`). A new file that needs any of these goes here.
 */
export const INTEGRATION_FILES: readonly string[] = [
  // The package as a user installs it, then the CLI in real bwrap sandboxes.
  'test/package.test.ts',
  // The CLI in real sandboxes (bwrap, docker) or against database servers it starts.
  'test/cli/commands/bench-command.test.ts',
  'test/cli/commands/play-command.test.ts',
  'test/cli/commands/report-command.test.ts',
  'test/cli/commands/run-command.bad-input.test.ts',
  'test/cli/commands/run-command.test.ts',
  'test/cli/commands/run-command.llm.test.ts',
  'test/cli/commands/run-command.ctf.test.ts',
  'test/cli/commands/run-command.details.test.ts',
  'test/cli/commands/run-command.docker.test.ts',
  'test/cli/commands/run-command.sql-server-failure.test.ts',
  'test/cli/commands/run-command.sql.test.ts',
  'test/cli/commands/run-command.replay-model.test.ts',
  'test/cli/commands/serve-command.test.ts',
  // intercode mcp over stdio (the compiled CLI, bwrap sandboxes) and the server's /mcp.
  'test/server/mcp/mcp-gateway.test.ts',
  'test/server/mcp/mcp-stdio.test.ts',
  'test/examples/node-repl.test.ts',
  // Distributed runs: a private redis-server, worker processes of the CLI.
  'test/queue/distributed-run.test.ts',
  'test/queue/interruptions.test.ts',
  'test/queue/failures-and-checks.test.ts',
  'test/queue/llm-runs.test.ts',
  // Built-in datasets played in sandboxes or on MariaDB/PostgreSQL.
  'test/datasets/demo/demo-bash.sandbox.test.ts',
  'test/datasets/demo/demo-python.gold.test.ts',
  'test/datasets/demo/demo-sql.gold.test.ts',
  // Environments and the runner in real sandboxes.
  'test/envs/bash/bash-env.test.ts',
  'test/envs/bash/bash-env.compat.test.ts',
  'test/envs/bash/bash-env-fork.test.ts',
  'test/envs/bash/bash-env.deterministic.test.ts',
  'test/envs/bash/bash-env.gold-cache.test.ts',
  'test/envs/bash/bash-env.warm.test.ts',
  'test/envs/bash/bash-env.upstream-gold.test.ts',
  'test/envs/bash/bash-env.hostile.test.ts',
  'test/envs/bash/bash-env.docker.test.ts',
  'test/envs/bash/git-status-changes.test.ts',
  'test/envs/ctf/ctf-env.test.ts',
  'test/envs/defined-env.test.ts',
  'test/envs/sql/gold-isolation.test.ts',
  'test/envs/python/mbpp-gold.test.ts',
  'test/envs/python/python-env.test.ts',
  'test/envs/python/python-env-fork.test.ts',
  'test/envs/python/python-env.deterministic.test.ts',
  'test/envs/python/python-env.gold-cache.test.ts',
  'test/envs/python/python-hostile.test.ts',
  'test/envs/python/python-judge.test.ts',
  'test/envs/python/python-env.warm-pool.test.ts',
  'test/envs/python/python-frozen-fork.test.ts',
  'test/envs/python/driver-bytecode.test.ts',
  'test/harness/bench/env-bench.test.ts',
  'test/harness/bench/kept-gold-bench.test.ts',
  'test/envs/python/python-env.docker.test.ts',
  'test/harness/run-benchmark.test.ts',
  // The environment server: sessions in real sandboxes.
  'test/server/session/env-session.bash.test.ts',
  // The environment server on a loopback port.
  'test/server/http/http-server.test.ts',
  'test/server/http/session-fork.test.ts',
  'test/server/ws/ws-endpoint.test.ts',
  'test/server/ws/ws-sessions.bash.test.ts',
  // Sandbox backends, their conformance suite and the Debian images (mmdebstrap, root).
  'test/sandbox/bwrap-conformance.test.ts',
  'test/sandbox/bwrap-debian-conformance.test.ts',
  'test/sandbox/docker-conformance.test.ts',
  'test/sandbox/docker-digest.test.ts',
  'test/sandbox/hostile-scorer.test.ts',
  'test/sandbox/provider-images.test.ts',
  'test/sandbox/images/debian-image.test.ts',
  // The MariaDB and PostgreSQL servers and the engines on them.
  'test/sql/server/mariadb-server.test.ts',
  'test/sql/server/postgres-server.test.ts',
  'test/sql/server/server-store-cap.test.ts',
  'test/sql/engine/mysql/mysql-account-check.test.ts',
  'test/sql/engine/postgres/postgres-account-check.test.ts',
  'test/sql/engine/mysql/mysql-engine.test.ts',
  'test/sql/engine/mysql/mysql-privileges.test.ts',
  'test/sql/engine/postgres/postgres-engine.test.ts',
  'test/sql/engine/postgres/postgres-introspection.test.ts',
  'test/sql/engine/postgres/postgres-privileges.test.ts',
  'test/sql/engine/postgres/postgres-reset.test.ts',
  // The Python client against a real intercode serve.
  'test/clients/python-client.test.ts',
  // `intercode serve` started from the CLI: the protocol conformance and hostile-traffic suites.
  'test/server/conformance-auth-options.test.ts',
  'test/server/conformance-bash.test.ts',
  'test/server/conformance-http-discovery.test.ts',
  'test/server/conformance-http-episodes.test.ts',
  'test/server/conformance-lifecycle.test.ts',
  'test/server/conformance-ws.test.ts',
  'test/server/hostile-sessions.test.ts',
  'test/server/hostile-traffic.test.ts',
  // intercode serve --out: episodes recorded in run directories.
  'test/server/serve-recording.test.ts',
  // The viewer's page in headless Chromium (Debian's), on runs the CLI writes.
  'test/viewer/viewer.browser.test.ts',
  'test/viewer/viewer-hostile.browser.test.ts',
  'test/viewer/viewer-large.browser.test.ts',
  'test/viewer/viewer-llm.browser.test.ts',
];
