import { SingleBar } from 'cli-progress';
import type { RetryRecord } from '../../agents/llm/model-client.js';
import type { EpisodeRecord } from '../../harness/episode-record.js';
import type { Reporter, RunStart } from '../../harness/reporter.js';

/**
 * The progress bar of `intercode run` on a terminal (stderr): episodes done, solved, time left, and
 * a language model's retries as they happen (until the next episode ends).
 */
export class ProgressBarReporter implements Reporter {
  readonly #bar = new SingleBar({
    format: 'intercode run {bar} {value}/{total} | solved {solved} | eta {eta_formatted}{retry}',
    hideCursor: true,
    stream: process.stderr,
  });
  #solved = 0;
  #retries = 0;

  onRunStart(start: RunStart): void {
    this.#bar.start(start.total, 0, { solved: this.#solved, retry: '' });
  }

  onEpisodeEnd(record: EpisodeRecord): void {
    if (record.success) this.#solved += 1;
    this.#bar.increment(1, { solved: this.#solved });
  }

  /** A model call is being retried: shown on the bar with the count of retries so far. */
  onRetry(retry: RetryRecord): void {
    this.#retries += 1;
    this.#bar.update({
      retry: ` | retries ${this.#retries} (last: ${retry.reason}, attempt ${retry.attempt}, waiting ${(retry.waitMs / 1000).toFixed(1)} s)`,
    });
  }

  onRunEnd(): void {
    this.stop();
  }

  /** Stops drawing (also when the run failed before its end). */
  stop(): void {
    this.#bar.stop();
  }
}
