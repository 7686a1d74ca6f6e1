import type { Delta, DeltaType } from './delta.js';
import { FIFOLifecycle } from './fifo-lifecycle.js';
import type { InformerNameAndResource } from './identity.js';
import {
  type FIFOMetrics,
  type InformerMetricsProvider,
  newFIFOMetrics,
} from './informer-metrics.js';
import type { DeletedFinalStateUnknown, KeyFunc } from './keys.js';
import * as keyFns from './keys.js';

/** What a `ReplacedAll` delta carries: one whole relist (client-go `ReplacedAllInfo`). */
export interface ReplacedAllInfo<T> {
  /** The resourceVersion of the list. */
  readonly resourceVersion: string;
  /** Every listed object, transformed already. */
  readonly objects: readonly T[];
  /**
   * The key of each object under the FIFO's key function, in the same order, when the FIFO
   * computed them (it does when it has a transformer); a consumer need not compute them again.
   */
  readonly keys?: readonly string[] | undefined;
}

/**
 * A whole relist as one delta (client-go `ReplacedAll`): the consumer reconciles its store
 * against it in one step, deletions first.
 */
export interface ReplacedAllDelta<T> {
  /** Always `ReplacedAll`. */
  readonly type: 'ReplacedAll';
  /** The list and its resourceVersion. */
  readonly object: ReplacedAllInfo<T>;
}

/**
 * A whole periodic resync as one delta (client-go `SyncAll`): the consumer re-delivers every
 * object it holds as an update.
 */
export interface SyncAllDelta {
  /** Always `SyncAll`. */
  readonly type: 'SyncAll';
  /** Nothing: the consumer's store has the objects. */
  readonly object: undefined;
}

/** What a `Bookmark` delta carries (client-go `BookmarkInfo`). */
export interface BookmarkInfo {
  /** The resourceVersion of the watch BOOKMARK. */
  readonly resourceVersion: string;
}

/**
 * A watch BOOKMARK as a delta (client-go `Bookmark`, queued with `emitDeltaTypeBookmark`):
 * the consumer's store learns it is at that resourceVersion, in order with the changes
 * before it.
 */
export interface BookmarkDelta {
  /** Always `Bookmark`. */
  readonly type: 'Bookmark';
  /** The bookmark's resourceVersion. */
  readonly object: BookmarkInfo;
}

/**
 * What a {@link RealFIFO} queues: one change of one object, a whole relist or resync, or a
 * watch bookmark.
 */
export type FIFODelta<T> = Delta<T> | ReplacedAllDelta<T> | SyncAllDelta | BookmarkDelta;

/**
 * Handles a batch of deltas popped by {@link RealFIFO.popBatch} (client-go
 * `ProcessBatchFunc`): oldest first, at most one per key; `keys[i]` is the key of
 * `deltas[i]`.
 */
export type ProcessBatchFunc<T> = (
  deltas: readonly Delta<T>[],
  isInInitialList: boolean,
  keys: readonly string[],
) => void;

/** Handles one delta popped by a {@link RealFIFO}, with the key it was queued under. */
export type RealFIFOProcessFunc<T> = (
  deltas: readonly FIFODelta<T>[],
  isInInitialList: boolean,
  key: string,
) => void;

/** Most deltas {@link RealFIFO.popBatch} hands over at once (client-go `defaultBatchSize`). */
export const defaultBatchSize = 1000;

