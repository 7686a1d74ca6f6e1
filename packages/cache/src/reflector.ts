import type { ListQueryOptions, WatchQueryOptions } from '@kubets/apimachinery';
import {
  type Clock,
  ExponentialBackoffManager,
  getResourceVersion,
  isInitialEventsEndBookmark,
  isInternalError,
  type Logger,
  type ObjectList,
  type RandomSource,
  realClock,
  silentLogger,
  type WatchEvent,
  watchErrorToStatusError,
} from '@kubets/apimachinery';
import { isWatchStreamBroken } from '@kubets/rest';
import {
  checkDataConsistency,
  isDataConsistencyDetectionForWatchListEnabled,
} from './data-consistency-detector.js';
import { InitialEventsEndBookmarkTicker } from './initial-events-end-ticker.js';
import { deletionHandlingMetaNamespaceKeyFunc, type KeyFunc } from './keys.js';
import { doesClientNotSupportWatchListSemantics, type ListerWatcher } from './listwatch.js';
import { defaultPageSize, listAllPages } from './pager.js';
import { newReflectorMetrics, type ReflectorMetrics } from './reflector-metrics.js';
import {
  type BackoffManager,
  type ReflectorOptions,
  type ReflectorStore,
  type WatchErrorHandler,
  watchListClientEnabled,
} from './reflector-options.js';
import {
  IncompleteStreamingListError,
  nextReflectorAction,
  type ReflectorAction,
  type ReflectorOutcome,
  type ReflectorReport,
  VeryShortWatchError,
} from './reflector-policy.js';
import {
  armWatchDeadline,
  ListDeadlineExceededError,
  type RequestDeadline,
  withListDeadline,
} from './request-deadline.js';
import { RetryWithDeadline } from './retry-with-deadline.js';
import { handleWatchEvents, type WatchEventTarget, type WatchResult } from './watch-handler.js';
import { minWatchTimeoutFloorSeconds } from './watch-timeout-floor.js';

/** A clean end of a watch that lasted less than this, with no events, counts as a failure. */
const veryShortWatchMs = 1000;

/** A pause without InternalErrors this long starts a new run of retries, in milliseconds. */
const internalErrorRetryResetMs = 60_000;

/** The default of {@link ReflectorOptions.listTimeoutSeconds}: kube-apiserver's request timeout. */
const defaultListTimeoutSeconds = 60;

/** A watch already open (by a streaming list), with its deadline. */
interface OpenWatch<T> {
  readonly it: AsyncIterator<WatchEvent<T>>;
  readonly deadline: RequestDeadline;
}

/**
 * How a list or watch ended, for {@link nextReflectorAction}, and what to report: the
 * deadline's reason when it expired, else the error.
 */
interface Ended {
  readonly outcome: ReflectorOutcome;
  readonly reason: unknown;
}

function ended(outcome: ReflectorOutcome, deadline: RequestDeadline): Ended {
  return { outcome, reason: outcome.deadlineExpired ? deadline.signal.reason : outcome.error };
}

