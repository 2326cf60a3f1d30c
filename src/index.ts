// The public API of the package: what a library user needs to run, extend and evaluate environments.
// Internals (cgroups, exit cleanup, image builds, upstream download tables, …) are not exported; the
// sandbox conformance suite is `intercode/testkit`.

// Agents.
export type { Agent, EpisodePolicy, TurnContext, TurnRecord } from './agents/agent.js';
export { GoldAgent } from './agents/gold-agent.js';
export { HumanAgent } from './agents/human-agent.js';
export { ReplayAgent } from './agents/replay/replay-agent.js';
// The environment contract.
export { type Action, formatAction, parseAction, toAction } from './core/action.js';
export type {
  Env,
  ForkResult,
  Observation,
  ResetInfo,
  ResetOptions,
  Score,
  StepInfo,
  StepResult,
  WarmPoolStats,
} from './core/env.js';
export {
  DatasetError,
  EnvError,
  type ErrorCode,
  IntercodeError,
  RegistryError,
  SandboxError,
  UsageError,
} from './core/errors.js';
export type { CheckItem } from './core/host/check-item.js';
export { Registry } from './core/registry.js';
export { shellQuote } from './core/shell-quote.js';
export type { Dataset, Task } from './core/task.js';
export { TimeLimit } from './core/time-limit.js';
// Datasets.
export { builtinDatasets, createDatasetRegistry } from './datasets/dataset-registry.js';
export type { DatasetSpec } from './datasets/dataset-spec.js';
export { type DatasetLocation, locateDataset, resolveDataset } from './datasets/resolve-dataset.js';
export { loadTaskFile } from './datasets/task-file.js';
// Environments.
export { BashEnv, type BashEnvOptions } from './envs/bash/bash-env.js';
export { ctfEnvironment } from './envs/ctf/ctf-env.js';
export {
  type ActionOutcome,
  type DefinedEnvironment,
  defineEnvironment,
  type EnvironmentImage,
  type EnvironmentSpec,
  type EpisodeContext,
  type HistoryEntry,
  isDefinedEnvironment,
  type RewardContext,
  type RewardResult,
  type TaskFile,
  type ToolRequirement,
} from './envs/define-environment.js';
export {
  COMPAT_MODES,
  type Compat,
  type EnvConfig,
  type EnvDefinition,
  type EnvFactory,
  type EnvOpenOptions,
  type SandboxEnvConfig,
  type SandboxEnvDefinition,
  type SqlEnvConfig,
  type SqlEnvDefinition,
} from './envs/env-definition.js';
export { createEnvRegistry } from './envs/env-registry.js';
export { PythonEnv, type PythonEnvOptions } from './envs/python/python-env.js';
export type { SandboxEnvOptions } from './envs/sandbox-env-options.js';
export { SqlEnv, type SqlEnvOptions } from './envs/sql/sql-env.js';
// Running episodes.
export {
  type EpisodeRecord,
  failedEpisodeRecord,
  parseEpisodeRecords,
  readEpisodeRecords,
} from './harness/episode-record.js';
// Reports of run directories beside the paper's figures, and their ATIF export.
export { type AtifTrajectory, atifTrajectorySchema } from './harness/export/atif-schema.js';
export { exportAtif } from './harness/export/export-atif.js';
export { computeMetrics, type Metrics, metricsByGroup } from './harness/metrics.js';
export { PAPER, type PaperFigure, type PaperSource } from './harness/paper/paper-figure.js';
export { PAPER_FIGURES } from './harness/paper/paper-figures.js';
export { type PaperSetting, paperFiguresFor } from './harness/paper/paper-lookup.js';
export { paperModelName } from './harness/paper/paper-model-name.js';
export { EpisodeAborted, type PlayOptions, playEpisode } from './harness/play-episode.js';
export type { Reporter, RunEnd, RunStart } from './harness/reporter.js';
export { type RunOptions, type RunResult, runBenchmark } from './harness/run-benchmark.js';
export type { RunConfig, SandboxRunSettings, SqlRunSettings } from './harness/run-config.js';
export { type RunDirectory, readRunDirectory } from './harness/run-files/read-run-directory.js';
export { readRunSummary } from './harness/run-files/read-run-summary.js';
export { runSummarySchema } from './harness/run-files/run-summary-schema.js';
export {
  type OpenedRun,
  type PlanRegistries,
  planRun,
  RunPlan,
  type RunSetupDescription,
} from './harness/run-plan.js';
export { combinedReport, type PaperComparison, type RunReport, runReport } from './harness/run-report.js';
export {
  RUN_SUMMARY_VERSION,
  type RunDescription,
  type RunSummary,
  type SkippedTask,
  summarize,
} from './harness/run-summary.js';
// Sandboxes.
export { BwrapProvider } from './sandbox/bwrap/bwrap-provider.js';
export { DockerBackend } from './sandbox/docker/docker-backend.js';
export { createProviderRegistry, type SandboxProviderFactory } from './sandbox/provider-registry.js';
export type {
  ExecOptions,
  ExecResult,
  FileChange,
  ProviderCheck,
  Sandbox,
  SandboxLimits,
  SandboxProcess,
  SandboxProvider,
  SandboxSpec,
  SandboxStats,
  ShellSession,
} from './sandbox/sandbox.js';
// The environment server (OpenEnv protocol) and its wire types.
export type { McpCallContext, McpGateway } from './server/app/mcp-gateway.js';
export type { ServerOptions } from './server/app/server-options.js';
export { type RunningServer, startServer } from './server/app/start-server.js';
export type { EnvSession } from './server/session/env-session.js';
export { SessionError, type WireErrorCode } from './server/session/session-error.js';
export type { SessionHost } from './server/session/session-host.js';
export type {
  ObservationProfile,
  ResetParams,
  SessionParams,
  ValidationIssue,
  WireAction,
  WireObservation,
  WireState,
  WireStep,
} from './server/session/wire-schemas.js';
// SQL engines.
export { createSqlEngine } from './sql/engine/create-sql-engine.js';
export type { QueryOptions, QueryOutcome, SqlEngine, SqlSession } from './sql/engine/sql-engine.js';
export { SQL_ENGINES, type SqlEngineName } from './sql/engine/sql-engine-name.js';
