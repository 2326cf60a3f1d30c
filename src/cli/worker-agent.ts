import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoldAgent } from '../agents/gold-agent.js';
import { ReplayAgent } from '../agents/replay/replay-agent.js';
import type { Dataset } from '../core/task.js';
import type { RunPlan } from '../harness/run-plan.js';
import type { WorkerRun } from '../queue/run-context.js';
import type { AgentSpec } from '../queue/run-meta.js';

/** The agent of a distributed run on a worker, from its plain-data spec. */
export function workerAgent(
  spec: AgentSpec,
  plan: RunPlan,
  dataset: Dataset,
): Pick<WorkerRun, 'agent' | 'closeAgent'> {
  switch (spec.kind) {
    case 'gold':
      return { agent: new GoldAgent(plan.definition.goldActions) };
    case 'replay': {
      // The recordings travel with the run; the replay agent reads files, so they are written here.
      const dir = mkdtempSync(join(tmpdir(), 'intercode-replay-'));
      const paths = spec.trajectories.map((file, position) => {
        const path = join(dir, `${position}-${file.name.replace(/[^\w.-]+/g, '_')}`);
        writeFileSync(path, file.text);
        return path;
      });
      const agent = new ReplayAgent(paths);
      agent.bind(dataset.tasks);
      return { agent, closeAgent: async () => rmSync(dir, { recursive: true, force: true }) };
    }
    case 'llm':
      throw new Error('this worker cannot play language-model runs from the queue yet');
  }
}
