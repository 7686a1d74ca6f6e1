import type { JsonObject } from './patch.js';

/** One stored version of an object: the parsed object and its JSON, serialised once. */
export interface Entry {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly obj: JsonObject;
  readonly json: string;
  readonly rv: number;
}

/** A change to one object, as kept in the bounded history and fanned out to watchers. */
export interface StoredEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly rv: number;
  /** The new state; for DELETED the last state, carrying the deletion's resourceVersion. */
  readonly object: Entry;
  /** The state before, for MODIFIED and DELETED. */
  readonly prev: Entry | undefined;
  /** Watch lines built so far, by `type|variant`: each is serialised at most once. */
  lines?: Map<string, string>;
}

/** Receives the events of one resource; implemented by watch streams. */
export interface EventSink {
  /** Only events in this namespace, when set. */
  readonly namespace: string | undefined;
  deliver(event: StoredEvent): void;
}

/** Creates the store key of an object: `namespace/name`, or `name` for cluster-scoped ones. */
export function storeKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Builds an entry, serialising the object once. */
export function makeEntry(obj: JsonObject, namespace: string, name: string, rv: number): Entry {
  return { key: storeKey(namespace, name), namespace, name, obj, json: JSON.stringify(obj), rv };
}

/** Byte order of ASCII keys, which is what etcd lists in. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Index of the first key ≥ `start` in a sorted array. */
export function lowerBound(keys: readonly string[], start: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
