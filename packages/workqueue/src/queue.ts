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

// Where an item the queue knows is: client-go's dirty and processing sets as one map, so
// that an item costs one lookup per step, and a get moves it without a second entry.
/** In the FIFO (client-go: dirty, not processing). */
const QUEUED = 0;
/** Handed out by get, not added since (processing). */
const PROCESSING = 1;
/** Handed out by get and added since (dirty and processing): queued again at done. */
const PROCESSING_READDED = 2;

/**
 * The basic work queue: FIFO order, each item known to the queue either waiting in it,
 * processing, or processing and added again meanwhile. See {@link WorkQueue} for the rules.
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
  readonly #states = new Map<T, typeof QUEUED | typeof PROCESSING | typeof PROCESSING_READDED>();
  readonly #processing = new InFlight();
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
    if (this.#shuttingDown) return;
    const state = this.#states.get(item);
    if (state === undefined) {
      this.#metrics?.add(item);
      this.#enqueue(item);
    } else if (state === PROCESSING) {
      this.#metrics?.add(item);
      this.#states.set(item, PROCESSING_READDED);
    }
  }

  len(): number {
    return this.#queue.length;
  }

  get(signal?: AbortSignal): Promise<GetResult<T>> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#takeNow();
    return now === undefined ? this.#gets.wait(signal) : Promise.resolve(now);
  }

  // What get resolves to at once, or undefined when it has to wait.
  #takeNow(): GetResult<T> | undefined {
    if (this.#queue.length > 0) return this.#take();
    return this.#shuttingDown ? SHUTDOWN : undefined;
  }

  done(item: T): void {
    const state = this.#states.get(item);
    if (state !== PROCESSING && state !== PROCESSING_READDED) return;
    if (state === PROCESSING) this.#states.delete(item);
    this.#processing.finished();
    this.#metrics?.done(item);
    if (state === PROCESSING_READDED) this.#enqueue(item);
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
    this.#states.set(item, PROCESSING);
    this.#processing.started();
    return { item, shutdown: false };
  }

  /** Puts `item` at the tail and hands it to the oldest waiting get, if one waits. */
  #enqueue(item: T): void {
    this.#states.set(item, QUEUED);
    this.#queue.push(item);
    // The item moves to processing now, synchronously: no other get can take it.
    if (!this.#gets.empty) this.#gets.resolveNext(this.#take());
  }
}

/** Creates a basic {@link Queue} (client-go's `workqueue.NewTypedWithConfig`). */
export function newQueue<T>(options: QueueOptions = {}): Queue<T> {
  return new Queue<T>(options);
}
