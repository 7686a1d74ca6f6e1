import type { ObjectList, WatchEvent } from '@kubets/apimachinery';

/**
 * How `resourceVersion` is interpreted by a list (and by a watch with
 * `sendInitialEvents`): `NotOlderThan` any state at least as new, `Exact` exactly that one.
 */
export type ResourceVersionMatch = 'NotOlderThan' | 'Exact' | (string & {});

/** Query options of a list request (the list fields of `meta/v1` `ListOptions`). */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * `'0'`: any version, served from the API server's watch cache; `''` or absent: the
   * latest (a quorum read); otherwise as `resourceVersionMatch` says.
   */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** Page size; the server may ignore it (it does for `resourceVersion=0`). */
  limit?: number;
  /** The `continue` token of the previous page. */
  continue?: string;
  /** Server-side timeout of the request, in seconds. */
  timeoutSeconds?: number;
}

/** Query options of a watch request. */
export interface WatchOptions extends ListOptions {
  /** Ask for BOOKMARK events, which carry only a newer resourceVersion. */
  allowWatchBookmarks?: boolean;
  /**
   * Streaming list: the watch starts with ADDED events for the current state and a
   * BOOKMARK annotated `k8s.io/initial-events-end: "true"`, then continues as a watch.
   * Requires `resourceVersionMatch: 'NotOlderThan'`.
   */
  sendInitialEvents?: boolean;
}

/**
 * The list and watch calls for one resource (client-go `cache.ListerWatcher`), usually bound
 * to a namespace and selectors. `listWatchFromClient` adapters for REST clients, typed
 * clients and dynamic clients implement it; so can any object literal with these two methods.
 */
export interface ListerWatcher<T> {
  /**
   * Lists objects. Rejects with a `StatusError` for server failures; an `Expired`/410
   * error on a `continue` token makes the reflector fall back to one full list.
   */
  list(options: ListOptions, signal: AbortSignal): Promise<ObjectList<T>>;
  /**
   * Starts a watch. The promise rejects when the server refuses it (e.g. 410 Gone when the
   * resourceVersion is too old); the stream yields events until the server ends it (clean
   * end), fails (throws), or `signal` aborts (it must then end or throw promptly). Leaving
   * a `for await` loop early must stop the request.
   */
  watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>>>;
}

/**
 * Wraps a {@link ListerWatcher} so that `tweak` may change the options of every list and
 * watch call (client-go's `TweakListOptionsFunc`), e.g. to add a label selector. `tweak`
 * gets a copy of the options it may modify.
 */
export function tweakListerWatcher<T>(
  lw: ListerWatcher<T>,
  tweak: ((options: ListOptions) => void) | undefined,
): ListerWatcher<T> {
  if (tweak === undefined) return lw;
  return {
    list: (options, signal) => {
      const copy = { ...options };
      tweak(copy);
      return lw.list(copy, signal);
    },
    watch: (options, signal) => {
      const copy = { ...options };
      tweak(copy);
      return lw.watch(copy, signal);
    },
  };
}
