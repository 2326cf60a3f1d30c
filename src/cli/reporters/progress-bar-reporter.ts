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
    format: 'intercode run {bar} {value}/{total} | solved {solved} | eta {eta_formatted}{workers}{retry}',
    hideCursor: true,
    stream: process.stderr,
  });
  #solved = 0;
  #retries = 0;
  #done = 0;
  #started = performance.now();

  onRunStart(start: RunStart): void {
    this.#started = performance.now();
    this.#bar.start(start.total, 0, { solved: this.#solved, retry: '', workers: '' });
  }

  /** A distributed run's workers: announced now and seen since the start, with episodes per second. */
  onWorkers(live: number, seen: number): void {
    const rate = this.#done / Math.max(0.001, (performance.now() - this.#started) / 1000);
    this.#bar.update({ workers: ` | workers ${live} (seen ${seen}) | ${rate.toFixed(1)} ep/s` });
  }

  /** A line above the bar (a worker's refusal, a lost connection). */
  note(line: string): void {
    process.stderr.write(`\r\x1b[2Kintercode: ${line}\n`);
    this.#bar.render();
  }

  onEpisodeEnd(record: EpisodeRecord): void {
    this.#done += 1;
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
