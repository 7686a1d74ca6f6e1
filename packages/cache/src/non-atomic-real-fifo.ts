import type { Delta, KnownObjects } from './delta.js';
import { deletedFinalStateUnknown, type KeyFunc, metaNamespaceKeyFunc } from './keys.js';
import { RealFIFO, type RealFIFOOptions } from './the-real-fifo.js';

/** Settings of a {@link NonAtomicRealFIFO}. */
export interface NonAtomicRealFIFOOptions<T>
  extends Omit<RealFIFOOptions<T>, 'emitDeltaTypeBookmark'> {
  /**
   * The objects the consumer holds: a relist queues a tombstone for each one missing from
   * it, a resync queues a `Sync` for each one with nothing queued.
   */
  knownObjects: KnownObjects<T>;
}

/**
 * A {@link RealFIFO} that queues a relist and a resync one delta per object (client-go
 * `RealFIFO` without `AtomicEvents`), for code written against it; informers use the atomic
 * `RealFIFO`.
 *
 * - {@link replace} queues a tombstone `Deleted` for each queued or known key missing from
 *   the list (deletes first), then `Replaced` for each listed object;
 * - {@link resync} queues a `Sync` for each known key with nothing queued (a queued delta is
 *   newer than the known object);
 * - bookmarks are dropped.
 */
export class NonAtomicRealFIFO<T> extends RealFIFO<T> {
  readonly #knownObjects: KnownObjects<T>;
  readonly #keyFunc: KeyFunc;

  constructor(options: NonAtomicRealFIFOOptions<T>) {
    if (options.knownObjects === undefined) {
      throw new Error('RealFIFO: knownObjects is required without atomicEvents');
    }
    if ((options as RealFIFOOptions<T>).emitDeltaTypeBookmark === true) {
      throw new Error('RealFIFO: emitDeltaTypeBookmark requires atomicEvents');
    }
    super(options);
    this.#knownObjects = options.knownObjects;
    this.#keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
  }

  /** Queues a `Sync` delta for every known object with nothing queued. */
  override resync(): void {
    const known = this.#knownObjects;
    const queued = this.newestQueuedDeltas();
    for (const key of known.listKeys()) {
      if (queued.has(key)) continue;
      const obj = known.getByKey(key);
      if (obj === undefined) continue;
      this.queueDelta({ type: 'Sync', object: obj }, key);
    }
  }

  /**
   * The relist: a tombstone for each queued key whose last delta is not a delete and each
   * known key, both missing from `list`; then `Replaced` for every listed object.
   */
  protected override queueRelist(list: readonly T[]): void {
    const keyFunc = this.#keyFunc;
    const listed = new Set<string>();
    for (const obj of list) listed.add(keyFunc(obj));
    const lastQueued = this.newestQueuedDeltas();
    for (const [key, last] of lastQueued) {
      if (listed.has(key) || last.type === 'Deleted') continue;
      this.#queueTombstone(key, last.object as T);
    }
    const known = this.#knownObjects;
    for (const key of known.listKeys()) {
      if (listed.has(key) || lastQueued.has(key)) continue;
      this.#queueTombstone(key, known.getByKey(key));
    }
    for (const obj of list) {
      const key = keyFunc(obj);
      this.queueDelta({ type: 'Replaced', object: this.relisted(obj, key) }, key);
    }
  }

  #queueTombstone(key: string, last: T | undefined): void {
    const tombstone: Delta<T> = { type: 'Deleted', object: deletedFinalStateUnknown<T>(key, last) };
    this.queueDelta(tombstone, key);
  }
}
