import {
  isGone,
  isResourceExpired,
  isStatusError,
  isTimeout,
  isTooManyRequests,
} from '@kubets/apimachinery';
import { isConnectionRefused, isWatchStreamBroken } from '@kubets/rest';
import { DataInconsistencyError } from './data-consistency-detector.js';

/**
 * What a {@link Reflector} was doing when a list or watch ended:
 *
 * - `list`: a paged list (at a resourceVersion other than the latest) failed;
 * - `streaming-list`: a streaming list failed (its request, an ERROR event, reading its
 *   stream), or, with no `error`, ended before its initial-events-end bookmark;
 * - `watch-request`: asking for a watch failed;
 * - `watch-stream`: reading an open watch failed (the stream threw);
 * - `watch-end`: an open watch ended, cleanly or with an ERROR event.
 */
export type ReflectorStep =
  | 'list'
  | 'streaming-list'
  | 'watch-request'
  | 'watch-stream'
  | 'watch-end';

/** How a list or watch ended, with what the reflector knows about it: the input of {@link nextReflectorAction}. */
export interface ReflectorOutcome {
  /** What ended. */
  readonly step: ReflectorStep;
  /**
   * What failed: the error thrown, or for `watch-end` the `StatusError` of an ERROR event;
   * `undefined` for a clean end.
   */
  readonly error?: unknown;
  /** The reflector was stopped meanwhile. */
  readonly stopped?: boolean | undefined;
  /** The request was aborted at its client-side deadline. */
  readonly deadlineExpired?: boolean | undefined;
  /** The stream ended within a second with no events. */
  readonly veryShort?: boolean | undefined;
  /** A watch delivered an event or bookmark since the last list. */
  readonly watchedSinceList?: boolean | undefined;
  /**
   * An InternalError is within `maxInternalErrorRetryDurationMs` of the first of its run
   * (client-go `MaxInternalErrorRetryDuration`).
   */
  readonly retryInternalError?: boolean | undefined;
  /**
   * For a `streaming-list` that ended before its initial-events-end bookmark: how many
   * streaming lists in a row, this one included, did so.
   */
  readonly incompleteStreams?: number | undefined;
}

/**
 * How many streaming lists in a row may end before their initial-events-end bookmark
 * before the reflector stops asking for them for a while.
 */
export const maxIncompleteStreamingLists = 3;

/**
 * How long, in milliseconds, a reflector lists with paged lists after a server failed to
 * finish its streaming lists; the first relist after that tries streaming again.
 */
export const streamingListPauseMs = 10 * 60_000;

/**
 * How the reflector reports what happened before it acts:
 * - `none`: not at all (a clean end, or a retry that is no failure);
 * - `failure`: a `List/watch failed` warning and the watch error handler;
 * - `deadline`: a warning that the watch outlived its deadline, and the handler;
 * - `expired`: an info line that the watch closed with 410, and the handler;
 * - `internal-error`: an info line that the watch is retried after an InternalError, and the
 *   handler;
 * - `watch-error`: a warning that the watch ended with an error, and the handler;
 * - `very-short-watch`: as `failure`, with a `VeryShortWatchError`;
 * - `incomplete-stream`: an info line that the streaming list ended before its bookmark;
 * - `missing-bookmark`: one warning that the server does not finish streaming lists, naming
 *   what it did, and the handler with an `IncompleteStreamingListError`.
 */
export type ReflectorReport =
  | 'none'
  | 'failure'
  | 'deadline'
  | 'expired'
  | 'internal-error'
  | 'watch-error'
  | 'very-short-watch'
  | 'incomplete-stream'
  | 'missing-bookmark';

/**
 * What a {@link Reflector} does next (kube-rs's watcher step, client-go's `ListAndWatch`
 * and `watch` loops as one decision):
 *
 * - `stop`: the reflector was stopped; nothing more.
 * - `watch`: watch again from the last resourceVersion.
 * - `relist`: end this list-and-watch; `run` lists again after its backoff.
 * - `fail`: `listAndWatch` rejects with the error (`run` reports it and lists again after
 *   its backoff).
 * - `list-at-latest`: the resourceVersion listed at is gone: list the latest at once.
 * - `streaming-list`: ask for a streaming list again.
 * - `paged-list`: this list is a paged list instead of a streaming one (the next list tries
 *   streaming again, unless `pauseStreamingMs` says otherwise).
 */
