import {
  type Clock,
  ExponentialBackoffManager,
  getResourceVersion,
  type HasObjectMeta,
  isGone,
  isInitialEventsEndBookmark,
  isInternalError,
  isResourceExpired,
  isStatusError,
  isTimeout,
  isTooManyRequests,
  type Logger,
  type ObjectList,
  type RandomSource,
  realClock,
  silentLogger,
  type WatchEvent,
  watchErrorToStatusError,
} from '@kubets/apimachinery';
import { isConnectionRefused, isWatchStreamBroken } from '@kubets/rest';
import {
  checkDataConsistency,
  DataInconsistencyError,
  isDataConsistencyDetectionForWatchListEnabled,
} from './data-consistency-detector.js';
import { InitialEventsEndBookmarkTicker } from './initial-events-end-ticker.js';
import { deletionHandlingMetaNamespaceKeyFunc, type KeyFunc } from './keys.js';
import {
  doesClientNotSupportWatchListSemantics,
  type ListerWatcher,
  type ListOptions,
  type WatchOptions,
} from './listwatch.js';
import { defaultPageSize, listAllPages } from './pager.js';
import {
  newReflectorMetrics,
  type ReflectorMetrics,
  type ReflectorMetricsProvider,
} from './reflector-metrics.js';
import { RetryWithDeadline } from './retry-with-deadline.js';

/**
 * What a {@link Reflector} writes into: usually a {@link DeltaFIFO}, or any {@link Store}.
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
   * the next list tries streaming again, as in client-go.
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
   * not restarted more often than the API server is built for.
   */
  minWatchTimeoutSeconds?: number | undefined;
  /**
   * The smallest {@link ReflectorOptions.minWatchTimeoutSeconds} honoured (300). Tests that
   * need a watch deadline within seconds (chaos tests against a real API server) lower it.
   * @internal
   */
  minWatchTimeoutFloorSeconds?: number | undefined;
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
   * client-go detects such dead connections with HTTP/2 PING frames; kubets talks
   * HTTP/1.1, so this deadline is its equivalent. It is measured with real timers
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

/** A clean end of a watch that lasted less than this, with no events, counts as a failure. */
const veryShortWatchMs = 1000;

/** The default and smallest watch timeout, in seconds (client-go `defaultMinWatchTimeout`). */
const defaultMinWatchTimeoutSeconds = 300;

/** A pause without InternalErrors this long starts a new run of retries, in milliseconds. */
const internalErrorRetryResetMs = 60_000;

/** The smallest default grace of a watch deadline, in seconds. */
const minWatchDeadlineGraceSeconds = 5;

/** The default grace of a watch deadline, as a fraction of the watch's timeout. */
const watchDeadlineGraceFraction = 0.1;

/** Node timers cannot wait longer than this (ms); a deadline beyond it is not armed. */
const maxTimerMs = 2 ** 31 - 1;

/** The default of {@link ReflectorOptions.listTimeoutSeconds}: kube-apiserver's request timeout. */
const defaultListTimeoutSeconds = 60;

/**
 * The reason a list request is aborted with when it outlives its deadline. Not exported,
 * like the watch's: handlers recognise it by its `name`.
 */
class ListDeadlineExceededError extends Error {
  /** The deadline that passed, in seconds. */
  readonly deadlineSeconds: number;
  /** What the reflector lists, e.g. `"*v1.Pod"`. */
  readonly typeDescription: string;

  constructor(typeDescription: string, reflectorName: string, deadlineSeconds: number) {
    super(
      `the list of ${typeDescription} (reflector "${reflectorName}") did not finish within ` +
        `its ${deadlineSeconds} s deadline (listTimeoutSeconds): the request was aborted`,
    );
    this.name = 'ListDeadlineExceededError';
    this.deadlineSeconds = deadlineSeconds;
    this.typeDescription = typeDescription;
  }
}

/** The reason a watch request is aborted with when it outlives its deadline. */
class WatchDeadlineExceededError extends Error {
  constructor(readonly deadlineSeconds: number) {
    super(
      `the watch did not end within ${deadlineSeconds} s (its timeoutSeconds plus grace): ` +
        'the connection is presumed dead',
    );
    this.name = 'WatchDeadlineExceededError';
  }
}

