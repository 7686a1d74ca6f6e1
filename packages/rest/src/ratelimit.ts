import { type Clock, realClock } from '@kubets/apimachinery';

/**
 * Client-side throttling, as client-go's `flowcontrol.RateLimiter`. One limiter may be
 * shared by many clients (put it in `Config.rateLimiter`) so they draw from one budget.
 */
export interface RequestRateLimiter {
  /**
   * Resolves when the caller may send one request. Callers are served in arrival order.
   * Rejects with `signal.reason` when the signal aborts; the aborted caller gives up its
   * place without consuming a token.
   */
  wait(signal?: AbortSignal): Promise<void>;
  /** Takes a token if one is free right now (and nobody is queued ahead); never waits. */
  tryAccept(): boolean;
  /** The sustained rate, in requests per second. */
  readonly qps: number;
}

interface Waiter {
  readonly grant: () => void;
}

/** Options for {@link TokenBucketRateLimiter}. */
export interface TokenBucketOptions {
  /** Time source; a `FakeClock` from `@kubets/apimachinery/testing` in tests. */
  clock?: Clock;
}

// Tokens are fractional; this absorbs floating-point drift so a refill that should yield
// exactly one token does.
const tokenEpsilon = 1e-9;

/**
 * A token bucket like client-go's `flowcontrol.NewTokenBucketRateLimiter(qps, burst)`:
 * the bucket starts full with `burst` tokens and refills at `qps` tokens per second.
 */
export class TokenBucketRateLimiter implements RequestRateLimiter {
  readonly qps: number;
  /** The bucket's size: how many requests may go out at once after a quiet period. */
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #lastRefill: number;
  readonly #queue: Waiter[] = [];
  #dispatching = false;
  #dispatchSleep: AbortController | undefined;

  constructor(qps: number, burst: number, options: TokenBucketOptions = {}) {
    if (!(qps > 0) || !Number.isFinite(qps)) {
      throw new RangeError(`rate limiter qps must be a positive number, got ${qps}`);
    }
    if (!(burst >= 1) || !Number.isFinite(burst)) {
      throw new RangeError(`rate limiter burst must be at least 1, got ${burst}`);
    }
    this.qps = qps;
    this.burst = Math.floor(burst);
    this.#clock = options.clock ?? realClock;
    this.#tokens = this.burst;
    this.#lastRefill = this.#clock.now();
  }

  tryAccept(): boolean {
    if (this.#queue.length > 0) return false;
    this.#refill();
    if (this.#tokens + tokenEpsilon < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.tryAccept()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
        // Nobody left to serve: stop the dispatcher's timer so nothing lingers.
        if (this.#queue.length === 0) this.#dispatchSleep?.abort();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      void this.#dispatch();
    });
  }

  #refill(): void {
    const now = this.#clock.now();
    const elapsedMs = now - this.#lastRefill;
    if (elapsedMs > 0) {
      this.#tokens = Math.min(this.burst, this.#tokens + (elapsedMs * this.qps) / 1000);
      this.#lastRefill = now;
    }
  }

  // One loop at a time hands tokens to the queue head, sleeping until the next token is due.
  async #dispatch(): Promise<void> {
    if (this.#dispatching) return;
    this.#dispatching = true;
    try {
      while (this.#queue.length > 0) {
        this.#refill();
        while (this.#queue.length > 0 && this.#tokens + tokenEpsilon >= 1) {
          this.#tokens -= 1;
          this.#queue.shift()?.grant();
        }
        if (this.#queue.length === 0) break;
        const untilNextTokenMs = Math.ceil(((1 - this.#tokens) * 1000) / this.qps);
        const sleep = new AbortController();
        this.#dispatchSleep = sleep;
        try {
          await this.#clock.sleep(Math.max(1, untilNextTokenMs), sleep.signal);
        } catch {
          // Aborted because the queue emptied; the loop condition ends the dispatcher.
        } finally {
          this.#dispatchSleep = undefined;
        }
      }
    } finally {
      this.#dispatching = false;
    }
  }
}

/** The defaults client-go uses when `Config.qps`/`Config.burst` are unset. */
export const defaultQPS = 5;
/** See {@link defaultQPS}. */
export const defaultBurst = 10;

/**
 * The limiter a client built from these settings uses: the given shared limiter, none
 * when `qps` is negative, else a new token bucket (QPS 5, burst 10 by default).
 */
export function rateLimiterFor(
  settings: {
    qps?: number | undefined;
    burst?: number | undefined;
    rateLimiter?: RequestRateLimiter | undefined;
  },
  options: TokenBucketOptions = {},
): RequestRateLimiter | undefined {
  if (settings.rateLimiter) return settings.rateLimiter;
  const qps = settings.qps === undefined || settings.qps === 0 ? defaultQPS : settings.qps;
  if (qps < 0) return undefined;
  const burst = settings.burst === undefined || settings.burst <= 0 ? defaultBurst : settings.burst;
  return new TokenBucketRateLimiter(qps, burst, options);
}
