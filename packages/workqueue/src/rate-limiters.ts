import { type Clock, realClock } from '@kubets/apimachinery';

/**
 * Decides how long an item waits before it is retried (client-go's `TypedRateLimiter`).
 * Items are compared as `Map` keys (`SameValueZero`).
 */
export interface RateLimiter<T> {
  /** Records a failure of `item` and returns how many milliseconds it should wait. */
  when(item: T): number;
  /** Stops tracking `item` (it succeeded, or you gave up on it): its backoff starts over. */
  forget(item: T): void;
  /** How many times `item` has been rate-limited since it was last forgotten. */
  numRequeues(item: T): number;
}

/**
 * Per-item exponential backoff: the n-th failure (counting from 0) of an item waits
 * `baseDelayMs * 2^n`, capped at `maxDelayMs`. The count never overflows into a wrong delay:
 * once `2^n` is beyond any finite double the cap applies.
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;

  /**
   * @param baseDelayMs - the first delay (default 5 ms, as client-go's controller default)
   * @param maxDelayMs - the cap (default 1000 s)
   */
  constructor(baseDelayMs = 5, maxDelayMs = 1_000_000) {
    if (!(baseDelayMs >= 0)) throw new RangeError(`baseDelayMs must be >= 0, got ${baseDelayMs}`);
    if (!(maxDelayMs >= 0)) throw new RangeError(`maxDelayMs must be >= 0, got ${maxDelayMs}`);
    this.#baseDelayMs = baseDelayMs;
    this.#maxDelayMs = maxDelayMs;
  }

  when(item: T): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    if (this.#baseDelayMs === 0) return 0;
    // 2 ** exp is Infinity from exp = 1024 on; Infinity > max takes the cap.
    const backoff = this.#baseDelayMs * 2 ** exp;
    return Math.min(backoff, this.#maxDelayMs);
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/** Options of {@link BucketRateLimiter}. */
export interface BucketRateLimiterOptions {
  /** Tokens added per second (default 10). `Infinity` means no limit. */
  qps?: number | undefined;
  /** Bucket size: how many items pass at once after a quiet period (default 100). */
  burst?: number | undefined;
  /** Time source (default: the real clock). */
  clock?: Clock | undefined;
}

/**
 * An overall token bucket, shared by all items (client-go's `BucketRateLimiter` over
 * `rate.Limiter`). `when` reserves a token and returns the wait until that token exists:
 * a full bucket lets `burst` items through with no delay, after which each further item
 * waits `1000 / qps` ms more than the one before. It does not track items:
 * `numRequeues` is always 0 and `forget` does nothing.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(options: BucketRateLimiterOptions = {}) {
    const qps = options.qps ?? 10;
    const burst = options.burst ?? 100;
    if (!(qps > 0)) throw new RangeError(`qps must be > 0, got ${qps}`);
    if (!(burst >= 1)) throw new RangeError(`burst must be >= 1, got ${burst}`);
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = options.clock ?? realClock;
    this.#tokens = burst;
    this.#last = this.#clock.now();
  }

  when(_item: T): number {
    if (this.#qps === Number.POSITIVE_INFINITY) return 0;
    const now = this.#clock.now();
    // Refill for the time since the last reservation (reservations made for the future
    // leave the bucket negative; it refills from there).
    if (now > this.#last) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) * this.#qps) / 1000);
      this.#last = now;
    }
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.#qps;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/**
 * Fast delays for the first `maxFastAttempts` failures of an item, slow delays after that
 * (client-go's `ItemFastSlowRateLimiter`).
 */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();
  readonly #fastDelayMs: number;
  readonly #slowDelayMs: number;
  readonly #maxFastAttempts: number;

  constructor(fastDelayMs: number, slowDelayMs: number, maxFastAttempts: number) {
    this.#fastDelayMs = fastDelayMs;
    this.#slowDelayMs = slowDelayMs;
    this.#maxFastAttempts = maxFastAttempts;
  }

  when(item: T): number {
    const failures = (this.#failures.get(item) ?? 0) + 1;
    this.#failures.set(item, failures);
    return failures <= this.#maxFastAttempts ? this.#fastDelayMs : this.#slowDelayMs;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/**
 * Combines limiters: `when` asks every one of them (so each records the failure) and returns
 * the longest delay; `numRequeues` is the largest count; `forget` forgets in all of them
 * (client-go's `MaxOfRateLimiter`).
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.#limiters = limiters;
  }

  when(item: T): number {
    return this.#largest((limiter) => limiter.when(item));
  }

  forget(item: T): void {
    // An index loop: a controller forgets every key it reconciles, no iterator for that.
    const limiters = this.#limiters;
    for (let i = 0; i < limiters.length; i++) limiters[i]?.forget(item);
  }

  numRequeues(item: T): number {
    return this.#largest((limiter) => limiter.numRequeues(item));
  }

  // Every limiter is asked, none skipped: `when` records the failure in each of them.
  #largest(ask: (limiter: RateLimiter<T>) => number): number {
    let max = 0;
    for (const limiter of this.#limiters) {
      const value = ask(limiter);
      if (value > max) max = value;
    }
    return max;
  }
}

/**
 * Caps the delay of another limiter at `maxDelayMs` (client-go's `WithMaxWaitRateLimiter`).
 */
export class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {
  readonly #limiter: RateLimiter<T>;
  readonly #maxDelayMs: number;

  constructor(limiter: RateLimiter<T>, maxDelayMs: number) {
    this.#limiter = limiter;
    this.#maxDelayMs = maxDelayMs;
  }

  when(item: T): number {
    return Math.min(this.#limiter.when(item), this.#maxDelayMs);
  }

  forget(item: T): void {
    this.#limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }
}

/**
 * The limiter controllers use by default (client-go's `DefaultTypedControllerRateLimiter`):
 * the larger of per-item exponential backoff (5 ms doubling, up to 1000 s) and an overall
 * token bucket (10 qps, burst 100).
 */
export function defaultControllerRateLimiter<T>(options: { clock?: Clock } = {}): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>({ qps: 10, burst: 100, clock: options.clock ?? realClock }),
  );
}