/** Settings of a {@link RealFIFO}. */
export interface RealFIFOOptions<T> {
  /** Keys objects; default {@link metaNamespaceKeyFunc}. Tombstones are keyed by their key. */
  keyFunction?: KeyFunc | undefined;
  /**
   * Queue a `Bookmark` delta for every {@link RealFIFO.bookmark} (client-go
   * `EmitDeltaTypeBookmark`, set for informers in 1.36); without it bookmarks are dropped.
   */
  emitDeltaTypeBookmark?: boolean | undefined;
  /**
   * Applied once to every object entering the queue, listed ones included; not to
   * tombstones nor to the objects of a resync, which come from the consumer. It may mutate
   * and return its argument.
   */
  transformer?: ((obj: T) => T) | undefined;
  /**
   * Asked for each object of a relist, with its key: true skips the transformer for it. For
   * a relist that hands back objects the consumer already holds (see `reusingCachedItems`),
   * which were transformed when first queued.
   */
  isTransformed?: ((obj: T, key: string) => boolean) | undefined;
  /** Most deltas one {@link RealFIFO.popBatch} hands over; default {@link defaultBatchSize}. */
  batchSize?: number | undefined;
  /**
   * Names the FIFO's informer for metrics (client-go `Identifier`): with a provider,
   * `informer_queued_items` and `informer_processing_latency_seconds` are recorded for it.
   */
  identifier?: InformerNameAndResource | undefined;
  /** Where the metrics go; default the process-wide informer metrics provider. */
  metricsProvider?: InformerMetricsProvider | undefined;
}

const batchable: ReadonlySet<string> = new Set<DeltaType>([
  'Sync',
  'Replaced',
  'Added',
  'Updated',
  'Deleted',
]);

/**
 * The queue between a reflector and an informer that delivers every change in the order it
 * happened (client-go `cache.RealFIFO` with `AtomicEvents`, the default of informers since
 * `InOrderInformers` and `AtomicFIFO`): nothing is merged or deduplicated, so a handler sees
 * each intermediate state, deletes included, and never an object jumping ahead of another.
 *
 * - `add`, `update`, `delete` queue one delta each, deletes of unknown keys too;
 * - {@link replace} queues one `ReplacedAll` delta and {@link resync} one `SyncAll` delta:
 *   the consumer reconciles them against its own store (the queue of one delta per object,
 *   with `knownObjects`, is `NonAtomicRealFIFO` of `@kubets/cache/compat`);
 * - {@link popBatch} hands over consecutive deltas of distinct keys at once, never mixing
 *   the first list with later deltas;
 * - {@link hasSynced} turns true once every delta queued up to the first `replace` has been
 *   popped and processed.
 *
 * Queueing and popping cost O(1) per delta and no promise: a consumer draining it with
 * {@link tryPop} or {@link tryPopBatch} runs synchronously.
 */
export class RealFIFO<T> {
  readonly #keyFunc: KeyFunc;
  readonly #emitBookmarks: boolean;
  readonly #isTransformed: ((obj: T, key: string) => boolean) | undefined;
  #transformer: ((obj: T) => T) | undefined;
  /** Most deltas one batch holds ({@link RealFIFOOptions.batchSize}). */
  readonly batchSize: number;

  // The queue: deltas and their keys side by side, live from #head on.
  #deltas: (FIFODelta<T> | undefined)[] = [];
  #keys: string[] = [];
  #head = 0;

  readonly #life = new FIFOLifecycle();
  readonly #metrics: FIFOMetrics | undefined;

