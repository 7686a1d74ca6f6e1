import type { Clock, Logger, RandomSource } from '@kubets/apimachinery';
import type { KeyFunc } from './keys.js';
import type { ListerWatcher } from './listwatch.js';
import type { ReflectorMetricsProvider } from './reflector-metrics.js';

/**
 * What a {@link Reflector} writes into: usually an informer's {@link RealFIFO}, or any {@link Store}.
 */
export interface ReflectorStore<T> {
  /** An object was added by the watch. */
  add(obj: T): void;
  /** An object was modified. */
  update(obj: T): void;
  /** An object was deleted. */
  delete(obj: T): void;
  /** A (re)list completed: `list` is the whole current state at `resourceVersion`. */
  replace(list: T[], resourceVersion: string): void;
  /** Time for a periodic resync: re-deliver what the store holds. */
  resync(): void;
  /**
   * A watch BOOKMARK: the server has sent everything up to `resourceVersion` (client-go
   * `ReflectorBookmarkStore`). Optional; stores track it as their resourceVersion.
   */
  bookmark?(resourceVersion: string): void;
  /**
   * Called each time a watch moves the reflector's resourceVersion (client-go
   * `ResourceVersionUpdater`): after every event, once the watch is past the synthetic ADDED
   * events of a watch from `""` or `"0"`. Optional.
   */
  updateResourceVersion?(resourceVersion: string): void;
}

/** Facts about the reflector passed to a {@link WatchErrorHandler}. */
export interface ReflectorInfo {
  /** The reflector's name (for logs). */
  readonly name: string;
  /** What it lists and watches, e.g. `"*v1.Pod"` or `"pods"`. */
  readonly typeDescription: string;
}

/**
 * Called whenever a list or watch fails and the reflector is about to retry (client-go
 * `WatchErrorHandler`), e.g. to count failures or to notice that a CRD is missing. The
 * reflector keeps going either way.
 */
export type WatchErrorHandler = (error: unknown, reflector: ReflectorInfo) => void;

/**
 * Anything that hands out retry delays, like
 * {@link @kubets/apimachinery!ExponentialBackoffManager | ExponentialBackoffManager}.
 */
export interface BackoffManager {
  /** The delay before the next retry, in milliseconds; called once per failure. */
  next(): number;
}