/**
 * Keeps a store in step with the server (client-go `cache.Reflector`): lists everything,
 * then watches for changes from the list's resourceVersion, and starts over when needed.
 *
 * - The first list asks for `resourceVersion=0` (served from the API server's cache) with
 *   `limit=500`, following `continue` tokens; an expired token is answered by one full list.
 * - Watches start at the last resourceVersion seen, with `allowWatchBookmarks=true` and a
 *   random `timeoutSeconds` in [300, 600); a BOOKMARK only advances the resourceVersion.
 * - Lists are streaming lists (see {@link ReflectorOptions.useStreamingList}): a watch with
 *   `sendInitialEvents=true`, ended by the bookmark annotated `k8s.io/initial-events-end`;
 *   when the server refuses, that list is a paged list instead.
 * - Each list request has a deadline ({@link ReflectorOptions.listTimeoutSeconds}), each
 *   watch one past its `timeoutSeconds` ({@link ReflectorOptions.watchDeadlineGraceSeconds}).
 * - What follows the end of each list or watch (watch again, at once or after a backoff,
 *   list again, fail) is decided by {@link nextReflectorAction}, which states the rules.
 * - Backoffs: 800 ms doubling with jitter, capped at 30 s, starting over after 2 minutes
 *   without failures.
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
  readonly #watchTarget: WatchEventTarget<T>;

  #lastSyncResourceVersion = '';
  #lastSyncResourceVersionUnavailable = false;
  #paginatedResult = false;
  /** Until when (clock time) lists are paged lists, the server having failed to finish streaming ones. */
  #streamingPausedUntil = Number.NEGATIVE_INFINITY;
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
    const floor = minWatchTimeoutFloorSeconds();
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
    this.#watchTarget = {
      store,
      logger: this.#logger,
      name: this.#name,
      typeDescription: this.#typeDescription,
      progressed: (rv) => {
        this.#watchProgressSinceList++;
        if (rv === '') return;
        this.#lastSyncResourceVersion = rv;
        this.#metrics?.resourceVersion(rv);
        store.updateResourceVersion?.(rv);
      },
    };
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
   * fails or the watch request fails in a way {@link nextReflectorAction} does not retry
   * here (a 410 included).
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    let stream: OpenWatch<T> | undefined;
    if (this.#useStreamingList && this.#clock.now() >= this.#streamingPausedUntil) {
      stream = await this.#watchList(signal);
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

  /**
   * Does what `action` says before the caller goes on: reports `reason`, marks the next
   * list as one at the latest resourceVersion, waits a backoff. Resolves false when the
   * reflector stopped (meanwhile); rejects with `reason` for `fail`.
   */
  async #follow(action: ReflectorAction, reason: unknown, signal: AbortSignal): Promise<boolean> {
    switch (action.kind) {
      case 'stop':
        return false;
      case 'fail':
        if (action.atLatest) this.#lastSyncResourceVersionUnavailable = true;
        throw reason;
      case 'list-at-latest':
        this.#lastSyncResourceVersionUnavailable = true;
        this.#logger.info('Relisting at the latest resourceVersion', {
          name: this.#name,
          error: String(reason),
        });
        return true;
      case 'paged-list':
        if (action.pauseStreamingMs !== undefined) {
          this.#streamingPausedUntil = this.#clock.now() + action.pauseStreamingMs;
          this.#report(action.report ?? 'none', reason);
          return !signal.aborted;
        }
        // Expected from servers without streaming lists (kube-apiserver 1.20 answers 422):
        // this list is a paged one; the next list tries streaming again, as client-go does.
        this.#logger.debug('The streaming list failed; falling back to a paged list', {
          name: this.#name,
          type: this.#typeDescription,
          error: String(reason),
        });
        return true;
      case 'relist':
        if (action.atLatest) this.#lastSyncResourceVersionUnavailable = true;
        this.#report(action.report ?? 'none', reason);
        return true;
      case 'streaming-list':
      case 'watch':
        if (action.atLatest) this.#lastSyncResourceVersionUnavailable = true;
        this.#report(action.report ?? 'none', reason);
        return action.after === 'backoff' ? this.#sleepBackoff(signal) : !signal.aborted;
    }
  }

  /** Logs and hands to the watch error handler what happened, as `report` says. */
  #report(report: ReflectorReport, reason: unknown): void {
    switch (report) {
      case 'none':
        return;
      case 'failure':
        this.#reportError(reason);
        return;
      case 'very-short-watch':
        this.#reportError(new VeryShortWatchError(this.#name));
        return;
      case 'deadline':
        // A dead connection, not an answer of the server.
        this.#logger.warn(
          'The watch outlived its deadline; aborted it, watching again from the last resourceVersion',
          { ...this.#fields(reason), resourceVersion: this.#lastSyncResourceVersion },
        );
        break;
      case 'expired':
        this.#logger.info('Watch closed with 410; relisting', this.#fields(reason));
        break;
      case 'internal-error':
        this.#logger.info('Retrying the watch after an internal error', this.#fields(reason));
        break;
      case 'watch-error':
        this.#logger.warn('The watch ended with an error; relisting', this.#fields(reason));
        break;
      case 'incomplete-stream':
        this.#logger.info(
          'The streaming list ended before its initial-events-end bookmark; asking again after a backoff',
          { name: this.#name, type: this.#typeDescription },
        );
        return;
      case 'missing-bookmark':
        this.#logger.warn(
          'The server does not finish streaming lists; falling back to paged lists',
          this.#fields(reason),
        );
        break;
    }
    this.#callWatchErrorHandler(reason);
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
    const pageFn = (options: ListQueryOptions, s: AbortSignal) => this.#listPage(options, s);
    let result: Awaited<ReturnType<typeof listAllPages<T>>>;
    try {
      result = await listAllPages(pageFn, { resourceVersion }, signal, { pageSize });
    } catch (err) {
      const stopped = signal.aborted;
      await this.#follow(nextReflectorAction({ step: 'list', error: err, stopped }), err, signal);
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
  #listPage(options: ListQueryOptions, signal: AbortSignal): Promise<ObjectList<T>> {
    const seconds = this.#listTimeoutSeconds;
    if (!(seconds > 0)) return this.#lw.list(options, signal);
    return withListDeadline(
      seconds,
      signal,
      () => new ListDeadlineExceededError(this.#typeDescription, this.#name, seconds),
      (deadlineSignal) => this.#lw.list(options, deadlineSignal),
    );
  }

  /**
   * A streaming list (client-go `watchList`), asked for again as {@link nextReflectorAction}
   * says: the watch, positioned after the initial events, for the watch phase to continue
   * with; `undefined` once `signal` aborts or when this list is to be a paged one.
   */
  async #watchList(signal: AbortSignal): Promise<OpenWatch<T> | undefined> {
    let incompleteStreams = 0;
    while (!signal.aborted) {
      const attempt = await this.#streamingList(signal, incompleteStreams);
      if (!('outcome' in attempt)) return attempt;
      const { outcome } = attempt;
      incompleteStreams = outcome.incompleteStreams ?? 0;
      const action = nextReflectorAction(outcome);
      const reason =
        action.report === 'missing-bookmark'
          ? new IncompleteStreamingListError(
              this.#name,
              this.#typeDescription,
              { heldPastTimeout: outcome.deadlineExpired === true, streams: incompleteStreams },
              action.pauseStreamingMs ?? 0,
            )
          : attempt.reason;
      if (!(await this.#follow(action, reason, signal))) return undefined;
      if (action.kind === 'paged-list') return undefined;
    }
    return undefined;
  }

  /**
   * One streaming list: the open watch once the initial events are in the store, or how it
   * ended; `incompleteStreams` streaming lists in a row ended before their bookmark.
   */
  async #streamingList(
    signal: AbortSignal,
    incompleteStreams: number,
  ): Promise<OpenWatch<T> | Ended> {
    const timeoutSeconds = this.#watchTimeoutSeconds();
    const options: WatchQueryOptions = {
      resourceVersion: this.#lastSyncResourceVersionUnavailable
        ? ''
        : this.#lastSyncResourceVersion,
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds,
    };
    const started = this.#clock.now();
    const deadline = armWatchDeadline(timeoutSeconds, this.#watchDeadlineGraceSeconds, signal);
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
        if (event.type === 'ERROR') {
          // A broken connection ends the stream, as in client-go's stream watcher; it is
          // no event, so a server that keeps dropping it is not asked again at once.
          if (!isWatchStreamBroken(event)) throw watchErrorToStatusError(event);
          events--;
          break;
        }
        if (event.type === 'ADDED' || event.type === 'MODIFIED') {
          initial.set(this.#keyFunc(event.object), event.object);
        } else if (event.type === 'DELETED') {
          initial.delete(this.#keyFunc(event.object));
        } else if (isInitialEventsEndBookmark(event)) {
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
      }
    } catch (err) {
      deadline.cancel();
      const outcome = {
        step: 'streaming-list',
        error: err,
        stopped: signal.aborted,
        deadlineExpired: deadline.expired,
      } as const;
      return ended(outcome, deadline);
    } finally {
      ticker?.stop();
      if (!handedOver) {
        deadline.cancel();
        await it?.return?.();
      }
    }
    // The stream ended before the initial events did.
    const veryShort = events === 0 && this.#clock.now() - started < veryShortWatchMs;
    const outcome = {
      step: 'streaming-list',
      stopped: signal.aborted,
      deadlineExpired: deadline.expired,
      veryShort,
      incompleteStreams: incompleteStreams + 1,
    } as const;
    return {
      outcome,
      reason:
        veryShort && !deadline.expired
          ? new VeryShortWatchError(this.#name)
          : ended(outcome, deadline).reason,
    };
  }

  /**
   * Watches from the last resourceVersion again and again (client-go `watch`), as
   * {@link nextReflectorAction} says, until `signal` aborts or a watch ends in a way that
   * calls for a new list (then it resolves), or the watch request fails with an error that
   * is not retried here (then it rejects).
   */
  async #watchLoop(signal: AbortSignal, first: OpenWatch<T> | undefined): Promise<void> {
    let stream = first;
    const internalErrors = new RetryWithDeadline({
      maxRetryDurationMs: this.#maxInternalErrorRetryDurationMs,
      minResetPeriodMs: internalErrorRetryResetMs,
      isRetryable: (err) => isInternalError(err) && !isWatchStreamBroken(err),
      clock: this.#clock,
    });
    while (!signal.aborted) {
      const attempt = await this.#watchOnce(signal, stream, internalErrors);
      stream = undefined;
      const action = nextReflectorAction(attempt.outcome);
      if (!(await this.#follow(action, attempt.reason, signal))) return;
      if (action.kind === 'relist') return;
    }
  }

  /**
   * One watch: opened from the last resourceVersion (unless `stream` is one open already),
   * its events applied to the store until it ends; returns how it ended.
   */
  async #watchOnce(
    signal: AbortSignal,
    stream: OpenWatch<T> | undefined,
    internalErrors: RetryWithDeadline,
  ): Promise<Ended> {
    const started = this.#clock.now();
    // A watch from "" or "0" starts with ADDED events in no resourceVersion order; one
    // continued from a streaming list is past them.
    const startRV = this.#lastSyncResourceVersion;
    const propagateRVFromStart = stream !== undefined || (startRV !== '' && startRV !== '0');
    let it = stream?.it;
    let deadline = stream?.deadline;
    if (it === undefined || deadline === undefined) {
      const timeoutSeconds = this.#watchTimeoutSeconds();
      const options: WatchQueryOptions = {
        resourceVersion: this.#lastSyncResourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
      };
      deadline = armWatchDeadline(timeoutSeconds, this.#watchDeadlineGraceSeconds, signal);
      try {
        this.#metrics?.watchStarted();
        it = (await this.#lw.watch(options, deadline.signal))[Symbol.asyncIterator]();
      } catch (err) {
        deadline.cancel();
        const outcome = {
          step: 'watch-request',
          error: err,
          stopped: signal.aborted,
          deadlineExpired: deadline.expired,
          watchedSinceList: this.#watchProgressSinceList > 0,
        } as const;
        return ended(outcome, deadline);
      }
    }
    const progress = { events: 0 };
    let result: WatchResult;
    try {
      result = await handleWatchEvents(
        it,
        signal,
        this.#watchTarget,
        progress,
        propagateRVFromStart,
      );
    } catch (err) {
      // The stream broke (a reset connection, an undecodable line).
      this.#metrics?.watchEnded(started, progress.events, false);
      deadline.cancel();
      const outcome = {
        step: 'watch-stream',
        error: err,
        stopped: signal.aborted,
        deadlineExpired: deadline.expired,
      } as const;
      return ended(outcome, deadline);
    }
    deadline.cancel();
    const veryShort = result.events === 0 && this.#clock.now() - started < veryShortWatchMs;
    this.#metrics?.watchEnded(started, result.events, result.error === undefined && veryShort);
    const stopped = signal.aborted;
    const outcome = {
      step: 'watch-end',
      error: result.error,
      stopped,
      deadlineExpired: deadline.expired,
      veryShort,
      watchedSinceList: this.#watchProgressSinceList > 0,
      retryInternalError: !stopped && !deadline.expired && internalErrors.retryNow(result.error),
    } as const;
    return ended(outcome, deadline);
  }

  #watchTimeoutSeconds(): number {
    return Math.floor(this.#minWatchTimeoutSeconds * (this.#random() + 1));
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
