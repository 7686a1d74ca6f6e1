// Forcing a relist on a real API server. kube-apiserver answers a watch whose resourceVersion
// has been compacted away with an ERROR event carrying a 410 Expired Status; envtest cannot be
// made to compact on demand, so this wrapper around a ListerWatcher does it when asked: it
// ends the running watch (as a server closing it) and answers the reflector's next watch
// request with exactly that event. The reflector then does what it does after a real
// compaction: it lists again (at its last resourceVersion, served by the API server's watch
// cache), replacing the whole store. Until then the reflector reads the inner watch itself,
// unwrapped: the wrapper costs nothing per event.

import type {
  ListQueryOptions,
  ObjectList,
  WatchEvent,
  WatchQueryOptions,
} from '@kubets/apimachinery';
import {
  doesClientNotSupportWatchListSemantics,
  type ListerWatcher,
  type ListHints,
  type WatchHints,
} from '@kubets/cache';

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

/** A watch that yields one event, then ends. */
function oneEventWatch<T>(event: WatchEvent<T>): AsyncIterable<WatchEvent<T>> {
  return {
    [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<T>> => {
      let sent = false;
      return {
        next: async () => {
          if (sent) return { done: true, value: undefined };
          sent = true;
          return { done: false, value: event };
        },
        return: async () => ({ done: true, value: undefined }),
      };
    },
  };
}

/** Wraps a ListerWatcher so that {@link Expirer.expire} ends the current watch with 410. */
export class Expirer<T> {
  /** List requests made so far. */
  lists = 0;
  /** `performance.now()` when the last list request started. */
  lastListStartedAt: number | undefined;
  /** Called with every list result, before the reflector sees it. */
  onList: ((list: ObjectList<T>) => void) | undefined;
  #expireNextWatch = false;
  #endCurrentWatch: (() => void) | undefined;

  /** Ends the running watch; the reflector's next watch request gets the 410 Expired event. */
  expire(): void {
    this.#expireNextWatch = true;
    const end = this.#endCurrentWatch;
    this.#endCurrentWatch = undefined;
    end?.();
  }

  wrap(lw: ListerWatcher<T>): ListerWatcher<T> {
    const wrapped: ListerWatcher<T> = {
      list: async (options: ListQueryOptions, signal: AbortSignal, hints?: ListHints<T>) => {
        this.lists++;
        this.lastListStartedAt = performance.now();
        const list = await lw.list(options, signal, hints);
        this.onList?.(list);
        return list;
      },
      watch: async (options: WatchQueryOptions, signal: AbortSignal, hints?: WatchHints<T>) => {
        if (this.#expireNextWatch) {
          this.#expireNextWatch = false;
          return oneEventWatch(expiredEvent<T>());
        }
        // Aborting a watch's signal ends its stream quietly, as a server closing it does.
        const ending = new AbortController();
        this.#endCurrentWatch = () => ending.abort();
        return lw.watch(options, AbortSignal.any([signal, ending.signal]), hints);
      },
    };
    // Whether the reflector may use a streaming list is the inner list-watch's to say.
    if (lw.isWatchListSemanticsUnsupported !== undefined) {
      wrapped.isWatchListSemanticsUnsupported = () => doesClientNotSupportWatchListSemantics(lw);
    }
    return wrapped;
  }
}
