import type { DeletedFinalStateUnknown } from './keys.js';

/**
 * What happened to an object (client-go `cache.DeltaType`). `Replaced` comes from a relist
 * (`replace`), `Sync` from a periodic resync or, for a FIFO without
 * `emitDeltaTypeReplaced`, from a relist.
 */
export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/**
 * One change of one object. The object of a `Deleted` delta may be a
 * {@link DeletedFinalStateUnknown} tombstone; every other delta carries the object itself.
 */
export interface Delta<T> {
  /** What happened to the object. */
  readonly type: DeltaType;
  /** The object after the change, or a tombstone when its deletion was noticed only on relist. */
  readonly object: T | DeletedFinalStateUnknown<T>;
}

/** The changes of one object, oldest first. */
export type Deltas<T> = Delta<T>[];

/** The oldest delta, or `undefined` for an empty list. */
export function oldestDelta<T>(deltas: Deltas<T>): Delta<T> | undefined {
  return deltas[0];
}

/** The newest delta, or `undefined` for an empty list. */
export function newestDelta<T>(deltas: Deltas<T>): Delta<T> | undefined {
  return deltas[deltas.length - 1];
}

/**
 * What a FIFO that is not atomic (a `DeltaFIFO` or a `NonAtomicRealFIFO`, from
 * `@kubets/cache/compat`) needs to know about the objects its consumer already has
 * (client-go `KeyListerGetter`); an {@link Indexer} or {@link Store} qualifies.
 */
export interface KnownObjects<T> {
  /** Keys of every object the downstream store holds. */
  listKeys(): string[];
  /** The object the downstream store holds under `key`, if any. */
  getByKey(key: string): T | undefined;
}
