import type { Clock, Logger } from '@kubets/apimachinery';

/** How often a streaming list that waits for its end bookmark is reported (client-go: 10 s). */
export const initialEventsEndTickMs = 10_000;

/** Settings of an {@link InitialEventsEndBookmarkTicker}. */
export interface InitialEventsEndBookmarkTickerOptions {
  /** The reflector's name, which starts every warning. */
  readonly name: string;
  /** Time source and sleep (the reflector's). */
  readonly clock: Clock;
  /** Where warnings go (at info level, as client-go logs them). */
  readonly logger: Logger;
  /** When the streaming list's request was made (clock time). */
  readonly watchStartMs: number;
  /** Period of the ticks. Default {@link initialEventsEndTickMs}. */
  readonly tickIntervalMs?: number | undefined;
  /** False for a noop ticker that never ticks nor warns (a plain watch). */
  readonly waitingForBookmark: boolean;
  /** Called at every tick instead of logging the warning (tests). */
  readonly onTick?: (() => void) | undefined;
}

/**
 * Warns, every tick interval, that a streaming list still waits for the bookmark ending its
 * initial events (client-go `initialEventsEndBookmarkTicker`): how long since the request
 * when no event came yet, or since the last event. Internal to the reflector.
 * @internal
 */
export class InitialEventsEndBookmarkTicker {
  readonly #options: InitialEventsEndBookmarkTickerOptions;
  readonly #tickIntervalMs: number;
  readonly #stop = new AbortController();
  #lastEventMs: number | undefined;

  constructor(options: InitialEventsEndBookmarkTickerOptions) {
    this.#options = options;
    this.#tickIntervalMs = options.tickIntervalMs ?? initialEventsEndTickMs;
    if (options.waitingForBookmark) void this.#tick();
  }

  /** An event of the stream arrived at `ms` (clock time). */
  observeLastEventTimestamp(ms: number): void {
    this.#lastEventMs = ms;
  }

  /**
   * The warning due at a tick, or `undefined` (a noop ticker, or an event within the last
   * tick interval).
   */
  produceWarningIfExpired(): Error | undefined {
    const { name, clock, watchStartMs, waitingForBookmark } = this.#options;
    if (!waitingForBookmark) return undefined;
    const now = clock.now();
    if (this.#lastEventMs === undefined) {
      return new Error(
        `${name}: awaiting required bookmark event for initial events stream, no events received for ${goDuration(now - watchStartMs)}`,
      );
    }
    const elapsed = now - this.#lastEventMs;
    if (elapsed < this.#tickIntervalMs) return undefined;
    return new Error(
      `${name}: hasn't received required bookmark event marking the end of initial events stream, received last event ${goDuration(elapsed)} ago`,
    );
  }

  /** Stops the ticks. */
  stop(): void {
    this.#stop.abort();
  }

  async #tick(): Promise<void> {
    const { clock, logger, onTick } = this.#options;
    for (;;) {
      try {
        await clock.sleep(this.#tickIntervalMs, this.#stop.signal);
      } catch {
        return;
      }
      if (this.#stop.signal.aborted) return;
      if (onTick !== undefined) {
        onTick();
        continue;
      }
      const warning = this.produceWarningIfExpired();
      if (warning !== undefined) {
        logger.info('Warning: event bookmark expired', { error: warning.message });
      }
    }
  }
}

/** `ms` as Go prints a `time.Duration` (`1s`, `1.5s`, `250ms`, `1m30s`). */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const s = `${Number(seconds.toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${s}`;
  if (minutes > 0) return `${minutes}m${s}`;
  return s;
}
