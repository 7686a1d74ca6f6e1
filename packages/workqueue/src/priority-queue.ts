import { type Clock, type CounterMetric, realClock } from '@kubets/apimachinery';
import { MinHeap, type Positioned } from './heap.js';
import { activeProvider, QueueMetrics, type QueueOptions } from './metrics.js';
import { ItemExponentialFailureRateLimiter, type RateLimiter } from './rate-limiters.js';
import type { RateLimitingWorkQueue } from './rate-limiting-queue.js';
import { ReadyTimer } from './ready-timer.js';
import { InFlight, WaitingGets } from './waiters.js';

/** How {@link PriorityWorkQueue.addWithOpts} adds its items (controller-runtime's `AddOpts`). */
export interface AddOptions {
  /**
   * Higher is handed out first; an integer, default 0. An item already waiting keeps the
   * higher of its priority and this one.
   */
  priority?: number | undefined;
  /**
   * Milliseconds to wait before the item is ready (`<= 0` or omitted: ready now). An item
   * already waiting keeps the earlier of the two ready times.
   */
  after?: number | undefined;
  /**
   * Waits the delay the rate limiter gives the item (recording one more failure), or
   * `after` when that is shorter.
   */
  rateLimited?: boolean | undefined;
}

/**
 * What {@link PriorityWorkQueue.getWithPriority} resolves to: an item and the priority it
 * was handed out at, or the news that the queue is shut down and empty.
 */
export type PriorityGetResult<T> =
  | {
      /** The item to process; call `done(item)` when finished with it. */
      readonly item: T;
      /** The priority the item waited at (requeue it at that priority to keep its rank). */
      readonly priority: number;
      /** False: the queue is running. */
      readonly shutdown: false;
    }
  | {
      /** No item: the queue is shut down and drained. */
      readonly item: undefined;
      /** No priority without an item. */
      readonly priority: undefined;
      /** True: stop the worker. */
      readonly shutdown: true;
    };

/**
 * A {@link RateLimitingWorkQueue} whose items carry a priority (controller-runtime's
 * `priorityqueue.PriorityQueue`): `get` hands out the highest priority first and, within a
 * priority, the item that became ready first. Everything else is the work queue's contract:
 * an item is never handed to two workers at once, an add while it is processing queues it
 * again at `done`, and an item waiting is there once (adds collapse into it: the higher
 * priority and the earlier ready time win).
 */
export interface PriorityWorkQueue<T> extends RateLimitingWorkQueue<T> {
  /** Adds `items` as `options` say; `add`, `addAfter` and `addRateLimited` are this at priority 0. */
  addWithOpts(options: AddOptions, ...items: T[]): void;
  /** Like `get`, with the priority the item waited at. */
  getWithPriority(signal?: AbortSignal): Promise<PriorityGetResult<T>>;
}

/** Options of {@link PriorityQueue}: the queue options plus the rate limiter. */
export interface PriorityQueueOptions<T> extends QueueOptions {
  /**
   * Paces `addRateLimited`. Default: per-item exponential backoff from 5 ms to 1000 s
   * (controller-runtime's default for its priority queue, with no overall bucket).
   */
  rateLimiter?: RateLimiter<T> | undefined;
}

interface Entry<T> extends Positioned {
  readonly item: T;
  priority: number;
  /** Arrival order, for FIFO within a priority; renewed when the priority rises or the wait ends. */
  seq: number;
  /** When the item becomes ready; `undefined` once it is. */
  readyAt: number | undefined;
}

/** Higher priority first; within a priority, earlier arrival. */
function handedOutBefore<T>(a: Entry<T>, b: Entry<T>): boolean {
  return a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);
}

/** Earlier ready time first; at the same time, in hand-out order. */
function readyBefore<T>(a: Entry<T>, b: Entry<T>): boolean {
  const at = a.readyAt as number;
  const bt = b.readyAt as number;
  return at !== bt ? at < bt : handedOutBefore(a, b);
}

const SHUTDOWN: PriorityGetResult<never> = Object.freeze({
  item: undefined,
  priority: undefined,
  shutdown: true,
});

