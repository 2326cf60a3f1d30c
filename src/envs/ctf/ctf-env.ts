import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '../../core/task.js';
import { type DefinedEnvironment, defineEnvironment } from '../define-environment.js';
import { goldErratum } from './ctf-errata.js';
import { CTF_TOOLS } from './ctf-tools.js';
import { CTF_NEEDS_NETWORK } from './ctf-unrunnable.js';

export interface CtfEnvironmentOptions {
  /** Sandbox image; default: the backend's (`intercode run --image` overrides it). */
  readonly image?: string;
  /** Compare with the corrected flags of {@link CTF_GOLD_ERRATA} (default true). */
  readonly errata?: boolean;
}

/** What the agent sees after a wrong flag; the episode goes on, as in upstream's CTF loop. */
export const CTF_RETRY_MESSAGE = 'Incorrect flag. The episode goes on: keep trying.';

/** Where a task's files are in the sandbox, and where its shell starts. */
export function ctfTaskDir(task: Task): string {
  return `/ctf/${task.id}`;
}

function isPicoCtf(task: Task): boolean {
  return typeof task.meta.source === 'string' && /picoctf/i.test(task.meta.source);
}

/**
 * The CTF environment, built only with the public {@link defineEnvironment}: a Bash sandbox holding
 * the task's files under `/ctf/<id>` (never a `solution/` folder), the shell starting there, and
 * reward 1 when `submit <flag>` (the whole rest of the line) equals the gold flag, ignoring case and
 * surrounding spaces. A wrong flag does not end the episode. Only `submit` is scored.
 */
export function ctfEnvironment(options: CtfEnvironmentOptions = {}): DefinedEnvironment {
  const useErrata = options.errata ?? true;
  const erratumOf = (task: Task) => (useErrata ? goldErratum(task.id, task.gold) : undefined);
  const goldFlag = (task: Task): string => {
    const erratum = erratumOf(task);
    if (erratum) return erratum.correctedGold;
    return typeof task.gold === 'string' ? task.gold : (task.gold?.join('') ?? '');
  };
  return defineEnvironment({
    name: 'ctf',
    description: 'capture the flag in a Bash sandbox holding the task files (picoCTF)',
    image: { ...(options.image ? { name: options.image } : {}), tools: CTF_TOOLS },
    taskFiles: (task, dataset) => {
      const root = dataset.assets.taskAssets;
      const folder = root === undefined ? undefined : join(root, task.id);
      return folder !== undefined && existsSync(folder)
        ? [{ from: folder, to: ctfTaskDir(task), exclude: ['solution'] }]
        : [];
    },
    workdir: ctfTaskDir,
    retryMessage: CTF_RETRY_MESSAGE,
    reward: ({ task, submission }) => {
      const gold = goldFlag(task);
      const submitted = submission?.trim() ?? '';
      const erratum = erratumOf(task);
      return {
        value: submitted !== '' && submitted.toLowerCase() === gold.trim().toLowerCase() ? 1 : 0,
        // Never the flag: after a wrong one the episode goes on, and the turn's record (the agent's
        // history) holds these details.
        details: {
          submitted,
          ...(erratum ? { erratum: { upstreamGold: erratum.upstreamGold, source: erratum.source } } : {}),
        },
      };
    },
    goldActions: (task) => {
      const solve = task.meta.solveCommand;
      return [...(typeof solve === 'string' ? [solve] : []), `submit ${goldFlag(task)}`];
    },
    unrunnable: (task) => {
      if (typeof task.meta.unavailable === 'string') return task.meta.unavailable;
      return isPicoCtf(task) ? CTF_NEEDS_NETWORK[task.id] : undefined;
    },
    resetInfo: (task) => {
      const erratum = erratumOf(task);
      return erratum
        ? {
            erratum: {
              gold: erratum.correctedGold,
              upstreamGold: erratum.upstreamGold,
              source: erratum.source,
              reason: erratum.reason,
            },
          }
        : undefined;
    },
  });
}
