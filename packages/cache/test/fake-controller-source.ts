// client-go's tools/cache/testing FakeControllerSource, for the ported controller and
// shared informer tests: an in-memory "API server" for one resource. Every change gets the
// next resourceVersion and goes to the open watches; lists return the current objects.

import type {
  ListQueryOptions,
  ObjectList,
  WatchEvent,
  WatchQueryOptions,
} from '@kubets/apimachinery';
import { metaNamespaceKeyFunc } from '../src/keys.js';
import type { ListerWatcher } from '../src/listwatch.js';
import { expiredStatus, FakeWatch } from './helpers.js';

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Meta {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

/** An in-memory list-watch source the test changes with add/modify/delete. */
export class FakeControllerSource<T extends Meta> implements ListerWatcher<T> {
  readonly #items = new Map<string, T>();
  /** Every change, for watches that start at an older resourceVersion. */
  readonly #log: { rv: number; type: ChangeType; object: T }[] = [];
  readonly #watches = new Set<FakeWatch<T>>();
  #rv = 0;
  /** Number of list calls so far. */
  lists = 0;
  /** When set, every list rejects with it (client-go `ListError`). */
  listError: Error | undefined;

  /**
   * Like the sources of client-go's ported tests (wrapped by
   * `toListWatcherWithUnSupportedWatchListSemantics`), it serves plain lists only: its watch
   * ignores `sendInitialEvents`.
   */
  isWatchListSemanticsUnsupported(): boolean {
    return true;
  }

  /** Number of open watches. */
  get watching(): number {
    return this.#watches.size;
  }

  /** Adds `obj` (a copy, at the next resourceVersion). */
  add(obj: T): void {
    this.#change('ADDED', obj, true);
  }

  /** Modifies `obj`. */
  modify(obj: T): void {
    this.#change('MODIFIED', obj, true);
  }

  /** Deletes `obj`. */
  delete(obj: T): void {
    this.#change('DELETED', obj, true);
  }

  /** Adds `obj` without telling the open watches (client-go `AddDropWatch`). */
  addDropWatch(obj: T): void {
    this.#change('ADDED', obj, false);
  }

  /** Modifies `obj` without telling the open watches (client-go `ModifyDropWatch`). */
  modifyDropWatch(obj: T): void {
    this.#change('MODIFIED', obj, false);
  }

  /** Ends every open watch with a 410, so the informer relists (client-go `ResetWatch`). */
  resetWatch(): void {
    for (const w of this.#watches) w.push({ type: 'ERROR', object: expiredStatus() as never });
    this.#watches.clear();
    this.#log.length = 0;
  }

  async list(_options: ListQueryOptions, signal: AbortSignal): Promise<ObjectList<T>> {
    signal.throwIfAborted();
    this.lists++;
    if (this.listError !== undefined) throw this.listError;
    return {
      metadata: { resourceVersion: String(this.#rv) },
      items: [...this.#items.values()].map((o) => structuredClone(o)),
    };
  }

  async watch(
    options: WatchQueryOptions,
    signal: AbortSignal,
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    signal.throwIfAborted();
    const w = new FakeWatch<T>(options, signal);
    const from = Number(options.resourceVersion ?? 0);
    for (const { rv, type, object } of this.#log) {
      if (rv > from) w.push({ type, object: structuredClone(object) });
    }
    this.#watches.add(w);
    signal.addEventListener('abort', () => this.#watches.delete(w), { once: true });
    return w;
  }

  #change(type: ChangeType, obj: T, tellWatches: boolean): void {
    const object = structuredClone(obj);
    object.metadata.resourceVersion = String(++this.#rv);
    const key = metaNamespaceKeyFunc(object);
    if (type === 'DELETED') this.#items.delete(key);
    else this.#items.set(key, object);
    if (!tellWatches) return;
    this.#log.push({ rv: this.#rv, type, object });
    for (const w of this.#watches) w.push({ type, object: structuredClone(object) });
  }
}
