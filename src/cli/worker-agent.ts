import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoldAgent } from '../agents/gold-agent.js';
import { ReplayAgent } from '../agents/replay/replay-agent.js';
import type { Dataset } from '../core/task.js';
import type { RunPlan } from '../harness/run-plan.js';
import type { WorkerRun } from '../queue/run-context.js';
import type { AgentSpec, InlineFile } from '../queue/run-meta.js';
import { RunRefused } from '../queue/run-refused.js';
import { type LlmFlags, setUpLlm } from './llm-flags.js';
import { llmFlagsOfSpec } from './llm-spec.js';

/** Writes files that travel with the run into a temporary folder (their paths, and how to remove it). */
function writeInlineFiles(files: readonly InlineFile[], label: string) {
  const dir = mkdtempSync(join(tmpdir(), `intercode-${label}-`));
  const paths = files.map((file, position) => {
    const path = join(dir, String(position), file.name.replace(/[^\w.-]+/g, '_'));
    mkdirSync(join(dir, String(position)));
    writeFileSync(path, file.text);
    return path;
  });
  return { paths, remove: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The agent of a distributed run on a worker, from its plain-data spec. A language-model agent is
 * built with the run's flags and checked (key from this worker's environment, endpoint, model):
 * a failing check refuses the run ({@link RunRefused}) so that other workers play it.
 */
export async function workerAgent(
  spec: AgentSpec,
  plan: RunPlan,
  dataset: Dataset,
  log: (line: string) => void,
): Promise<Pick<WorkerRun, 'agent' | 'closeAgent' | 'prefixes'>> {
  switch (spec.kind) {
    case 'gold':
      return { agent: new GoldAgent(plan.definition.goldActions) };
    case 'replay': {
      // The recordings travel with the run; the replay agent reads files, so they are written here.
      const files = writeInlineFiles(spec.trajectories, 'replay');
      const agent = new ReplayAgent(files.paths);
      agent.bind(dataset.tasks);
      return { agent, closeAgent: files.remove };
    }
    case 'llm': {
      const { flags: travelled, files: inline } = llmFlagsOfSpec(spec.flags);
      const files = writeInlineFiles(
        [inline.model, inline.prices].filter((file) => file !== undefined),
        'llm',
      );
      const flags: LlmFlags = { ...travelled };
      let next = 0;
      if (inline.model) flags.model = `replay:${files.paths[next++]}`;
      if (inline.prices) flags.prices = files.paths[next++];
      try {
        const llm = await setUpLlm(flags, {
          env: plan.envName,
          handicap: Boolean(plan.config.sql?.handicap),
          onRetry: (retry) =>
            log(
              `model call retry ${retry.attempt} after ${retry.reason}, waiting ${(retry.waitMs / 1000).toFixed(1)} s`,
            ),
        });
        return {
          agent: llm.agent,
          prefixes: (name) => llm.prefixes.get(name),
          closeAgent: async () => {
            await llm.client.close?.();
            await files.remove();
          },
        };
      } catch (error) {
        await files.remove();
        throw new RunRefused(error instanceof Error ? error.message : String(error));
      }
    }
  }
}