  constructor(options: RealFIFOOptions<T> = {}) {
    if ('knownObjects' in options && new.target === RealFIFO) {
      throw new Error(
        "RealFIFO: knownObjects is no option of the atomic RealFIFO (it reconciles a relist against the consumer's store); a queue of one delta per object is NonAtomicRealFIFO of @kubets/cache/compat",
      );
    }
    this.#emitBookmarks = options.emitDeltaTypeBookmark ?? false;
    const batchSize = options.batchSize ?? defaultBatchSize;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`RealFIFO: batchSize must be a positive integer, got ${batchSize}`);
    }
    this.#keyFunc = options.keyFunction ?? keyFns.metaNamespaceKeyFunc;
    this.#transformer = options.transformer;
    this.#isTransformed = options.isTransformed;
    this.batchSize = batchSize;
    this.#metrics = newFIFOMetrics(options.identifier, options.metricsProvider);
  }

  /**
   * The key of an object, of a tombstone (its key), of a delta or of a list of deltas (the
   * newest delta's object).
   */
  keyOf(obj: T | DeletedFinalStateUnknown<T> | Delta<T> | readonly Delta<T>[]): string {
    if (Array.isArray(obj)) {
      const newest = (obj as readonly Delta<T>[]).at(-1);
      if (newest === undefined) throw new TypeError('RealFIFO: cannot key an empty Deltas list');
      return this.keyOf(newest.object);
    }
    if (isDelta<T>(obj)) return this.keyOf(obj.object);
    if (keyFns.isDeletedFinalStateUnknown(obj)) return obj.key;
    return this.#keyFunc(obj);
  }

  /** Queues an `Added` delta. */
  add(obj: T): void {
    this.#life.populated();
    this.#queue('Added', obj, this.#keyFunc(obj));
  }

  /** Queues an `Updated` delta. */
  update(obj: T): void {
    this.#life.populated();
    this.#queue('Updated', obj, this.#keyFunc(obj));
  }

  /** Queues a `Deleted` delta, whether or not the key is known. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#life.populated();
    const key = keyFns.isDeletedFinalStateUnknown(obj) ? obj.key : this.#keyFunc(obj);
    this.#queue('Deleted', obj, key);
  }

  /** A fresh list at `resourceVersion`: one `ReplacedAll` delta carrying it. */
  replace(list: readonly T[], resourceVersion: string): void {
    this.queueRelist(list, resourceVersion);
    this.#life.firstList(this.length);
  }

  /**
   * Queues a relist for {@link replace}: one `ReplacedAll` delta. Protected for
   * `NonAtomicRealFIFO` of `@kubets/cache/compat`, which queues one delta per object instead.
   */
  protected queueRelist(list: readonly T[], resourceVersion: string): void {
    const transformer = this.#transformer;
    if (transformer === undefined) {
      this.#push({ type: 'ReplacedAll', object: { resourceVersion, objects: list } }, '');
      return;
    }
    // The keys `isTransformed` needs go on with the delta: the consumer files objects by them.
    const objects = new Array<T>(list.length);
    const keys = new Array<string>(list.length);
    for (let i = 0; i < list.length; i++) {
      const obj = list[i] as T;
      const key = this.#keyFunc(obj);
      if (this.#isTransformed?.(obj, key) === true) {
        objects[i] = obj;
        keys[i] = key;
      } else {
        // A transform may change the key, even in place: the key is the queued object's.
        const queued = transformer(obj);
        objects[i] = queued;
        keys[i] = this.#keyFunc(queued);
      }
    }
    this.#push({ type: 'ReplacedAll', object: { resourceVersion, objects, keys } }, '');
  }

  /**
   * A watch BOOKMARK at `resourceVersion`: queued as a `Bookmark` delta with
   * `emitDeltaTypeBookmark`, dropped otherwise.
   */
  bookmark(resourceVersion: string): void {
    if (!this.#emitBookmarks) return;
    this.#push({ type: 'Bookmark', object: { resourceVersion } }, '');
  }

  /** Time for a periodic resync: one `SyncAll` delta. */
  resync(): void {
    this.#push({ type: 'SyncAll', object: undefined }, '');
  }

  /** Closes the FIFO: a `pop` waiting or to come on an empty queue rejects with {@link FIFOClosedError}. */
  close(): void {
    this.#life.close();
  }

  /**
   * Waits for a delta, removes it and hands it to `process` (as a one-element list);
   * resolves with that list.
   *
   * @throws {FIFOClosedError} once the FIFO is closed and empty.
   * @throws the signal's `reason` if `signal` aborts while waiting; what `process` throws.
   */
  async pop(process: RealFIFOProcessFunc<T>, signal?: AbortSignal): Promise<FIFODelta<T>[]> {
    await this.#life.waitForItems(this.#isEmpty, signal);
    return this.tryPop(process)!;
  }

  /**
   * {@link pop} without waiting: hands the oldest delta to `process` and returns it in a
   * list; `undefined` when empty.
   */
  tryPop(process: RealFIFOProcessFunc<T>): FIFODelta<T>[] | undefined {
    if (this.length === 0) return undefined;
    const isInInitialList = !this.hasSynced();
    const key = this.#keys[this.#head]!;
    const popped = [this.#shift()];
    return this.#processed(process, popped, isInInitialList, key, 1, popped);
  }

  /**
   * Resolves once a delta may be queued (at once when one is), so that a consumer draining
   * with {@link tryPop} or {@link tryPopBatch} waits without a promise per delta; consumers
   * waiting at the same time share one promise.
   *
   * @throws {FIFOClosedError} (rejects) once the FIFO is closed and empty.
   */
  whenItems(): Promise<void> {
    return this.#life.whenItems(this.#isEmpty);
  }

  readonly #isEmpty = (): boolean => this.length === 0;

  /**
   * Waits for deltas and hands over as many as can go together (client-go `PopBatch`):
   * consecutive object deltas of distinct keys, at most `batchSize`, never crossing the end
   * of the first list, go to `processBatch`; a lone delta, a `ReplacedAll`, a `SyncAll` or
   * a `Bookmark` goes to `processSingle`. Resolves with the deltas handed over.
   *
   * @throws {FIFOClosedError} once the FIFO is closed and empty.
   */
  async popBatch(
    processBatch: ProcessBatchFunc<T>,
    processSingle: RealFIFOProcessFunc<T>,
    signal?: AbortSignal,
  ): Promise<FIFODelta<T>[]> {
    await this.#life.waitForItems(this.#isEmpty, signal);
    return this.tryPopBatch(processBatch, processSingle)!;
  }

  /** {@link popBatch} without waiting; `undefined` when empty. */
  tryPopBatch(
    processBatch: ProcessBatchFunc<T>,
    processSingle: RealFIFOProcessFunc<T>,
  ): FIFODelta<T>[] | undefined {
    const n = this.#batchLength();
    if (n === 0) return undefined;
    const isInInitialList = !this.hasSynced();
    if (n === 1) {
      const key = this.#keys[this.#head]!;
      const popped = [this.#shift()];
      return this.#processed(processSingle, popped, isInInitialList, key, 1, popped);
    }
    const keys = this.#keys.slice(this.#head, this.#head + n);
    const batch: Delta<T>[] = [];
    for (let i = 0; i < n; i++) batch.push(this.#shift() as Delta<T>);
    return this.#processed(processBatch, batch, isInInitialList, keys, n, batch);
  }

  /** How many deltas from the head can go in one batch (0 when empty). */
  #batchLength(): number {
    const available = Math.min(this.length, this.batchSize);
    if (available <= 1) return available;
    const first = this.#deltas[this.#head]!;
    if (!batchable.has(first.type)) return 1;
    const unique = new Set<string>();
    const initialRemaining = this.#life.initialRemaining;
    let n = 0;
    for (; n < available; n++) {
      if (initialRemaining > 0 && n >= initialRemaining) break;
      const i = this.#head + n;
      if (!batchable.has(this.#deltas[i]!.type)) break;
      const key = this.#keys[i]!;
      if (unique.has(key)) break;
      unique.add(key);
    }
    return n;
  }

  /**
   * Runs `process` for `count` popped deltas; the initial list counts down only once it is
   * done, so {@link hasSynced} never turns true while the last item is being processed.
   * `process` and its arguments come separately: no closure per pop.
   */
  #processed<D, K, R>(
    process: (deltas: D, isInInitialList: boolean, key: K) => void,
    deltas: D,
    isInInitialList: boolean,
    key: K,
    count: number,
    result: R,
  ): R {
    this.#metrics?.queuedItems.set(this.length);
    const startedMs = this.#metrics === undefined ? 0 : performance.now();
    try {
      process(deltas, isInInitialList, key);
    } finally {
      this.#finished(count, startedMs);
    }
    return result;
  }

  /** Records `count` deltas as processed, and how long that took (client-go `whileProcessing`). */
  #finished(count: number, startedMs: number): void {
    this.#metrics?.processingLatency.observe((performance.now() - startedMs) / 1000);
    this.#life.processed(count);
  }

  /**
   * True once an add, update or delete came first, or every delta queued up to the first
   * {@link replace} has been popped and processed.
   */
  hasSynced(): boolean {
    return this.#life.hasSynced();
  }

  /** Number of queued deltas. */
  get length(): number {
    return this.#deltas.length - this.#head;
  }

  /** True once {@link close} was called. */
  isClosed(): boolean {
    return this.#life.isClosed();
  }

  /** A copy of the queued deltas, oldest first. */
  list(): FIFODelta<T>[] {
    return this.#deltas.slice(this.#head) as FIFODelta<T>[];
  }

  /**
   * Sets the transformer (see {@link RealFIFOOptions.transformer}) for objects queued from
   * now on.
   */
  setTransformer(transformer: ((obj: T) => T) | undefined): void {
    this.#transformer = transformer;
  }

  /**
   * A relisted object as it is queued: transformed, unless the consumer holds it already
   * (see {@link RealFIFOOptions.isTransformed}).
   */
  protected relisted(obj: T, key: string): T {
    const transformer = this.#transformer;
    if (transformer === undefined || this.#isTransformed?.(obj, key) === true) return obj;
    return transformer(obj);
  }

  /**
   * Queues `delta` under `key` as it is: no transform, and no effect on {@link hasSynced}
   * (a relist counts what it queued once done). For `NonAtomicRealFIFO`'s relist and resync.
   */
  protected queueDelta(delta: Delta<T>, key: string): void {
    this.#push(delta, key);
  }

  /** The newest queued object delta of each key, in queue order of the keys' first delta. */
  protected newestQueuedDeltas(): Map<string, Delta<T>> {
    const newest = new Map<string, Delta<T>>();
    for (let i = this.#head; i < this.#deltas.length; i++) {
      const delta = this.#deltas[i]!;
      if (delta.type === 'ReplacedAll' || delta.type === 'SyncAll' || delta.type === 'Bookmark')
        continue;
      newest.set(this.#keys[i]!, delta);
    }
    return newest;
  }

  #queue(type: DeltaType, obj: T | DeletedFinalStateUnknown<T>, key: string): void {
    let object = obj;
    if (this.#transformer !== undefined && !keyFns.isDeletedFinalStateUnknown(obj)) {
      object = this.#transformer(obj as T);
    }
    this.#push({ type, object }, key);
  }

  #push(delta: FIFODelta<T>, key: string): void {
    this.#deltas.push(delta);
    this.#keys.push(key);
    this.#metrics?.queuedItems.set(this.length);
    this.#life.wakeAll();
  }

  #shift(): FIFODelta<T> {
    const delta = this.#deltas[this.#head]!;
    // Let the popped object be collected, and drop the dead prefix once it is half the array.
    this.#deltas[this.#head] = undefined;
    this.#head++;
    if (this.#head === this.#deltas.length) {
      this.#deltas.length = 0;
      this.#keys.length = 0;
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#deltas.length) {
      this.#deltas.splice(0, this.#head);
      this.#keys.splice(0, this.#head);
      this.#head = 0;
    }
    return delta;
  }
}

const deltaTypes: ReadonlySet<unknown> = new Set([
  ...batchable,
  'ReplacedAll',
  'SyncAll',
  'Bookmark',
]);

function isDelta<T>(obj: unknown): obj is Delta<T> {
  return (
    typeof obj === 'object' &&
    obj !== null &&
    'object' in obj &&
    deltaTypes.has((obj as { type?: unknown }).type)
  );
}
