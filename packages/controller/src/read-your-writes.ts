import { type Clock, type HasObjectMeta, realClock } from '@kubets/apimachinery';
import {
  type DeletedFinalStateUnknown,
  deletedObject,
  type ResourceEventHandler,
} from '@kubets/cache';
import { requestFor, requestKey } from './request.js';

/**
 * The part of a shared informer {@link waitForCacheWrite} needs: its cache and its events
 * (any `SharedIndexInformer`, e.g. `mgr.informers.forResource(descriptor).informer()`).
 */
export interface ObservableCache<T> {
  /** The informer's cache. */
  getIndexer(): {
    /** The cached object of a `namespace/name` key. */
    getByKey(key: string): T | undefined;
  };
  /** Registers a handler of the informer's events. */
  addEventHandler(handler: ResourceEventHandler<T>): unknown;
}

/** Options of {@link waitForCacheWrite} and {@link waitForCacheDeletion}. */
export interface CacheWaitOptions {
  /** Stops waiting (the promise rejects with the signal's reason). */
  signal?: AbortSignal | undefined;
  /** Rejects after this many milliseconds; default: wait as long as it takes. */
  timeoutMs?: number | undefined;
  /** Time source of `timeoutMs`; a `FakeClock` in tests. */
  clock?: Clock | undefined;
}

/**
 * Resolves once the informer's cache holds `written` or something newer: the object of the
 * same namespace and name with `written`'s resourceVersion or a later one, or a different
 * object (another uid) of that name. Call it after a write, with what the server returned,
 * when the next step reads the cache and must see that write (read-your-writes).
 *
 * The cache is eventually consistent: it learns of writes, the controller's own included,
 * from the watch, some time after the write returned. A reconcile usually does not need
 * this: the write's own event queues another reconcile, which sees it. Wait only when
 * something else reads the cache in between (a status computed from owned objects just
 * written, a test). A cache that is not running never catches up: pass `timeoutMs` or a
 * `signal`.
 *
 * resourceVersions are compared as numbers when both are decimal integers (as etcd's are);
 * otherwise only an equal one counts.
 *
 * @throws {TypeError} when `written` has no name or no resourceVersion.
 */
export function waitForCacheWrite<T extends HasObjectMeta>(
  cache: ObservableCache<T>,
  written: HasObjectMeta,
  options: CacheWaitOptions = {},
): Promise<void> {
  const resourceVersion = written?.metadata?.resourceVersion;
  return waitForCache(cache, written, 'waitForCacheWrite', options, (key) => {
    if (!resourceVersion) {
      throw new TypeError(
        `waitForCacheWrite needs the written object's metadata.resourceVersion (pass what the server returned), ${key} has none`,
      );
    }
    return {
      what: `resourceVersion ${resourceVersion} of ${key}`,
      seen: (cached, isOther) =>
        cached !== undefined &&
        (isOther || notOlder(cached.metadata?.resourceVersion, resourceVersion)),
    };
  });
}

/**
 * Resolves once the informer's cache no longer holds `deleted` (by namespace and name; with
 * a uid, a re-created object of the same name counts as gone). The counterpart of
 * {@link waitForCacheWrite} for deletions, with the same caveats.
 *
 * @throws {TypeError} when `deleted` has no name.
 */
export function waitForCacheDeletion<T extends HasObjectMeta>(
  cache: ObservableCache<T>,
  deleted: HasObjectMeta,
  options: CacheWaitOptions = {},
): Promise<void> {
  return waitForCache(cache, deleted, 'waitForCacheDeletion', options, (key) => ({
    what: `the deletion of ${key}`,
    seen: (cached, isOther) => cached === undefined || isOther,
  }));
}

/** What one wait waits for: `seen` gets the cached object and whether it has another uid. */
interface Awaited<T> {
  what: string;
  seen(cached: T | undefined, isOther: boolean): boolean;
}

function waitForCache<T extends HasObjectMeta>(
  cache: ObservableCache<T>,
  object: HasObjectMeta,
  caller: string,
  options: CacheWaitOptions,
  awaited: (key: string) => Awaited<T>,
): Promise<void> {
  if (!object?.metadata?.name) {
    throw new TypeError(`${caller} needs an object with metadata.name`);
  }
  const key = requestKey(requestFor(object));
  const { what, seen } = awaited(key);
  const uid = object.metadata.uid;
  return observerOf(cache).wait(
    key,
    (cached) => seen(cached, cached !== undefined && differentObject(cached, uid)),
    what,
    options,
  );
}

function differentObject(cached: HasObjectMeta, uid: string | undefined): boolean {
  return uid !== undefined && cached.metadata?.uid !== undefined && cached.metadata.uid !== uid;
}

const decimal = /^\d+$/;

function notOlder(cached: string | undefined, written: string): boolean {
  if (cached === undefined) return false;
  if (decimal.test(cached) && decimal.test(written)) return BigInt(cached) >= BigInt(written);
  return cached === written;
}

// One handler per informer for every wait on it: adding a handler per wait would replay the
// whole cache to it each time.
const observers = new WeakMap<object, CacheObserver<HasObjectMeta>>();

function observerOf<T extends HasObjectMeta>(cache: ObservableCache<T>): CacheObserver<T> {
  let observer = observers.get(cache) as CacheObserver<T> | undefined;
  if (observer === undefined) {
    observer = new CacheObserver(cache);
    observers.set(cache, observer as unknown as CacheObserver<HasObjectMeta>);
  }
  return observer;
}

class CacheObserver<T extends HasObjectMeta> {
  readonly #cache: ObservableCache<T>;
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(cache: ObservableCache<T>) {
    this.#cache = cache;
    const changed = (obj: T | DeletedFinalStateUnknown<T>): void => {
      const object = deletedObject(obj);
      if (object?.metadata?.name) this.#check(requestKey(requestFor(object)));
    };
    cache.addEventHandler({
      onAdd: changed,
      onUpdate: (_old, obj) => changed(obj),
      onDelete: changed,
    });
  }

  wait(
    key: string,
    satisfied: (cached: T | undefined) => boolean,
    what: string,
    options: CacheWaitOptions,
  ): Promise<void> {
    const done = (): boolean => satisfied(this.#cache.getIndexer().getByKey(key));
    if (done()) return Promise.resolve();
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiters = this.#waiters.get(key) ?? new Set();
      this.#waiters.set(key, waiters);
      const timer =
        timeoutMs === undefined
          ? undefined
          : (options.clock ?? realClock).setTimeout(
              () =>
                settle(() =>
                  reject(new Error(`the cache did not see ${what} within ${timeoutMs} ms`)),
                ),
              timeoutMs,
            );
      const onAbort = (): void => settle(() => reject(signal?.reason));
      const check = (): void => {
        if (done()) settle(resolve);
      };
      function settle(end: () => void): void {
        waiters.delete(check);
        timer?.cancel();
        signal?.removeEventListener('abort', onAbort);
        end();
      }
      waiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
    }).finally(() => {
      if (this.#waiters.get(key)?.size === 0) this.#waiters.delete(key);
    });
  }

  #check(key: string): void {
    for (const check of [...(this.#waiters.get(key) ?? [])]) check();
  }
}
