import { SingleBar } from 'cli-progress';
import type { EpisodeRecord } from '../../harness/episode-record.js';
import type { Reporter, RunStart } from '../../harness/reporter.js';

/** The progress bar of `intercode run` on a terminal (stderr): episodes done, solved, time left. */
export class ProgressBarReporter implements Reporter {
  readonly #bar = new SingleBar({
    format: 'intercode run {bar} {value}/{total} | solved {solved} | eta {eta_formatted}',
    hideCursor: true,
    stream: process.stderr,
  });
  #solved = 0;

  onRunStart(start: RunStart): void {
    this.#bar.start(start.total, 0, { solved: this.#solved });
  }

  onEpisodeEnd(record: EpisodeRecord): void {
    if (record.success) this.#solved += 1;
    this.#bar.increment(1, { solved: this.#solved });
  }

  onRunEnd(): void {
    this.stop();
  }

  /** Stops drawing (also when the run failed before its end). */
  stop(): void {
    this.#bar.stop();
  }
}