export type ReflectorActionKind =
  | 'stop'
  | 'watch'
  | 'relist'
  | 'fail'
  | 'list-at-latest'
  | 'streaming-list'
  | 'paged-list';

/** What {@link nextReflectorAction} decides. */
export interface ReflectorAction {
  /** What to do. */
  readonly kind: ReflectorActionKind;
  /** For `watch` and `streaming-list`: at once, or after a backoff. */
  readonly after?: 'now' | 'backoff';
  /**
   * For `relist`, `fail` and `streaming-list`: the next list is at the latest
   * resourceVersion (`""`), the one listed at being older than what the server can serve.
   */
  readonly atLatest?: boolean;
  /** For `watch`, `relist`, `streaming-list` and `paged-list`: how to report what happened. */
  readonly report?: ReflectorReport;
  /**
   * For `paged-list`: lists are paged lists for this many milliseconds; the first list
   * after that tries streaming again.
   */
  readonly pauseStreamingMs?: number;
}

const stop: ReflectorAction = { kind: 'stop' };
const watchNow: ReflectorAction = { kind: 'watch', after: 'now', report: 'none' };
const watchAfterDeadline: ReflectorAction = { kind: 'watch', after: 'now', report: 'deadline' };
const watchAfterBackoff: ReflectorAction = { kind: 'watch', after: 'backoff', report: 'failure' };
const pauseStreaming: ReflectorAction = {
  kind: 'paged-list',
  report: 'missing-bookmark',
  pauseStreamingMs: streamingListPauseMs,
};

/**
 * The reflector's retry policy as one pure decision: what to do after `outcome`.
 *
 * - A paged list whose resourceVersion is gone (410 Gone / Expired, "too large resource
 *   version") is listed again at once at the latest resourceVersion; any other failed list
 *   fails the list-and-watch (retried by `run` after a backoff).
 * - A streaming list refused with "connection refused" or 429 is asked again after a
 *   backoff; one refused with 410 or "too large resource version" again at once from the
 *   latest state; one that ends before its initial events did, again after a backoff
 *   (unless it ended at once with no events: a paged list); after
 *   three (`maxIncompleteStreamingLists`) such ends in a row, or one held open past its
 *   deadline (its `timeoutSeconds` and a grace) without the bookmark, lists are paged lists for
 *   10 minutes, with one warning (client-go asks again at once, forever);
 *   any other failure makes that list a paged list, except what the data-consistency check
 *   found, which fails.
 * - A watch still open well after its `timeoutSeconds` (its deadline) is watched again at
 *   once from the last resourceVersion.
 * - A watch request refused with "connection refused" or 429, a stream that throws or
 *   breaks, and an ERROR event 429 are watched again from the last resourceVersion after a
 *   backoff; an InternalError within `maxInternalErrorRetryDurationMs`, at once.
 * - 410 Gone / Expired (an HTTP error or an ERROR event) leads to a new list, at the latest
 *   resourceVersion when no watch event arrived since the last list (that list was older
 *   than what the server can watch from).
 * - Any other ERROR event leads to a new list; any other failure of the watch request fails
 *   the list-and-watch.
 * - A watch ended cleanly by the server is watched again at once; one that ended at once
 *   with no events leads to a new list after a backoff.
 */
