import type { Dataset } from '../core/task.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import type { Compat } from './env-definition.js';

/** What every environment that runs its episodes in sandboxes is given (Bash, Python). */
export interface SandboxEnvOptions {
  readonly dataset: Dataset;
  readonly provider: SandboxProvider;
  /** Sandbox image; default: the provider's (`host` on bwrap, `debian` on docker). */
  readonly image?: string;
  /** Time limit of one agent action (upstream: 10 s for Bash, none for Python). */
  readonly actionTimeoutMs?: number;
  /** Time limit of the gold's run (upstream has none; a gold that exceeds it is flagged corrupt). */
  readonly goldTimeoutMs?: number;
  /** Output cap per action (head and tail kept), default 1 MiB. */
  readonly maxOutputBytes?: number;
  /**
   * `fixed` (default) or `upstream`: reproduce the original's handling, bugs included, to reproduce
   * the paper's recorded numbers (each env documents what it changes).
   */
  readonly compat?: Compat;
  /**
   * Deterministic mode: the sandboxes pin their clock at `clockMs`, time zone, locale and hash seed
   * (`SandboxSpec.deterministic`), and a task's file system has pinned file times. Off by default.
   */
  readonly deterministic?: { readonly clockMs: number };
  /**
   * Warm pool: the next episode's sandboxes (and their shell or interpreter) are prepared while the
   * current one runs, so a reset does not wait for them (see {@link warmPoolEnabled}). Default on;
   * `INTERCODE_WARM_POOL=off` turns it off for every env of the process.
   */
  readonly warm?: boolean;
  /**
   * Reuse the gold's run of a task played before in this process (see `GoldCache`): default on in
   * deterministic mode, off otherwise; `INTERCODE_GOLD_CACHE=off` turns it off for every env.
   */
  readonly goldCache?: boolean;
}

/** Whether an env of these options keeps a warm pool: `warm`, unless `INTERCODE_WARM_POOL=off`. */
export function warmPoolEnabled(options: Pick<SandboxEnvOptions, 'warm'>): boolean {
  return options.warm !== false && process.env.INTERCODE_WARM_POOL !== 'off';
}

/**
 * Whether an env keeps spare sandboxes of its own: the warm pool is on and the provider's sandboxes
 * do not make their next state ready themselves (`SandboxProvider.resetsAhead`: docker's spare
 * containers), which a spare of the env's would only double.
 */
export function ownSpareWanted(options: Pick<SandboxEnvOptions, 'warm' | 'provider'>): boolean {
  return warmPoolEnabled(options) && options.provider.resetsAhead !== true;
}