/** The client-side deadline of one list or watch request. */
interface RequestDeadline {
  /** The request's signal: aborts when the reflector stops or the deadline passes. */
  readonly signal: AbortSignal;
  /** True once the deadline passed (rather than the reflector being stopped). */
  readonly expired: boolean;
  /** Disarms the deadline; call once the request is over. */
  cancel(): void;
}

/** A watch that the server closed at once, with no events (client-go `VeryShortWatchError`). */
class VeryShortWatchError extends Error {
  constructor(reflectorName: string) {
    super(
      `very short watch: reflector "${reflectorName}": unexpected watch close: ` +
        'the watch lasted less than a second and no items were received',
    );
    this.name = 'VeryShortWatchError';
  }
}

/** A watch already open (by a streaming list), with its deadline. */
interface OpenWatch<T> {
  readonly it: AsyncIterator<WatchEvent<T>>;
  readonly deadline: RequestDeadline;
}

/** How one watch ended without throwing: its event count, and the Status of an ERROR event. */
interface WatchResult {
  readonly events: number;
  readonly error: unknown;
}

/** An iterator that can hand over events it holds already (`WatchStream.tryNext`). */
interface BufferedEvents<T> {
  tryNext(): WatchEvent<T> | undefined;
}

function hasBufferedEvents<T>(
  it: AsyncIterator<WatchEvent<T>>,
): it is AsyncIterator<WatchEvent<T>> & BufferedEvents<T> {
  return typeof (it as Partial<BufferedEvents<T>>).tryNext === 'function';
}

/**
 * Keeps a store in step with the server (client-go `cache.Reflector`): lists everything,
 * then watches for changes from the list's resourceVersion, and starts over when needed.
 *
 * - The first list asks for `resourceVersion=0` (served from the API server's cache) with
 *   `limit=500`, following `continue` tokens; an expired token is answered by one full list.
 * - Watches start at the last resourceVersion seen, with `allowWatchBookmarks=true` and a
 *   random `timeoutSeconds` in [300, 600); a BOOKMARK only advances the resourceVersion.
 * - A watch still open well after its `timeoutSeconds` (see
 *   {@link ReflectorOptions.watchDeadlineGraceSeconds}) is aborted as dead and started again
 *   from the last resourceVersion.
 * - Each list request that takes longer than {@link ReflectorOptions.listTimeoutSeconds}
 *   (default 60 s) is aborted, reported and retried with backoff.
 * - A watch ended cleanly by the server is restarted at once, without a list; one that
 *   ends at once with no events leads to a new list after a backoff.
 * - 410 Gone / Expired (as an HTTP error or an ERROR event) leads to a new list.
 * - A watch request refused with "connection refused" or 429, or a watch stream that
 *   breaks, is retried from the last resourceVersion after a backoff; so is an ERROR event
 *   429 (and an InternalError within `maxInternalErrorRetryDurationMs`, at once).
 * - Any other ERROR event ends the watch and leads to a new list after a backoff; any other
 *   failure of the watch request ends {@link Reflector.listAndWatch} with that error.
 * - Backoffs: 800 ms doubling with jitter, capped at 30 s, starting over after 2 minutes
 *   without failures.
 * - Lists are streaming lists (see {@link ReflectorOptions.useStreamingList}): a watch with
 *   `sendInitialEvents=true`, ended by the bookmark annotated `k8s.io/initial-events-end`;
 *   when the server refuses, that list is a paged list instead.
 * - Every `resyncPeriodMs`, `store.resync()` is called (when `shouldResync` allows); if it
 *   throws, the watch ends and a new list follows after a backoff.
 */
export class Reflector<T> {
  readonly #lw: ListerWatcher<T>;
  readonly #store: ReflectorStore<T>;
  readonly #name: string;
  readonly #typeDescription: string;
  readonly #resyncPeriodMs: number;
  readonly #shouldResync: (() => boolean) | undefined;
  readonly #pageSize: number | undefined;
  readonly #useStreamingList: boolean;
  readonly #minWatchTimeoutSeconds: number;
  readonly #maxInternalErrorRetryDurationMs: number;
  readonly #watchDeadlineGraceSeconds: number | undefined;
  readonly #listTimeoutSeconds: number;
  readonly #backoff: BackoffManager;
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #logger: Logger;
  #watchErrorHandler: WatchErrorHandler | undefined;
  readonly #keyFunc: KeyFunc;
  readonly #metrics: ReflectorMetrics | undefined;