export function nextReflectorAction(outcome: ReflectorOutcome): ReflectorAction {
  const err = outcome.error;
  switch (outcome.step) {
    case 'list':
      if (outcome.stopped || !isResourceVersionUnavailable(err))
        return { kind: 'fail', atLatest: false };
      return { kind: 'list-at-latest' };
    case 'streaming-list':
      if (outcome.stopped) return stop;
      // Still open past its timeoutSeconds without the bookmark (the server ends a watch at
      // its timeout): a server that never finishes the initial events, or a stalled
      // connection; waiting again would leave the informer unsynced as long.
      if (outcome.deadlineExpired) return pauseStreaming;
      // What the consistency check found is the failure it exists to show.
      if (err instanceof DataInconsistencyError) return { kind: 'fail', atLatest: false };
      if (err === undefined) {
        if (outcome.veryShort) return { kind: 'paged-list' };
        // Asking again at once would be a busy loop against a server that always ends the
        // stream early; asking forever would never sync.
        if ((outcome.incompleteStreams ?? 1) >= maxIncompleteStreamingLists) {
          return pauseStreaming;
        }
        return {
          kind: 'streaming-list',
          after: 'backoff',
          atLatest: false,
          report: 'incomplete-stream',
        };
      }
      if (isConnectionRefused(err) || isTooManyRequests(err)) {
        return { kind: 'streaming-list', after: 'backoff', atLatest: false, report: 'failure' };
      }
      if (isResourceVersionUnavailable(err)) {
        return { kind: 'streaming-list', after: 'now', atLatest: true, report: 'none' };
      }
      return { kind: 'paged-list' };
    case 'watch-request':
      if (outcome.stopped) return stop;
      if (outcome.deadlineExpired) return watchAfterDeadline;
      if (isResourceExpired(err) || isGone(err)) {
        return { kind: 'fail', atLatest: !outcome.watchedSinceList };
      }
      // The server is down or throttling: relisting would only add load, and the watch
      // can resume where it was once the server is back.
      if (isConnectionRefused(err) || isTooManyRequests(err)) return watchAfterBackoff;
      return { kind: 'fail', atLatest: false };
    case 'watch-stream':
      if (outcome.stopped) return stop;
      if (outcome.deadlineExpired) return watchAfterDeadline;
      return watchAfterBackoff;
    case 'watch-end':
      if (outcome.stopped) return stop;
      // Aborted at its deadline (a watch stream may end quietly when aborted).
      if (outcome.deadlineExpired) return watchAfterDeadline;
      if (err === undefined) {
        if (outcome.veryShort) {
          return { kind: 'relist', atLatest: false, report: 'very-short-watch' };
        }
        return watchNow;
      }
      // A dropped connection, not a server's verdict.
      if (isWatchStreamBroken(err)) return watchAfterBackoff;
      if (isResourceExpired(err) || isGone(err)) {
        return { kind: 'relist', atLatest: !outcome.watchedSinceList, report: 'expired' };
      }
      if (isTooManyRequests(err)) return watchAfterBackoff;
      if (outcome.retryInternalError) {
        return { kind: 'watch', after: 'now', report: 'internal-error' };
      }
      // Whatever the server reports, the cache may have missed changes (e.g. an object
      // deleted unsafely, answered by a 500 StorageReadError): only a list can tell.
      return { kind: 'relist', atLatest: false, report: 'watch-error' };
  }
}

/** 410 Gone / Expired, or "too large resource version": list at the latest state. */
function isResourceVersionUnavailable(err: unknown): boolean {
  return isResourceExpired(err) || isGone(err) || isTooLargeRV(err);
}

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

/** A watch that the server closed at once, with no events (client-go `VeryShortWatchError`). */
export class VeryShortWatchError extends Error {
  constructor(reflectorName: string) {
    super(
      `very short watch: reflector "${reflectorName}": unexpected watch close: ` +
        'the watch lasted less than a second and no items were received',
    );
    this.name = 'VeryShortWatchError';
  }
}

/**
 * The server does not finish streaming lists: it ended them (or held them open past their
 * timeout) without the `k8s.io/initial-events-end` bookmark, so the reflector lists with
 * paged lists for a while.
 */
export class IncompleteStreamingListError extends Error {
  constructor(
    reflectorName: string,
    typeDescription: string,
    what: { readonly heldPastTimeout: boolean; readonly streams: number },
    pauseMs: number,
  ) {
    const behaviour = what.heldPastTimeout
      ? `held a streaming list open past its timeoutSeconds`
      : `ended ${what.streams} streaming lists in a row`;
    super(
      `reflector "${reflectorName}" (${typeDescription}): the server ${behaviour} ` +
        'without the bookmark annotated "k8s.io/initial-events-end" that ends the initial ' +
        `events (sendInitialEvents=true); listing with paged lists for ${pauseMs / 60_000} minutes`,
    );
    this.name = 'IncompleteStreamingListError';
  }
}
