import { RingBuffer } from '@kubets/apimachinery';
import {
  type Delta,
  type Deltas,
  type DeltaType,
  type KnownObjects,
  newestDelta,
} from './delta.js';
import { FIFOLifecycle } from './fifo-lifecycle.js';
import {
  type DeletedFinalStateUnknown,
  deletedFinalStateUnknown,
  isDeletedFinalStateUnknown,
  type KeyFunc,
  metaNamespaceKeyFunc,
} from './keys.js';

/** Settings of a {@link DeltaFIFO}. */
export interface DeltaFIFOOptions<T> {
  /** Keys objects; default {@link metaNamespaceKeyFunc}. Tombstones are always keyed by their key. */
  keyFunction?: KeyFunc | undefined;
  /**
   * The objects the consumer holds, usually the informer's indexer. Needed for deletes of
   * keys not queued, for tombstones of keys missing from a relist, and for resync.
   */
  knownObjects?: KnownObjects<T> | undefined;
  /**
   * Queue `Replaced` rather than `Sync` deltas for relisted objects, so a consumer can tell a
   * relist from a resync. Informers set it; the default is `false`, as in client-go.
   */
  emitDeltaTypeReplaced?: boolean | undefined;
  /**
   * Applied once to every object entering the queue, relisted ones included (`Replaced`,
   * or `Sync` without `emitDeltaTypeReplaced`); not to tombstones, nor to the `Sync` deltas
   * of {@link DeltaFIFO.resync}, whose objects come from `knownObjects` and were transformed
   * already. Use it to
   * drop what you do not need, e.g. `metadata.managedFields`. It may mutate and return its
   * argument.
   */
  transformer?: ((obj: T) => T) | undefined;
}

/**
 * The function {@link DeltaFIFO.pop} hands one key's deltas to, with the key the FIFO filed
 * them under (so the consumer need not compute it again). `isInInitialList` is true while
 * the FIFO has not yet synced, i.e. for the objects of the first list.
 */
export type PopProcessFunc<T> = (
  deltas: Deltas<T>,
  isInInitialList: boolean,
  key: string,
) => void | Promise<void>;

const requeueBrand = Symbol.for('kubets.cache.RequeueError');

/**
 * Throw this from a {@link PopProcessFunc} to put the deltas back in the queue (client-go
 * `ErrRequeue`): they are re-added unless newer deltas for the key arrived meanwhile, and
 * `pop` then rejects with `cause` (or resolves when there is none).
 */
export class RequeueError extends Error {
  /**
   * Brand that lets {@link isRequeueError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [requeueBrand] = true;

  constructor(cause?: unknown) {
    super(
      cause instanceof Error ? `requeue: ${cause.message}` : 'requeue',
      cause === undefined ? undefined : { cause },
    );
    this.name = 'RequeueError';
  }
}

/** True for a {@link RequeueError}, also one created by another copy of this package. */
export function isRequeueError(err: unknown): err is RequeueError {
  return typeof err === 'object' && err !== null && requeueBrand in err;
}

/**
 * The queue between a reflector and its consumer (client-go `cache.DeltaFIFO`): every
 * change is queued as a {@link Delta} under the object's key; keys keep the order in which
 * they first arrived, and {@link pop} hands over all deltas of one key at once.
 *
 * Rules, as in client-go:
 * - a delete is dropped unless the key is known (in `knownObjects`) or queued;
 * - only two consecutive deletes collapse into one, keeping the one that is not a tombstone;
 * - {@link replace} queues `Replaced` (or `Sync`) for each listed object and a `Deleted`
 *   with a {@link DeletedFinalStateUnknown} for each known or queued key missing from the list;
 * - {@link resync} queues `Sync` for known keys with nothing queued;
 * - the transformer sees every object that enters the queue once, relisted ones too,
 *   whatever the delta type; never tombstones or the known objects {@link resync} queues;
 * - {@link hasSynced} becomes true once every item of the first `replace`, deletes
 *   included, has been popped and processed.
 *
 * Every add, update and delete costs O(1); nothing is copied.
 */
export class DeltaFIFO<T> {
  readonly #keyFunc: KeyFunc;
  readonly #knownObjects: KnownObjects<T> | undefined;
  readonly #emitDeltaTypeReplaced: boolean;
  #transformer: ((obj: T) => T) | undefined;

  /** key → deltas; a key is in #items exactly when it is in the queue. */
  #items = new Map<string, Deltas<T>>();
  /** Keys in first-arrival order. */
  readonly #queue = new RingBuffer<string>();

  readonly #life = new FIFOLifecycle();

  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.#keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    this.#knownObjects = options.knownObjects;
    this.#emitDeltaTypeReplaced = options.emitDeltaTypeReplaced ?? false;
    this.#transformer = options.transformer;
  }