  #lastSyncResourceVersion = '';
  #lastSyncResourceVersionUnavailable = false;
  #paginatedResult = false;
  /** Objects and bookmarks received by watches since the last list (no ERRORs). */
  #watchProgressSinceList = 0;

  constructor(lw: ListerWatcher<T>, store: ReflectorStore<T>, options: ReflectorOptions = {}) {
    this.#lw = lw;
    this.#store = store;
    this.#name = options.name ?? 'reflector';
    this.#typeDescription = options.typeDescription ?? 'object';
    this.#resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.#shouldResync = options.shouldResync;
    this.#pageSize = options.pageSize;
    this.#useStreamingList =
      (options.useStreamingList ?? watchListClientEnabled()) &&
      !doesClientNotSupportWatchListSemantics(lw);
    const floor = options.minWatchTimeoutFloorSeconds ?? defaultMinWatchTimeoutSeconds;
    this.#minWatchTimeoutSeconds = Math.max(floor, options.minWatchTimeoutSeconds ?? floor);
    this.#maxInternalErrorRetryDurationMs = options.maxInternalErrorRetryDurationMs ?? 0;
    this.#watchDeadlineGraceSeconds = options.watchDeadlineGraceSeconds;
    this.#listTimeoutSeconds = options.listTimeoutSeconds ?? defaultListTimeoutSeconds;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#backoff =
      options.backoff ??
      new ExponentialBackoffManager({ now: () => this.#clock.now(), random: this.#random });
    this.#logger = options.logger ?? silentLogger;
    this.#watchErrorHandler = options.watchErrorHandler;
    this.#keyFunc = options.keyFunc ?? deletionHandlingMetaNamespaceKeyFunc;
    this.#metrics = newReflectorMetrics(this.#name, options.metricsProvider, this.#clock);
  }

  /** The reflector's name. */
  get name(): string {
    return this.#name;
  }

  /** The resourceVersion of the last list, watch event or bookmark; `''` before the first list. */
  lastSyncResourceVersion(): string {
    return this.#lastSyncResourceVersion;
  }

  /** Replaces the watch error handler. */
  setWatchErrorHandler(handler: WatchErrorHandler | undefined): void {
    this.#watchErrorHandler = handler;
  }

  /**
   * Lists and watches until `signal` aborts, retrying failures with backoff. Resolves once
   * stopped, with no timers or requests left behind.
   */
  async run(signal: AbortSignal): Promise<void> {
    this.#logger.debug('Starting reflector', {
      name: this.#name,
      type: this.#typeDescription,
      resyncPeriodMs: this.#resyncPeriodMs,
    });
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.#reportError(err);
      }
      if (signal.aborted) break;
      // Every new list waits for the backoff (client-go's Run, `BackoffUntil`): after a long
      // healthy watch the backoff has reset to its first step.
      if (!(await this.#sleepBackoff(signal))) break;
    }
    this.#logger.debug('Stopping reflector', { name: this.#name, type: this.#typeDescription });
  }

