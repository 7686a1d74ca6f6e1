import { DelayingQueue, type DelayingWorkQueue } from './delaying-queue.js';
import type { QueueOptions } from './metrics.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/**
 * A {@link DelayingWorkQueue} whose retries are paced by a {@link RateLimiter}
 * (client-go's `TypedRateLimitingInterface`).
 */
export interface RateLimitingWorkQueue<T> extends DelayingWorkQueue<T> {
  /** Adds `item` after the delay the rate limiter gives it (recording one more failure). */
  addRateLimited(item: T): void;
  /**
   * Tells the rate limiter to stop tracking `item` (call it when the item succeeded or you
   * drop it). It does not remove the item from the queue.
   */
  forget(item: T): void;
  /** How many times `item` has been rate-limited since it was last forgotten. */
  numRequeues(item: T): number;
}

/** Options of {@link RateLimitingQueue}: the queue options plus the rate limiter. */
export interface RateLimitingQueueOptions<T> extends QueueOptions {
  /** Default: {@link defaultControllerRateLimiter} on the queue's clock. */
  rateLimiter?: RateLimiter<T> | undefined;
}

/**
 * The queue controllers use: deduplicating, delaying and rate-limited. The usual worker:
 * on success `forget(key)`; on failure `addRateLimited(key)` while `numRequeues(key)` is
 * below your retry limit; always `done(key)`.
 */
export class RateLimitingQueue<T> extends DelayingQueue<T> implements RateLimitingWorkQueue<T> {
  /** The limiter pacing {@link RateLimitingQueue.addRateLimited}. */
  readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter =
      options.rateLimiter ?? defaultControllerRateLimiter<T>({ clock: this.clock });
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}

/**
 * Creates a {@link RateLimitingQueue} (client-go's `NewTypedRateLimitingQueueWithConfig`).
 * Without a limiter it uses {@link defaultControllerRateLimiter} on `options.clock`.
 *
 * ```ts
 * const queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(), { name: 'pods' });
 * ```
 */
export function newRateLimitingQueue<T>(
  rateLimiter?: RateLimiter<T>,
  options: QueueOptions = {},
): RateLimitingQueue<T> {
  return new RateLimitingQueue<T>({ ...options, rateLimiter });
}
