/** Per-episode limits of a language-model agent (`--max-episode-tokens`, `--max-episode-seconds`). */
export interface EpisodeLimitOptions {
  /** Input plus output tokens of all of the episode's model calls. */
  readonly maxTokens?: number;
  readonly maxSeconds?: number;
}

/**
 * Counts an episode's tokens and time and says when a limit is reached: the strategy then ends the
 * episode with a `stop` turn (recorded as truncated, `truncatedBy` `tokens` or `time`). Checked before
 * each turn, so a turn that crosses a limit is played and the next one is not.
 */
export class EpisodeLimits {
  readonly #options: EpisodeLimitOptions;
  readonly #now: () => number;
  #started: number | undefined;
  #tokens = 0;

  constructor(options: EpisodeLimitOptions, now: () => number = () => performance.now()) {
    this.#options = options;
    this.#now = now;
  }

  /** Starts the clock (at the first turn, so that time spent before the episode is not counted). */
  start(): void {
    this.#started ??= this.#now();
  }

  add(tokens: number): void {
    this.#tokens += tokens;
  }

  get tokens(): number {
    return this.#tokens;
  }

  /** The limit reached, if any. */
  reached(): 'tokens' | 'time' | undefined {
    const { maxTokens, maxSeconds } = this.#options;
    if (maxTokens !== undefined && this.#tokens >= maxTokens) return 'tokens';
    if (maxSeconds !== undefined && this.#started !== undefined) {
      if (this.#now() - this.#started >= maxSeconds * 1000) return 'time';
    }
    return undefined;
  }
}