/**
 * The priority queue (controller-runtime's default controller queue since v0.23): ready
 * items in a heap by priority and arrival, delayed items in a heap by ready time watched by
 * one timer on the queue's clock, items re-added while processing held back until `done`.
 * Shutdown is the work queue's: `get` still hands out the ready items, then reports the
 * shutdown; delayed items are dropped; `shutDownWithDrain` waits for the items in flight.
 *
 * Metrics are those of the other queues, on the same provider; depth is reported by
 * priority when the provider has `newDepthMetricWithPriority`.
 *
 * ```ts
 * const queue = new PriorityQueue<string>({ name: 'pods' });
 * queue.addWithOpts({ priority: -100 }, 'default/listed'); // e.g. from the initial list
 * queue.add('default/changed'); // priority 0: handed out first
 * const { item, priority } = await queue.getWithPriority();
 * ```
 */
export class PriorityQueue<T> implements PriorityWorkQueue<T> {
  /** The limiter pacing `addRateLimited` and `addWithOpts({ rateLimited: true })`. */
  readonly rateLimiter: RateLimiter<T>;
  readonly #clock: Clock;
  /** Every item queued and not handed out: delayed, ready, or ready while still processing. */
  readonly #entries = new Map<T, Entry<T>>();
  /** Ready items that are not processing: what `get` hands out. */
  readonly #ready = new MinHeap<Entry<T>>(handedOutBefore);
  /** Items waiting for their ready time. */
  readonly #delayed = new MinHeap<Entry<T>>(readyBefore);
  /** Items handed out and not yet done. */
  readonly #processing = new Set<T>();
  readonly #inFlight = new InFlight();
  readonly #metrics: QueueMetrics<T> | undefined;
  readonly #retries: CounterMetric | undefined;
  readonly #gets = new WaitingGets<PriorityGetResult<T>>();
  readonly #timer: ReadyTimer;
  /** Ready items in no heap because they are still processing: `done` releases them. */
  #held = 0;
  #seq = 0;
  #shuttingDown = false;

  constructor(options: PriorityQueueOptions<T> = {}) {
    this.#clock = options.clock ?? realClock;
    this.rateLimiter =
      options.rateLimiter ?? new ItemExponentialFailureRateLimiter<T>(5, 1_000_000);
    this.#timer = new ReadyTimer(this.#clock, () => this.#becomeReady());
    const provider = activeProvider(options);
    if (provider !== undefined && options.name) {
      this.#metrics = new QueueMetrics<T>(options.name, provider, this.#clock, true);
      this.#metrics.start();
      this.#retries = provider.newRetriesMetric(options.name);
    }
  }

