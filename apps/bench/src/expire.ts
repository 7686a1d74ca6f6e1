// Forcing a relist on a real API server. kube-apiserver sends a watch an ERROR event with a
// 410 Expired Status when the watch's resourceVersion has been compacted away; envtest cannot
// be made to compact on demand, so this wrapper around a ListerWatcher injects exactly that
// event into the running watch when asked to. The reflector then does what it does after a
// real compaction: it ends the watch and lists again (at its last resourceVersion, served by
// the API server's watch cache), replacing the whole store.

import type { ObjectList, WatchEvent } from '@kubets/apimachinery';
import type { ListerWatcher, ListHints, ListOptions, WatchOptions } from '@kubets/cache';

/** The event kube-apiserver sends when a watch's resourceVersion is too old. */
export function expiredEvent<T>(): WatchEvent<T> {
  return {
    type: 'ERROR',
    object: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'too old resource version (forced by the kubets benchmark)',
      reason: 'Expired',
      code: 410,
    },
  } as WatchEvent<T>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Wraps a ListerWatcher so that {@link Expirer.expire} ends the current watch with 410. */
export class Expirer<T> {
  /** List requests made so far. */
  lists = 0;
  /** Called with every list result, before the reflector sees it. */
  onList: ((list: ObjectList<T>) => void) | undefined;
  #expiry = deferred<IteratorResult<WatchEvent<T>>>();

  /** Ends the running watch with a 410 Expired event. */
  expire(): void {
    const current = this.#expiry;
    this.#expiry = deferred();
    current.resolve({ done: false, value: expiredEvent<T>() });
  }

  wrap(lw: ListerWatcher<T>): ListerWatcher<T> {
    return {
      list: async (options: ListOptions, signal: AbortSignal, hints?: ListHints<T>) => {
        this.lists++;
        const list = await lw.list(options, signal, hints);
        this.onList?.(list);
        return list;
      },
      watch: async (options: WatchOptions, signal: AbortSignal) => {
        const inner = await lw.watch(options, signal);
        return {
          [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<T>> => {
            const it = inner[Symbol.asyncIterator]();
            return {
              next: () => {
                const next = it.next();
                // When the expiry wins the race, this read is abandoned (return() ends it).
                next.catch(() => undefined);
                return Promise.race([next, this.#expiry.promise]);
              },
              return: async () => {
                await it.return?.();
                return { done: true, value: undefined };
              },
            };
          },
        };
      },
    };
  }
}
