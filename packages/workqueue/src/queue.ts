import { type Clock, RingBuffer, realClock } from '@kubets/apimachinery';
import { activeProvider, QueueMetrics, type QueueOptions } from './metrics.js';
import { InFlight, WaitingGets } from './waiters.js';

/**
 * What {@link WorkQueue.get} resolves to: an item to process, or the news that the queue is
 * shut down and empty (client-go's `(item, shutdown)` pair as a discriminated union, so
 * `if (result.shutdown) return;` narrows `result.item` to `T`).
 */
export type GetResult<T> =
  | {
      /** The item to process; call `done(item)` when finished with it. */
      readonly item: T;
      /** False: the queue is running. */
      readonly shutdown: false;
    }
  | {
      /** No item: the queue is shut down and drained. */
      readonly item: undefined;
      /** True: stop the worker. */
      readonly shutdown: true;
    };

/**
 * The basic work queue (client-go's `workqueue.TypedInterface`).
 *
 * - An item waiting is never added twice: adds of an item already waiting collapse to one.
 * - An item handed out by `get` is "processing" until `done`; it is never handed to a second
 *   worker meanwhile. Adding it while it is processing marks it dirty, and `done` queues it
 *   again.
 * - Items are compared with `SameValueZero` (as `Map` keys): strings and numbers by value,
 *   objects by identity. Controllers queue string keys (`namespace/name`).
 */
export interface WorkQueue<T> {
  /** Queues `item` unless it is already waiting; ignored after shutdown. */
  add(item: T): void;
  /** Items waiting (not counting items being processed). */
  len(): number;
  /**
   * Waits for an item and marks it as processing; call {@link WorkQueue.done} when finished.
   * After shutdown it still hands out queued items, then resolves `{ shutdown: true }`.
   * Rejects with `signal.reason` if `signal` aborts first (no item is taken then).
   */
  get(signal?: AbortSignal): Promise<GetResult<T>>;
  /**
   * Marks `item` as no longer processing; queues it again if it was added meanwhile. A no-op
   * for an item that is not being processed.
   */
  done(item: T): void;
  /** Stops accepting adds and wakes every waiting `get`; queued items can still be taken. */
  shutDown(): void;
  /**
   * Like {@link WorkQueue.shutDown}, then resolves once no item is being processed (every
   * item handed out has been marked `done`), or once `shutDown()` is called. Rejects with
   * `signal.reason` if `signal` aborts first; the queue stays shut down.
   */
  shutDownWithDrain(signal?: AbortSignal): Promise<void>;
  /** Whether `shutDown` or `shutDownWithDrain` has been called. */
  shuttingDown(): boolean;
}

const SHUTDOWN: GetResult<never> = Object.freeze({ item: undefined, shutdown: true });

/**
 * The basic work queue: FIFO order, a dirty set (items waiting or re-added while processing)
 * and a processing set. See {@link WorkQueue} for the rules.
 *
 * ```ts
 * const queue = new Queue<string>({ name: 'pods' });
 * queue.add('default/web');
 * const { item, shutdown } = await queue.get();
 * ```
 */
export class Queue<T> implements WorkQueue<T> {
  /** The clock the queue (and its subclasses) use. */
  protected readonly clock: Clock;
  readonly #queue = new RingBuffer<T>();
  readonly #dirty = new Set<T>();
  readonly #processing = new InFlight<T>();
  readonly #metrics: QueueMetrics<T> | undefined;
  readonly #gets = new WaitingGets<GetResult<T>>();
  #shuttingDown = false;

  constructor(options: QueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    const provider = activeProvider(options);
    if (provider !== undefined && options.name) {
      this.#metrics = new QueueMetrics<T>(options.name, provider, this.clock);
      this.#metrics.start();
    }
  }

  add(item: T): void {
    if (this.#shuttingDown || this.#dirty.has(item)) return;
    this.#metrics?.add(item);
    this.#dirty.add(item);
    if (this.#processing.has(item)) return;
    this.#queue.push(item);
    this.#wakeOne();
  }

  len(): number {
    return this.#queue.length;
  }

  get(signal?: AbortSignal): Promise<GetResult<T>> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#queue.length > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown) return Promise.resolve(SHUTDOWN);
    return this.#gets.wait(signal);
  }

  done(item: T): void {
    if (!this.#processing.finish(item)) return;
    this.#metrics?.done(item);
    if (this.#dirty.has(item)) {
      this.#queue.push(item);
      this.#wakeOne();
    }
  }

  shutDown(): void {
    this.#beginShutdown();
    // client-go: ShutDown stops a ShutDownWithDrain that is still waiting.
    this.#processing.release();
  }

  shutDownWithDrain(signal?: AbortSignal): Promise<void> {
    this.#beginShutdown();
    return this.#processing.drained(signal);
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Hook for subclasses: runs once, when the queue starts shutting down. */
  protected onShutDown(): void {}

  #beginShutdown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#metrics?.stop();
    this.onShutDown();
    // Gets wait only while the queue is empty: they all learn about the shutdown now.
    this.#gets.resolveAll(SHUTDOWN);
  }

  #take(): GetResult<T> {
    const item = this.#queue.shift() as T;
    this.#metrics?.get(item);
    this.#processing.add(item);
    this.#dirty.delete(item);
    return { item, shutdown: false };
  }

  #wakeOne(): void {
    // The item moves to processing now, synchronously: no other get can take it.
    this.#gets.resolveNext(() => this.#take());
  }
}

/** Creates a basic {@link Queue} (client-go's `workqueue.NewTypedWithConfig`). */
export function newQueue<T>(options: QueueOptions = {}): Queue<T> {
  return new Queue<T>(options);
}