  /**
   * @throws {RangeError} when `options.priority` is not an integer (nothing is added then).
   */
  addWithOpts(options: AddOptions, ...items: T[]): void {
    const priority = options.priority ?? 0;
    if (!Number.isSafeInteger(priority)) {
      throw new RangeError(`priority must be an integer, got ${String(priority)}`);
    }
    if (this.#shuttingDown) return;
    const after = options.after ?? 0;
    const rateLimited = options.rateLimited === true;
    let delayedChanged = false;
    for (const item of items)
      delayedChanged = this.#addOne(item, priority, after, rateLimited) || delayedChanged;
    this.#settle(delayedChanged);
  }

  add(item: T): void {
    if (this.#shuttingDown) return;
    this.#settle(this.#addOne(item, 0, 0, false));
  }

  addAfter(item: T, delayMs: number): void {
    if (this.#shuttingDown) return;
    this.#settle(this.#addOne(item, 0, delayMs, false));
  }

  addRateLimited(item: T): void {
    if (this.#shuttingDown) return;
    this.#settle(this.#addOne(item, 0, 0, true));
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Ready items, those held back until their processing is done included. */
  len(): number {
    return this.#ready.size + this.#held;
  }

  /** Items waiting for their ready time (not counted by `len()`). */
  waitingLen(): number {
    return this.#delayed.size;
  }

  getWithPriority(signal?: AbortSignal): Promise<PriorityGetResult<T>> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#takeNow();
    return now === undefined ? this.#gets.wait(signal) : Promise.resolve(now);
  }

  get(signal?: AbortSignal): Promise<PriorityGetResult<T>> {
    return this.getWithPriority(signal);
  }

  // What getWithPriority resolves to at once, or undefined when it has to wait.
  #takeNow(): PriorityGetResult<T> | undefined {
    if (this.#ready.size > 0) return this.#take();
    return this.#shuttingDown ? SHUTDOWN : undefined;
  }

  done(item: T): void {
    if (!this.#processing.delete(item)) return;
    this.#inFlight.finished();
    this.#metrics?.done(item);
    const entry = this.#entries.get(item);
    if (entry !== undefined && entry.readyAt === undefined) {
      this.#held--;
      this.#ready.push(entry);
      this.#handOut();
    }
  }

  shutDown(): void {
    this.#beginShutdown();
    // As the work queue: ShutDown stops a ShutDownWithDrain that is still waiting.
    this.#inFlight.release();
  }

  shutDownWithDrain(signal?: AbortSignal): Promise<void> {
    this.#beginShutdown();
    return this.#inFlight.drained(signal);
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  #beginShutdown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#metrics?.stop();
    this.#timer.cancel();
    for (let entry = this.#delayed.pop(); entry !== undefined; entry = this.#delayed.pop()) {
      this.#entries.delete(entry.item);
    }
    // Gets wait only while nothing is ready: they all learn about the shutdown now.
    this.#gets.resolveAll(SHUTDOWN);
  }

  /** Adds one item; returns whether the delayed items changed (the timer may need moving). */
  #addOne(item: T, priority: number, delayMs: number, rateLimited: boolean): boolean {
    let after = Number.isNaN(delayMs) ? 0 : delayMs;
    if (rateLimited) {
      const limited = this.rateLimiter.when(item);
      if (after === 0 || limited < after) after = limited;
    }
    const readyAt = after > 0 ? this.#clock.now() + after : undefined;
    if (readyAt !== undefined) this.#retries?.inc();
    const entry = this.#entries.get(item);
    if (entry === undefined) {
      const added: Entry<T> = { item, priority, seq: this.#seq++, readyAt, index: -1 };
      this.#entries.set(item, added);
      if (readyAt !== undefined) {
        this.#delayed.push(added);
        return true;
      }
      this.#makeReady(added);
      return false;
    }
    const wasReady = entry.readyAt === undefined;
    const raised = priority > entry.priority;
    if (raised) {
      if (wasReady) this.#metrics?.changePriority(entry.priority, priority);
      entry.priority = priority;
      // Last among the items of its new priority: FIFO within each priority.
      entry.seq = this.#seq++;
    }
    if (wasReady) {
      // A held entry is in no heap; `done` places it.
      if (raised && entry.index >= 0) this.#ready.fix(entry);
    } else if (readyAt === undefined) {
      this.#delayed.remove(entry);
      entry.readyAt = undefined;
      this.#makeReady(entry);
      return true;
    } else if (raised || readyAt < (entry.readyAt as number)) {
      entry.readyAt = Math.min(readyAt, entry.readyAt as number);
      this.#delayed.fix(entry);
      return true;
    }
    return false;
  }

  /** After adds: moves the timer if the delayed items changed, hands out what is ready. */
  #settle(delayedChanged: boolean): void {
    if (delayedChanged) this.#arm();
    this.#handOut();
  }

  /** `entry` is ready now: counted, and in the ready heap unless its item is processing. */
  #makeReady(entry: Entry<T>): void {
    this.#metrics?.add(entry.item, entry.priority);
    if (this.#processing.has(entry.item)) this.#held++;
    else this.#ready.push(entry);
  }

  /** Moves the delayed items whose time has come to the ready ones. */
  #becomeReady(): void {
    const now = this.#clock.now();
    for (let next = this.#delayed.peek(); next !== undefined && (next.readyAt as number) <= now; ) {
      this.#delayed.pop();
      next.readyAt = undefined;
      // Ordered by when they became ready, not by when they were added.
      next.seq = this.#seq++;
      this.#makeReady(next);
      next = this.#delayed.peek();
    }
    this.#arm();
    this.#handOut();
  }

  #arm(): void {
    this.#timer.set(this.#delayed.peek()?.readyAt ?? Number.POSITIVE_INFINITY);
  }

  /** Hands ready items to the waiting gets, best first. */
  #handOut(): void {
    while (this.#ready.size > 0 && !this.#gets.empty) this.#gets.resolveNext(this.#take());
  }

  #take(): PriorityGetResult<T> {
    const entry = this.#ready.pop() as Entry<T>;
    this.#entries.delete(entry.item);
    this.#processing.add(entry.item);
    this.#inFlight.started();
    this.#metrics?.get(entry.item, entry.priority);
    return { item: entry.item, priority: entry.priority, shutdown: false };
  }
}

/**
 * Creates a {@link PriorityQueue} (controller-runtime's `priorityqueue.New`). Without a
 * limiter it uses per-item exponential backoff (5 ms to 1000 s).
 *
 * ```ts
 * const queue = newPriorityQueue<string>({ name: 'pods' });
 * ```
 */
export function newPriorityQueue<T>(options: PriorityQueueOptions<T> = {}): PriorityQueue<T> {
  return new PriorityQueue<T>(options);
}