  /**
   * The key of an object, of a tombstone (its key) or of a list of deltas (the newest
   * delta's object).
   */
  keyOf(obj: T | DeletedFinalStateUnknown<T> | Deltas<T>): string {
    if (Array.isArray(obj)) {
      const newest = newestDelta(obj as Deltas<T>);
      if (newest === undefined) throw new TypeError('DeltaFIFO: cannot key an empty Deltas list');
      return this.keyOf(newest.object);
    }
    if (isDeletedFinalStateUnknown(obj)) return obj.key;
    return this.#keyFunc(obj);
  }

  /** Queues an `Added` delta. */
  add(obj: T): void {
    this.#life.populated();
    this.#queueAction('Added', obj, this.#keyFunc(obj));
  }

  /** Queues an `Updated` delta. */
  update(obj: T): void {
    this.#life.populated();
    this.#queueAction('Updated', obj, this.#keyFunc(obj));
  }

  /**
   * Queues a `Deleted` delta, unless the key is neither known nor queued: then the object
   * was already deleted, e.g. by a relist, and nothing happens.
   */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const id = this.keyOf(obj);
    this.#life.populated();
    if (!this.#items.has(id)) {
      if (this.#knownObjects === undefined) return;
      if (this.#knownObjects.getByKey(id) === undefined) return;
    }
    this.#queueAction('Deleted', obj, id);
  }

  /**
   * Replaces the content with a fresh list at `resourceVersion`: queues `Replaced` (or
   * `Sync`) for every listed object, and a `Deleted` tombstone for every queued or known
   * key that is not in the list (a deletion missed while not watching).
   */
  replace(list: readonly T[], _resourceVersion: string): void {
    const action: DeltaType = this.#emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
    const keys = new Set<string>();
    for (const item of list) {
      const key = this.#keyFunc(item);
      keys.add(key);
      this.#queueAction(action, item, key, true);
    }

    let queuedDeletions = 0;
    // Queued keys missing from the list. Setting an existing key while iterating is safe.
    for (const [key, deltas] of this.#items) {
      if (keys.has(key)) continue;
      let last = newestDelta(deltas)?.object;
      if (isDeletedFinalStateUnknown<T>(last)) last = last.obj;
      queuedDeletions++;
      this.#queueAction('Deleted', deletedFinalStateUnknown<T>(key, last as T | undefined), key);
    }
    // Known keys missing from the list with nothing queued.
    if (this.#knownObjects !== undefined) {
      for (const key of this.#knownObjects.listKeys()) {
        if (keys.has(key) || this.#items.has(key)) continue;
        const last = this.#knownObjects.getByKey(key);
        queuedDeletions++;
        this.#queueAction('Deleted', deletedFinalStateUnknown<T>(key, last), key);
      }
    }

    this.#life.firstList(keys.size + queuedDeletions);
  }

  /** Queues a `Sync` delta for every known object that has nothing queued. */
  resync(): void {
    const known = this.#knownObjects;
    if (known === undefined) return;
    for (const key of known.listKeys()) {
      const obj = known.getByKey(key);
      if (obj === undefined) continue;
      // A queued delta carries a newer state than the known object: syncing the known one
      // would go back in time.
      if (this.#items.has(key)) continue;
      this.#queueAction('Sync', obj, key);
    }
  }

  /**
   * Waits for a key to be queued, removes it and hands its deltas to `process` (awaiting it).
   * Resolves with the deltas once `process` is done.
   *
   * If `process` throws a {@link RequeueError}, the deltas are queued again (unless newer
   * ones arrived meanwhile) and `pop` rejects with the error's cause, if any. Other errors
   * reject `pop` as they are.
   *
   * @throws {FIFOClosedError} once the FIFO is closed and empty.
   * @throws the signal's `reason` if `signal` aborts while waiting.
   */
  async pop(process: PopProcessFunc<T>, signal?: AbortSignal): Promise<Deltas<T>> {
    for (;;) {
      await this.#life.waitForItems(() => this.#queue.length === 0, signal);
      const popped = this.tryPop(process);
      if (popped !== undefined) return await popped;
    }
  }

  /**
   * Resolves once a key may be queued (at once when one is), so that a consumer draining
   * with {@link tryPop} waits without a promise per key; consumers waiting at the same time
   * share one promise.
   *
   * @throws {FIFOClosedError} (rejects) once the FIFO is closed and empty.
   */
  whenItems(): Promise<void> {
    return this.#life.whenItems(this.#isEmpty);
  }

  readonly #isEmpty = (): boolean => this.#queue.length === 0;

  /**
   * {@link pop} without waiting: when a key is queued, removes it, hands its deltas to
   * `process` and returns them (a promise of them only if `process` returns a promise);
   * returns `undefined` at once when nothing is queued. A process loop that drains the queue
   * with it costs no promise per key when `process` is synchronous, as an informer's is.
   *
   * @throws what {@link pop} rejects with, synchronously when `process` throws.
   */
  tryPop(process: PopProcessFunc<T>): Deltas<T> | Promise<Deltas<T>> | undefined {
    const id = this.#queue.shift();
    if (id === undefined) return undefined;
    const isInInitialList = !this.hasSynced();
    const deltas = this.#items.get(id);
    if (deltas === undefined) return undefined; // cannot happen: queue and items agree
    this.#items.delete(id);
    let processing: void | Promise<void>;
    try {
      processing = process(deltas, isInInitialList, id);
    } catch (err) {
      return this.#popped(deltas, id, true, err);
    }
    if (processing === undefined) return this.#popped(deltas, id, false);
    return processing.then(
      () => this.#popped(deltas, id, false),
      (err: unknown) => this.#popped(deltas, id, true, err),
    );
  }

  /** Finishes a pop: requeues on a {@link RequeueError}, counts down the initial list. */
  #popped(deltas: Deltas<T>, id: string, failed: boolean, err?: unknown): Deltas<T> {
    try {
      if (failed) {
        if (!isRequeueError(err)) throw err;
        if (!this.#items.has(id)) {
          this.#items.set(id, deltas);
          this.#queue.push(id);
          this.#life.wakeAll();
        }
        if (err.cause !== undefined) throw err.cause;
      }
      return deltas;
    } finally {
      this.#life.processed(1);
    }
  }

  /**
   * True once the first {@link replace} (or any add/update/delete before it) happened and
   * every item it queued has been popped and processed.
   */
  hasSynced(): boolean {
    return this.#life.hasSynced();
  }

  /** Closes the FIFO: waiting and future `pop`s on an empty queue reject with {@link FIFOClosedError}. */
  close(): void {
    this.#life.close();
  }

  /** True after {@link close}. */
  isClosed(): boolean {
    return this.#life.isClosed();
  }

  /** Number of queued keys. */
  get length(): number {
    return this.#queue.length;
  }

  /** Queued keys, in pop order. */
  listKeys(): string[] {
    return this.#queue.toArray();
  }

  /** The newest queued object of every queued key, in pop order. */
  list(): (T | DeletedFinalStateUnknown<T>)[] {
    const out: (T | DeletedFinalStateUnknown<T>)[] = [];
    for (const key of this.#queue) {
      const newest = newestDelta(this.#items.get(key) ?? []);
      if (newest) out.push(newest.object);
    }
    return out;
  }

  /** A copy of the deltas queued for `key`, or `undefined` when none are. */
  getByKey(key: string): Deltas<T> | undefined {
    const deltas = this.#items.get(key);
    return deltas ? deltas.slice() : undefined;
  }

  /** A copy of the deltas queued for the key of `obj`, or `undefined` when none are. */
  get(obj: T | DeletedFinalStateUnknown<T>): Deltas<T> | undefined {
    return this.getByKey(this.keyOf(obj));
  }

  /**
   * Sets the transformer (see {@link DeltaFIFOOptions.transformer}) for objects queued from
   * now on.
   */
  setTransformer(transformer: ((obj: T) => T) | undefined): void {
    this.#transformer = transformer;
  }

  /**
   * Queues one delta. `relisted` marks the objects of a {@link replace}: new objects even
   * when queued as `Sync`, so they are transformed, unlike the known objects of a resync.
   */
  #queueAction(
    type: DeltaType,
    obj: T | DeletedFinalStateUnknown<T>,
    id: string,
    relisted = false,
  ): void {
    let object = obj;
    if (
      this.#transformer !== undefined &&
      (relisted || type !== 'Sync') &&
      !isDeletedFinalStateUnknown(obj) &&
      // A relist may hand back the very object the store holds, transformed already.
      !(relisted && this.#knownObjects?.getByKey(id) === obj)
    ) {
      object = this.#transformer(obj as T);
    }
    const delta: Delta<T> = { type, object };
    const deltas = this.#items.get(id);
    if (deltas === undefined) {
      this.#items.set(id, [delta]);
      this.#queue.push(id);
    } else {
      deltas.push(delta);
      dedupLastTwo(deltas);
    }
    this.#life.wakeAll();
  }
}

/**
 * Collapses the last two deltas when both are deletes (client-go `dedupDeltas` with
 * `isDeletionDup`): the one kept is the newer, unless the newer is a tombstone.
 */
function dedupLastTwo<T>(deltas: Deltas<T>): void {
  const n = deltas.length;
  if (n < 2) return;
  const a = deltas[n - 2]!;
  const b = deltas[n - 1]!;
  if (a.type !== 'Deleted' || b.type !== 'Deleted') return;
  deltas.length = n - 1;
  deltas[n - 2] = isDeletedFinalStateUnknown(b.object) ? a : b;
}
