import type { CounterMetric } from '@kubets/apimachinery';
import { type HeapEntry, MinHeap } from './heap.js';
import { activeProvider, type QueueOptions } from './metrics.js';
import { Queue, type WorkQueue } from './queue.js';
import { ReadyTimer } from './ready-timer.js';

/** A {@link WorkQueue} that can also add an item later (client-go's `TypedDelayingInterface`). */
export interface DelayingWorkQueue<T> extends WorkQueue<T> {
  /**
   * Adds `item` after `delayMs` milliseconds (`<= 0`: now). While it waits, a second
   * `addAfter` of the same item keeps whichever ready time is earlier. Ignored after shutdown.
   */
  addAfter(item: T, delayMs: number): void;
}

interface Waiting<T> extends HeapEntry {
  readonly item: T;
}

/**
 * A work queue with `addAfter`: items waiting for their time sit in a min-heap ordered by
 * ready time, watched by a single timer armed for the earliest one. Shutdown cancels that
 * timer and forgets the waiting items, so no timer is left behind.
 */
export class DelayingQueue<T> extends Queue<T> implements DelayingWorkQueue<T> {
  readonly #heap = new MinHeap<Waiting<T>>();
  readonly #waiting = new Map<T, Waiting<T>>();
  readonly #retries: CounterMetric | undefined;
  readonly #timer = new ReadyTimer(this.clock, () => this.#fire());
  #seq = 0;

  constructor(options: QueueOptions = {}) {
    super(options);
    const provider = activeProvider(options);
    if (provider !== undefined && options.name) {
      this.#retries = provider.newRetriesMetric(options.name);
    }
  }

  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.#retries?.inc();
    // NaN counts as no delay.
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.#waiting.get(item);
    if (existing !== undefined) {
      if (readyAt < existing.readyAt) {
        this.#heap.decrease(existing, readyAt);
        this.#arm();
      }
      return;
    }
    const entry: Waiting<T> = { item, readyAt, seq: this.#seq++, index: -1 };
    this.#waiting.set(item, entry);
    this.#heap.push(entry);
    this.#arm();
  }

  /** Items waiting for their ready time (not counted by `len()`). */
  waitingLen(): number {
    return this.#heap.size;
  }

  protected override onShutDown(): void {
    this.#timer.cancel();
    this.#heap.clear();
    this.#waiting.clear();
  }

  /** Points the timer at the earliest waiting entry (or stops it if none). */
  #arm(): void {
    this.#timer.set(this.#heap.peek()?.readyAt ?? Number.POSITIVE_INFINITY);
  }

  #fire(): void {
    const now = this.clock.now();
    for (let next = this.#heap.peek(); next !== undefined && next.readyAt <= now; ) {
      this.#heap.pop();
      this.#waiting.delete(next.item);
      this.add(next.item);
      next = this.#heap.peek();
    }
    this.#arm();
  }
}

/** Creates a {@link DelayingQueue} (client-go's `NewTypedDelayingQueueWithConfig`). */
export function newDelayingQueue<T>(options: QueueOptions = {}): DelayingQueue<T> {
  return new DelayingQueue<T>(options);
}