  /**
   * One list followed by watches (client-go `ListAndWatch`). Resolves when `signal` aborts
   * or when the watch ended in a way that calls for a new list (a 410 Gone/Expired or other
   * ERROR event, a watch closed at once, a failed `store.resync()`); rejects when the list
   * fails or the watch request fails with anything but "connection refused" or 429 (a 410
   * included). Those two, and broken watch streams, are retried inside after a backoff.
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    let stream: OpenWatch<T> | undefined;
    if (this.#useStreamingList) {
      try {
        stream = await this.#watchList(signal);
      } catch (err) {
        if (signal.aborted) return;
        // What the consistency check found is the failure it exists to show.
        if (err instanceof DataInconsistencyError) throw err;
        // Expected from servers without streaming lists (kube-apiserver 1.20 answers 422):
        // this list is a paged one; the next list tries streaming again, as client-go does.
        this.#logger.debug('The streaming list failed; falling back to a paged list', {
          name: this.#name,
          type: this.#typeDescription,
          error: String(err),
        });
      }
      if (signal.aborted) return;
    }
    if (stream === undefined) {
      await this.#list(signal);
      if (signal.aborted) return;
    }
    this.#watchProgressSinceList = 0;

    // Ends the watch when the reflector stops or a resync fails.
    const watching = new AbortController();
    const stopWatching = (): void => watching.abort(signal.reason);
    signal.addEventListener('abort', stopWatching, { once: true });
    let resyncError: { error: unknown } | undefined;
    const resyncLoop = this.#startResync(watching.signal, (error) => {
      resyncError = { error };
      watching.abort(error);
    });
    try {
      await this.#watchLoop(watching.signal, stream);
    } finally {
      signal.removeEventListener('abort', stopWatching);
      watching.abort();
      await resyncLoop;
    }
    if (resyncError !== undefined && !signal.aborted) {
      this.#logger.warn('Resync failed; ending the watch', this.#fields(resyncError.error));
      this.#callWatchErrorHandler(resyncError.error);
    }
  }

  #relistResourceVersion(): string {
    if (this.#lastSyncResourceVersionUnavailable) return '';
    if (this.#lastSyncResourceVersion === '') return '0';
    return this.#lastSyncResourceVersion;
  }

  async #list(signal: AbortSignal): Promise<void> {
    const resourceVersion = this.#relistResourceVersion();
    const started = this.#metrics === undefined ? 0 : this.#clock.now();
    let pageSize = this.#pageSize ?? defaultPageSize;
    if (
      this.#pageSize === undefined &&
      !this.#paginatedResult &&
      resourceVersion !== '' &&
      resourceVersion !== '0'
    ) {
      // Relisting at a known resourceVersion: without a limit the API server answers from
      // its watch cache instead of paging through etcd.
      pageSize = 0;
    }
    const pageFn = (options: ListOptions, s: AbortSignal) => this.#listPage(options, s);
    let result: Awaited<ReturnType<typeof listAllPages<T>>>;
    try {
      result = await listAllPages(pageFn, { resourceVersion }, signal, { pageSize });
    } catch (err) {
      if (signal.aborted || !(isResourceExpired(err) || isGone(err) || isTooLargeRV(err))) {
        throw err;
      }
      // The resourceVersion we listed at is gone: list the latest state instead.
      this.#lastSyncResourceVersionUnavailable = true;
      this.#logger.info('Relisting at the latest resourceVersion', {
        name: this.#name,
        error: String(err),
      });
      result = await listAllPages(pageFn, { resourceVersion: '' }, signal, { pageSize });
    }
    if (signal.aborted) return;
    // Only the first list (at resourceVersion 0, which a watch cache answers unpaged) says
    // whether the server pages this resource; a quorum relist from etcd is paged anyway.
    if (resourceVersion === '0' && result.paginated) this.#paginatedResult = true;
    this.#lastSyncResourceVersionUnavailable = false;
    const rv = result.list.metadata?.resourceVersion ?? '';
    this.#store.replace(result.list.items, rv);
    this.#lastSyncResourceVersion = rv;
    this.#metrics?.listed(started, result.list.items.length);
    this.#metrics?.resourceVersion(rv);
    this.#logger.debug('Listed', {
      name: this.#name,
      type: this.#typeDescription,
      items: result.list.items.length,
      resourceVersion: rv,
    });
  }

  /** One list request, under its own deadline (see {@link ReflectorOptions.listTimeoutSeconds}). */
  async #listPage(options: ListOptions, signal: AbortSignal): Promise<ObjectList<T>> {
    const seconds = this.#listTimeoutSeconds;
    if (!(seconds > 0)) return this.#lw.list(options, signal);
    const deadline = this.#armDeadline(
      seconds,
      signal,
      () => new ListDeadlineExceededError(this.#typeDescription, this.#name, seconds),
    );
    const listing = this.#lw.list(options, deadline.signal);
    // The deadline wins even over a list-watch that ignores its signal; what that list
    // does later no longer matters.
    listing.catch(() => undefined);
    const expiry = new Promise<never>((_resolve, reject) => {
      deadline.signal.addEventListener(
        'abort',
        () => {
          if (deadline.expired) reject(deadline.signal.reason);
        },
        { once: true },
      );
    });
    try {
      return await Promise.race([listing, expiry]);
    } catch (err) {
      // The request may fail with its own abort error; name the deadline instead.
      throw deadline.expired ? deadline.signal.reason : err;
    } finally {
      deadline.cancel();
    }
  }

  /**
   * A streaming list (client-go `watchList`): returns the watch, positioned after the initial
   * events, for the watch phase to continue with; `undefined` once `signal` aborts. A watch
   * refused with "connection refused" or 429 is asked again after a backoff, one refused
   * with 410 or "too large resource version" again at once from the latest state, and one
   * that ends before the initial-events-end bookmark again at once (unless it ended at once
   * with no events, a {@link VeryShortWatchError}); any other failure rejects, and the
   * caller lists instead.
   */
  async #watchList(signal: AbortSignal): Promise<OpenWatch<T> | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      const timeoutSeconds = this.#watchTimeoutSeconds();
      const options: WatchOptions = {
        resourceVersion: this.#lastSyncResourceVersionUnavailable
          ? ''
          : this.#lastSyncResourceVersion,
        resourceVersionMatch: 'NotOlderThan',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds,
      };
      const started = this.#clock.now();
      const deadline = this.#armWatchDeadline(timeoutSeconds, signal);
      let it: AsyncIterator<WatchEvent<T>> | undefined;
      let handedOver = false;
      let events = 0;
      let ticker: InitialEventsEndBookmarkTicker | undefined;
      try {
        this.#metrics?.watchStarted();
        it = (await this.#lw.watch(options, deadline.signal))[Symbol.asyncIterator]();
        // Ticks from the open stream on, counting from the request (as client-go's).
        ticker = new InitialEventsEndBookmarkTicker({
          name: this.#name,
          clock: this.#clock,
          logger: this.#logger,
          watchStartMs: started,
          waitingForBookmark: true,
        });
        const initial = new Map<string, T>();
        for (;;) {
          const r = await it.next();
          if (r.done) break;
          const event = r.value;
          events++;
          ticker.observeLastEventTimestamp(this.#clock.now());
          switch (event.type) {
            case 'ADDED':
            case 'MODIFIED':
              initial.set(this.#keyFunc(event.object), event.object);
              break;
            case 'DELETED':
              initial.delete(this.#keyFunc(event.object));
              break;
            case 'ERROR': {
              const err = watchErrorToStatusError(event);
              if (isWatchStreamBroken(err)) {
                // A broken connection ends the stream, as in client-go's stream watcher; it is
                // no event, so a server that keeps dropping it is not asked again at once.
                events--;
                break;
              }
              throw err;
            }
            case 'BOOKMARK':
              if (isInitialEventsEndBookmark(event)) {
                const rv = getResourceVersion(event.object);
                if (isDataConsistencyDetectionForWatchListEnabled()) {
                  // CI only: the streamed state must equal an exact list from etcd. Empty list
                  // options: the list-watch may filter its lists itself.
                  await checkDataConsistency(
                    {
                      identity: this.#name,
                      lastSyncedResourceVersion: rv,
                      list: (options, listSignal) => this.#lw.list(options, listSignal),
                      retrievedItems: () => Array.from(initial.values()),
                      clock: this.#clock,
                      logger: this.#logger,
                    },
                    signal,
                  );
                }
                this.#store.replace(Array.from(initial.values()), rv);
                this.#lastSyncResourceVersion = rv;
                this.#lastSyncResourceVersionUnavailable = false;
                this.#metrics?.listed(started, initial.size);
                this.#metrics?.resourceVersion(rv);
                handedOver = true;
                return { it, deadline };
              }
              break;
          }
          if (event.type === 'ERROR') break;
        }
      } catch (err) {
        ticker?.stop();
        deadline.cancel();
        if (signal.aborted) return undefined;
        if (deadline.expired) throw deadline.signal.reason;
        if (await this.#retryWatchList(err, signal)) continue;
        throw err;
      } finally {
        ticker?.stop();
        if (!handedOver) {
          deadline.cancel();
          await it?.return?.();
        }
      }
      if (signal.aborted) return undefined;
      if (deadline.expired) throw deadline.signal.reason;
      if (events === 0 && this.#clock.now() - started < veryShortWatchMs) {
        throw new VeryShortWatchError(this.#name);
      }
      // The stream ended before the initial events did: ask for a new one at once.
    }
  }

  /**
   * Whether a failed streaming list is asked again (after a backoff when the server is down
   * or throttling; at once from the latest state when the resourceVersion is gone).
   */
  async #retryWatchList(err: unknown, signal: AbortSignal): Promise<boolean> {
    if (isConnectionRefused(err) || isTooManyRequests(err)) {
      this.#reportError(err);
      return this.#sleepBackoff(signal);
    }
    if (isResourceExpired(err) || isGone(err) || isTooLargeRV(err)) {
      this.#lastSyncResourceVersionUnavailable = true;
      return true;
    }
    return false;
  }

  /**
   * Watches from the last resourceVersion again and again (client-go `watch`), until
   * `signal` aborts or a watch ends in a way that calls for a new list (then it resolves),
   * or the watch request fails with an error that is not retried here (then it rejects).
   */
  async #watchLoop(signal: AbortSignal, first: OpenWatch<T> | undefined): Promise<void> {
    let stream = first;
    const internalErrors = new RetryWithDeadline({
      maxRetryDurationMs: this.#maxInternalErrorRetryDurationMs,
      minResetPeriodMs: internalErrorRetryResetMs,
      isRetryable: isInternalError,
      clock: this.#clock,
    });
    while (!signal.aborted) {
      const started = this.#clock.now();
      let deadline = stream?.deadline;
      let it = stream?.it;
      stream = undefined;
      // A watch from "" or "0" starts with ADDED events in no resourceVersion order; one
      // continued from a streaming list is past them.
      const startRV = this.#lastSyncResourceVersion;
      const propagateRVFromStart = it !== undefined || (startRV !== '' && startRV !== '0');
      if (it === undefined) {
        const timeoutSeconds = this.#watchTimeoutSeconds();
        const options: WatchOptions = {
          resourceVersion: this.#lastSyncResourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
        };
        deadline = this.#armWatchDeadline(timeoutSeconds, signal);
        try {
          this.#metrics?.watchStarted();
          it = (await this.#lw.watch(options, deadline.signal))[Symbol.asyncIterator]();
        } catch (err) {
          deadline.cancel();
          if (signal.aborted) return;
          if (deadline.expired) {
            this.#reportWatchDeadline(deadline);
            continue;
          }
          if (isResourceExpired(err) || isGone(err)) {
            // Returned, as client-go's ListAndWatch does; `run` reports it and lists again.
            this.#noteExpired();
            throw err;
          }
          if (isConnectionRefused(err) || isTooManyRequests(err)) {
            // The server is down or throttling: relisting would only add load, and the
            // watch can resume where it was once the server is back.
            this.#reportError(err);
            if (!(await this.#sleepBackoff(signal))) return;
            continue;
          }
          throw err;
        }
      }
      let result: WatchResult;
      const progress = { events: 0 };
      try {
        result = await this.#watchHandler(it, signal, progress, propagateRVFromStart);
      } catch (err) {
        this.#metrics?.watchEnded(started, progress.events, false);
        // The stream broke (a reset connection, an undecodable line): resume from the
        // last resourceVersion seen.
        deadline?.cancel();
        if (signal.aborted) return;
        if (deadline?.expired) {
          this.#reportWatchDeadline(deadline);
          continue;
        }
        this.#reportError(err);
        if (!(await this.#sleepBackoff(signal))) return;
        continue;
      }
      deadline?.cancel();
      this.#metrics?.watchEnded(
        started,
        result.events,
        result.error === undefined &&
          result.events === 0 &&
          this.#clock.now() - started < veryShortWatchMs,
      );
      if (signal.aborted) return;
      if (deadline?.expired) {
        // Aborted at its deadline (a watch stream may end quietly when aborted).
        this.#reportWatchDeadline(deadline);
        continue;
      }
      const err = result.error;
      if (isWatchStreamBroken(err)) {
        // A dropped connection, not a server's verdict: resume from the last resourceVersion.
        this.#reportError(err);
        if (!(await this.#sleepBackoff(signal))) return;
        continue;
      }
      internalErrors.after(err);
      if (err !== undefined) {
        if (isResourceExpired(err) || isGone(err)) {
          this.#relistAfterExpired(err);
          return;
        }
        if (isTooManyRequests(err)) {
          this.#reportError(err);
          if (!(await this.#sleepBackoff(signal))) return;
          continue;
        }
        if (isInternalError(err) && internalErrors.shouldRetry()) {
          this.#logger.info('Retrying the watch after an internal error', this.#fields(err));
          this.#callWatchErrorHandler(err);
          continue;
        }
        // Whatever the server reports, the cache may have missed changes (e.g. an object
        // deleted unsafely, answered by a 500 StorageReadError): only a list can tell.
        this.#logger.warn('The watch ended with an error; relisting', this.#fields(err));
        this.#callWatchErrorHandler(err);
        return;
      }
      if (result.events === 0 && this.#clock.now() - started < veryShortWatchMs) {
        // The server keeps closing watches at once: list again, after a backoff.
        this.#reportError(new VeryShortWatchError(this.#name));
        return;
      }
      // A clean end (the server's timeout): watch again at once from where we are.
    }
  }

  /** A 410 ended the watch (an ERROR event): the reflector lists again after its backoff. */
  #relistAfterExpired(err: unknown): void {
    this.#noteExpired();
    this.#logger.info('Watch closed with 410; relisting', this.#fields(err));
    this.#callWatchErrorHandler(err);
  }

  /** What the next list asks for after a 410 of the watch. */
  #noteExpired(): void {
    if (this.#watchProgressSinceList === 0) {
      // The list just made was older than what the server can watch from (an exact,
      // paged list from etcd behind a newer watch cache): listing at that
      // resourceVersion again would go round in circles, so list the latest.
      this.#lastSyncResourceVersionUnavailable = true;
    }
  }

  /**
   * Applies one watch's events to the store until the stream ends, an ERROR event arrives
   * (its Status is returned, the stream stopped) or `signal` aborts.
   */
  async #watchHandler(
    it: AsyncIterator<WatchEvent<T>>,
    signal: AbortSignal,
    progress: { events: number },
    propagateRVFromStart: boolean,
  ): Promise<WatchResult> {
    let events = 0;
    let done = false;
    let eventReceivedBesidesAdded = false;
    // A watch stream of @kubets/rest hands over the other events of the same read without a
    // promise each; any other iterator is read one `next()` at a time.
    const drain = hasBufferedEvents(it) ? it : undefined;
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) {
          done = true;
          return { events, error: undefined };
        }
        for (
          let event: WatchEvent<T> | undefined = r.value;
          event !== undefined;
          event = drain?.tryNext()
        ) {
          if (signal.aborted) return { events, error: undefined };
          events++;
          progress.events = events;
          switch (event.type) {
            case 'ADDED':
              this.#apply('add', event.object);
              break;
            case 'MODIFIED':
              eventReceivedBesidesAdded = true;
              this.#apply('update', event.object);
              break;
            case 'DELETED':
              eventReceivedBesidesAdded = true;
              this.#apply('delete', event.object);
              break;
            case 'BOOKMARK':
              eventReceivedBesidesAdded = true;
              if (this.#store.bookmark !== undefined) this.#bookmark(event.object);
              break;
            case 'ERROR':
              return { events, error: watchErrorToStatusError(event) };
          }
          this.#watchProgressSinceList++;
          const rv = getResourceVersion(event.object as HasObjectMeta);
          if (rv && (propagateRVFromStart || eventReceivedBesidesAdded)) {
            this.#lastSyncResourceVersion = rv;
            this.#metrics?.resourceVersion(rv);
            this.#store.updateResourceVersion?.(rv);
          }
        }
      }
    } finally {
      if (!done) await it.return?.();
    }
  }

  #bookmark(obj: HasObjectMeta): void {
    try {
      this.#store.bookmark?.(getResourceVersion(obj));
    } catch (err) {
      this.#logger.error('Unable to send bookmark event to the store', {
        name: this.#name,
        error: String(err),
      });
    }
  }

  #apply(op: 'add' | 'update' | 'delete', obj: T): void {
    try {
      this.#store[op](obj);
    } catch (err) {
      this.#logger.error(`Unable to ${op} watch event object to the store`, {
        name: this.#name,
        type: this.#typeDescription,
        error: String(err),
      });
    }
  }

  /**
   * A watch was aborted at its deadline: a dead connection, not an answer of the server, so
   * the caller watches again at once, without backoff.
   */
  #reportWatchDeadline(deadline: RequestDeadline): void {
    this.#logger.warn(
      'The watch outlived its deadline; aborted it, watching again from the last resourceVersion',
      {
        name: this.#name,
        type: this.#typeDescription,
        resourceVersion: this.#lastSyncResourceVersion,
        error: String(deadline.signal.reason),
      },
    );
    this.#callWatchErrorHandler(deadline.signal.reason);
  }

  #watchTimeoutSeconds(): number {
    return Math.floor(this.#minWatchTimeoutSeconds * (this.#random() + 1));
  }

  /**
   * Starts the client-side deadline of a watch asking for `timeoutSeconds`: its signal
   * aborts with a {@link WatchDeadlineExceededError} once the watch should long be over.
   */
  #armWatchDeadline(timeoutSeconds: number, signal: AbortSignal): RequestDeadline {
    const grace = Math.max(
      0,
      this.#watchDeadlineGraceSeconds ??
        Math.max(minWatchDeadlineGraceSeconds, timeoutSeconds * watchDeadlineGraceFraction),
    );
    const deadlineSeconds = timeoutSeconds + grace;
    return this.#armDeadline(
      deadlineSeconds,
      signal,
      () => new WatchDeadlineExceededError(deadlineSeconds),
    );
  }

  /**
   * A signal that aborts when `signal` does (with its reason) or, `deadlineSeconds` from now,
   * with `reason()`; a deadline too far for a timer is not armed.
   */
  #armDeadline(deadlineSeconds: number, signal: AbortSignal, reason: () => Error): RequestDeadline {
    const controller = new AbortController();
    const timer = new AbortController();
    let expired = false;
    const onStop = (): void => {
      timer.abort();
      controller.abort(signal.reason);
    };
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', onStop, { once: true });
    const ms = deadlineSeconds * 1000;
    if (Number.isFinite(ms) && ms <= maxTimerMs && !signal.aborted) {
      // Real time, not the injected clock: the deadline guards a real connection, and a
      // FakeClock driving backoff and resync in tests should not see its long sleep.
      realClock.sleep(ms, timer.signal).then(
        () => {
          if (controller.signal.aborted) return;
          expired = true;
          controller.abort(reason());
        },
        () => undefined, // cancelled
      );
    }
    return {
      signal: controller.signal,
      get expired() {
        return expired;
      },
      cancel: () => {
        timer.abort();
        signal.removeEventListener('abort', onStop);
      },
    };
  }

  async #startResync(signal: AbortSignal, onError: (err: unknown) => void): Promise<void> {
    const period = this.#resyncPeriodMs;
    if (!(period > 0)) return;
    for (;;) {
      try {
        await this.#clock.sleep(period, signal);
      } catch {
        return;
      }
      if (signal.aborted) return;
      if (this.#shouldResync === undefined || this.#shouldResync()) {
        this.#logger.debug('Forcing resync', { name: this.#name });
        try {
          this.#store.resync();
        } catch (err) {
          onError(err);
          return;
        }
      }
    }
  }

  /** Waits one backoff step; resolves false when aborted meanwhile. */
  async #sleepBackoff(signal: AbortSignal): Promise<boolean> {
    try {
      await this.#clock.sleep(this.#backoff.next(), signal);
      return !signal.aborted;
    } catch {
      return false;
    }
  }

  #reportError(err: unknown): void {
    this.#logger.warn('List/watch failed', this.#fields(err));
    this.#callWatchErrorHandler(err);
  }

  /** The log fields of a failure: which reflector, what it lists, the error. */
  #fields(err: unknown): { name: string; type: string; error: string } {
    return { name: this.#name, type: this.#typeDescription, error: String(err) };
  }

  #callWatchErrorHandler(err: unknown): void {
    const handler = this.#watchErrorHandler;
    if (handler === undefined) return;
    try {
      handler(err, { name: this.#name, typeDescription: this.#typeDescription });
    } catch (handlerErr) {
      this.#logger.error('Watch error handler threw', {
        name: this.#name,
        error: String(handlerErr),
      });
    }
  }
}

