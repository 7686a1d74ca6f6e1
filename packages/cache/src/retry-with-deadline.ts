import type { Clock } from '@kubets/apimachinery';

/** Settings of a {@link RetryWithDeadline}. */
export interface RetryWithDeadlineOptions {
  /** How long a run of retryable errors may be retried, in milliseconds; `0` never retries. */
  maxRetryDurationMs: number;
  /** A pause this long since the last retryable error starts a new run, in milliseconds. */
  minResetPeriodMs: number;
  /** Which errors count. */
  isRetryable: (err: unknown) => boolean;
  /** Time source. */
  clock: Clock;
}

/**
 * Decides whether a run of retryable errors may still be retried (client-go
 * `RetryWithDeadline`): a run starts at its first retryable error and may be retried for
 * `maxRetryDurationMs`; a pause of at least `minResetPeriodMs` since the last retryable error
 * starts a new run. Errors that are not retryable neither start nor end a run. Internal to
 * the reflector.
 */
export class RetryWithDeadline {
  readonly #options: RetryWithDeadlineOptions;
  #firstErrorAt: number | undefined;
  #lastErrorAt: number | undefined;

  constructor(options: RetryWithDeadlineOptions) {
    this.#options = options;
  }

  /** Records the outcome of one attempt: `undefined` for success. */
  after(err: unknown): void {
    const { isRetryable, clock, minResetPeriodMs } = this.#options;
    if (err === undefined || !isRetryable(err)) return;
    const now = clock.now();
    if (this.#lastErrorAt !== undefined && now - this.#lastErrorAt >= minResetPeriodMs) {
      this.#reset();
    }
    this.#firstErrorAt ??= now;
    this.#lastErrorAt = now;
  }

  /**
   * Records `err` (as {@link RetryWithDeadline.after}) and tells whether it is retryable and
   * its run still within its duration.
   */
  retryNow(err: unknown): boolean {
    this.after(err);
    return err !== undefined && this.#options.isRetryable(err) && this.shouldRetry();
  }

  /** True while the current run of retryable errors is within its duration. */
  shouldRetry(): boolean {
    const { maxRetryDurationMs, clock } = this.#options;
    if (!(maxRetryDurationMs > 0) || this.#firstErrorAt === undefined) return false;
    if (clock.now() - this.#firstErrorAt <= maxRetryDurationMs) return true;
    this.#reset();
    return false;
  }

  #reset(): void {
    this.#firstErrorAt = undefined;
    this.#lastErrorAt = undefined;
  }
}