/** Settings of a {@link Reflector}. */
export interface ReflectorOptions {
  /** Name for logs. Default `"reflector"`. */
  name?: string | undefined;
  /** What is listed, for logs. Default `"object"`. */
  typeDescription?: string | undefined;
  /** How often to call `store.resync()`, in milliseconds; `0` (the default) for never. */
  resyncPeriodMs?: number | undefined;
  /** Asked before each periodic resync; resync happens only when it returns true. */
  shouldResync?: (() => boolean) | undefined;
  /**
   * Page size of lists. Default: {@link defaultPageSize} for the first list (at
   * resourceVersion `0`, which real servers answer in full anyway) and after a paginated
   * answer; no paging for relists at a specific resourceVersion, so they are served from the
   * API server's watch cache.
   */
  pageSize?: number | undefined;
  /**
   * List with a streaming list (client-go `WatchListClient`, on by default since 1.35): a
   * watch with `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan` and
   * `allowWatchBookmarks=true`, whose ADDED events up to the BOOKMARK annotated
   * `k8s.io/initial-events-end: "true"` are the list; the same stream then goes on as the
   * watch. When the server refuses it (kube-apiserver before 1.27, or with the feature
   * off, answers 422 Invalid) or it fails otherwise, that list is a paged list instead, and
   * the next list tries streaming again, as in client-go. A stream that ends before its
   * bookmark is asked for again after the backoff; after three in a row, or one still open
   * at its deadline without the bookmark, lists are paged lists for 10 minutes, with one
   * warning (client-go asks again at once; see docs/fidelity.md).
   *
   * Default: true, unless the environment variable `KUBE_FEATURE_WatchListClient` is
   * `false` (client-go's feature-gate variable, read once when the reflector is created),
   * or the list-watch says it cannot stream (see
   * {@link ListerWatcher.isWatchListSemanticsUnsupported}).
   */
  useStreamingList?: boolean | undefined;
  /**
   * Watches ask the server to end them after a random time in [min, 2×min) seconds. Default
   * and minimum 300: a smaller value is raised to 300, as in client-go, so that watches are
   * not restarted more often than the API server is built for (tests lower the floor with
   * `setMinWatchTimeoutFloorSeconds` from `@kubets/cache/testing`).
   */
  minWatchTimeoutSeconds?: number | undefined;
  /**
   * For how long, in milliseconds, a watch ending with an InternalError (HTTP 500, e.g.
   * `etcdserver: no leader`) is answered by watching again at once from the last
   * resourceVersion rather than by a relist (client-go `MaxInternalErrorRetryDuration`).
   * The time counts from the first of a run of such errors; a run ends after a minute
   * without one. Default `0`: every such watch error leads to a relist after a backoff.
   */
  maxInternalErrorRetryDurationMs?: number | undefined;
  /**
   * How long, in seconds, a watch may run past the `timeoutSeconds` it asked the server for
   * before the reflector gives up on it. Default: the larger of 5 s and 10% of that watch's
   * timeout (e.g. 45 s for a 450 s watch).
   *
   * The server ends every watch at its `timeoutSeconds`; one still open well after that is
   * presumed dead: a stalled API server, or a connection silently dropped on the way (a NAT
   * or load balancer forgetting it, a network partition) that neither side notices. At the
   * deadline the reflector aborts the watch request (closing its connection), logs a
   * warning, reports it to the watch error handler and watches again at once from the last
   * resourceVersion it saw. The deadline also covers a watch request still waiting for its
   * response headers.
   *
   * client-go detects such dead connections with HTTP/2 PING frames, and so does
   * `@kubets/rest` by default (within a minute); over HTTP/1.1 (a server that does not offer
   * HTTP/2, an `http:` server, `Config.http2: false`) this deadline is the only check. It is measured with real timers
   * (`setTimeout`), not {@link ReflectorOptions.clock}. `Infinity` turns it off.
   */
  watchDeadlineGraceSeconds?: number | undefined;
  /**
   * How long, in seconds, each list request may take before the reflector gives up on it.
   * Default 60; `0` (or `Infinity`) turns the deadline off.
   *
   * Every request of a list gets its own deadline: each page of a paged list, the full
   * list after an expired `continue` token, the relist at the latest resourceVersion. A
   * list that never answers, a connection silently dropped, a body that stops half-way or
   * trickles in byte by byte would otherwise leave the informer unsynced forever, with no
   * error and nothing logged. At the deadline the request is aborted (closing its
   * connection) and fails with an error named `ListDeadlineExceededError` (its
   * message names the listed type and the deadline), which is logged as a
   * warning (`List/watch failed`), passed to the watch error handler and retried after
   * the usual backoff, like any failed list.
   *
   * The default is kube-apiserver's own limit for requests that are not long-running
   * (`--request-timeout`, 60 s): the server cuts a list that takes longer anyway, so a list
   * still unanswered then is not coming. Raise it only together with that flag. A streaming
   * list (`useStreamingList`) is a watch and has the watch's deadline instead (see
   * {@link ReflectorOptions.watchDeadlineGraceSeconds}). The deadline is measured with
   * real timers (`setTimeout`), not {@link ReflectorOptions.clock}. It is independent of
   * the REST client's `Config.timeoutMs`; whichever is shorter ends the request.
   */
  listTimeoutSeconds?: number | undefined;
  /** Retry delays; default the reflector's 800 ms doubling, jittered, 30 s cap, reset after 2 min. */
  backoff?: BackoffManager | undefined;
  /** Time source and sleep; a `FakeClock` from `@kubets/apimachinery/testing` in tests. */
  clock?: Clock | undefined;
  /** Random source for watch timeouts and backoff jitter. Default `Math.random`. */
  random?: RandomSource | undefined;
  /** Where progress and failures are reported. Default silent. */
  logger?: Logger | undefined;
  /** Called for every failed list or watch before retrying. */
  watchErrorHandler?: WatchErrorHandler | undefined;
  /** Keys objects of a streaming list. Default {@link deletionHandlingMetaNamespaceKeyFunc}. */
  keyFunc?: KeyFunc | undefined;
  /**
   * Where the reflector's metrics go (`reflector_lists_total`, `reflector_watches_total`,
   * …). Default: the provider set by `setReflectorMetricsProvider`, which is the no-op
   * one unless set: then the reflector keeps no metric state at all.
   */
  metricsProvider?: ReflectorMetricsProvider | undefined;
}

/**
 * client-go's `WatchListClient` feature gate as its environment variable
 * `KUBE_FEATURE_WatchListClient` sets it: on unless the variable says false (Go's
 * `strconv.ParseBool` spellings); a value that is not a boolean is ignored, as in client-go.
 */
export function watchListClientEnabled(): boolean {
  const value = typeof process === 'undefined' ? undefined : process.env[watchListClientEnv];
  if (value === undefined) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  return true;
}

/** The environment variable of client-go's `WatchListClient` feature gate. */
const watchListClientEnv = 'KUBE_FEATURE_WatchListClient';