/**
 * client-go's `WatchListClient` feature gate as its environment variable
 * `KUBE_FEATURE_WatchListClient` sets it: on unless the variable says false (Go's
 * `strconv.ParseBool` spellings); a value that is not a boolean is ignored, as in client-go.
 */
function watchListClientEnabled(): boolean {
  const value = typeof process === 'undefined' ? undefined : process.env[watchListClientEnv];
  if (value === undefined) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  return true;
}

/** The environment variable of client-go's `WatchListClient` feature gate. */
const watchListClientEnv = 'KUBE_FEATURE_WatchListClient';

/**
 * The API server's "Too large resource version" error: a cause `ResourceVersionTooLarge`,
 * or, from servers older than 1.18.6 that set no such cause, a Timeout whose cause message
 * (1.17.0–1.18.5) or message (before 1.17) says so.
 */
function isTooLargeRV(err: unknown): boolean {
  if (!isStatusError(err)) return false;
  const causes = err.status.details?.causes ?? [];
  if (causes.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
  if (!isTimeout(err)) return false;
  if (causes.some((c) => c.message === tooLargeResourceVersionText)) return true;
  return (err.status.message ?? '').includes(tooLargeResourceVersionText);
}

/** The text by which servers older than 1.18.6 say that a resourceVersion is too large. */
const tooLargeResourceVersionText = 'Too large resource version';
