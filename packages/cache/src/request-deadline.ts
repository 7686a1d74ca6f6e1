import { realClock } from '@kubets/apimachinery';

/** The smallest default grace of a watch deadline, in seconds. */
const minWatchDeadlineGraceSeconds = 5;

/** The default grace of a watch deadline, as a fraction of the watch's timeout. */
const watchDeadlineGraceFraction = 0.1;

/** Node timers cannot wait longer than this (ms); a deadline beyond it is not armed. */
const maxTimerMs = 2 ** 31 - 1;

/**
 * The reason a list request is aborted with when it outlives its deadline. Not exported,
 * like the watch's: handlers recognise it by its `name`.
 */
export class ListDeadlineExceededError extends Error {
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
export class WatchDeadlineExceededError extends Error {
  constructor(readonly deadlineSeconds: number) {
    super(
      `the watch did not end within ${deadlineSeconds} s (its timeoutSeconds plus grace): ` +
        'the connection is presumed dead',
    );
    this.name = 'WatchDeadlineExceededError';
  }
}

/** The client-side deadline of one list or watch request. */
export interface RequestDeadline {
  /** The request's signal: aborts when the reflector stops or the deadline passes. */
  readonly signal: AbortSignal;
  /** True once the deadline passed (rather than the reflector being stopped). */
  readonly expired: boolean;
  /** Disarms the deadline; call once the request is over. */
  cancel(): void;
}

/**
 * A signal that aborts when `signal` does (with its reason) or, `deadlineSeconds` from now,
 * with `reason()`; a deadline too far for a timer is not armed.
 */
export function armDeadline(
  deadlineSeconds: number,
  signal: AbortSignal,
  reason: () => Error,
): RequestDeadline {
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

/**
 * The client-side deadline of a watch asking for `timeoutSeconds`: its signal aborts with a
 * {@link WatchDeadlineExceededError} once the watch should long be over, `graceSeconds`
 * after its timeout (default: the larger of 5 s and 10% of the timeout).
 */
export function armWatchDeadline(
  timeoutSeconds: number,
  graceSeconds: number | undefined,
  signal: AbortSignal,
): RequestDeadline {
  const grace = Math.max(
    0,
    graceSeconds ??
      Math.max(minWatchDeadlineGraceSeconds, timeoutSeconds * watchDeadlineGraceFraction),
  );
  const deadlineSeconds = timeoutSeconds + grace;
  return armDeadline(
    deadlineSeconds,
    signal,
    () => new WatchDeadlineExceededError(deadlineSeconds),
  );
}

/**
 * Runs one list request under its own deadline: the request's signal aborts after
 * `deadlineSeconds`, and the returned promise rejects with `reason()` then, even when `list`
 * ignores its signal.
 */
export async function withListDeadline<R>(
  deadlineSeconds: number,
  signal: AbortSignal,
  reason: () => Error,
  list: (signal: AbortSignal) => Promise<R>,
): Promise<R> {
  const deadline = armDeadline(deadlineSeconds, signal, reason);
  const listing = list(deadline.signal);
  // What that list does after the deadline no longer matters.
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
