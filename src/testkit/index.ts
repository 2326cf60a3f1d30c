export type { ConformanceFixtures } from './conformance-fixtures.js';
export type { HostProbe, HostResidue, SandboxConformanceOptions } from './conformance-options.js';
export {
  type CrashOwner,
  type CrashOwnerOptions,
  type CrashOwnerReport,
  runCrashOwner,
  startCrashOwner,
} from './crash-owner.js';
export * from './host-processes.js';
export { type HostSecret, removeHostSecrets, writeHostSecrets } from './host-secrets.js';
export { LoopbackServer } from './loopback-server.js';
export { describeSandboxConformance } from './sandbox-conformance.js';
export {
  type LlmApi,
  type LlmScript,
  type RecordedLlmRequest,
  ScriptedLlmServer,
  type ScriptedLlmServerOptions,
  type ScriptStep,
  type ScriptToolCall,
  type ScriptUsage,
} from './scripted-llm-server.js';
export { waitUntil } from './wait-until.js';
