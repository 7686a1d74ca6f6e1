import {
  Backoff,
  type BackoffOptions,
  type Clock,
  isConflict,
  realClock,
} from '@kubets/apimachinery';

/**
 * client-go's `retry.DefaultRetry`: 5 attempts 10 ms apart (with 10 % jitter), for
 * conflicts between controllers writing the same object, which clear quickly.
 */
export const defaultRetry: Readonly<BackoffOptions> = Object.freeze({
  steps: 5,
  duration: 10,
  factor: 1.0,
  jitter: 0.1,
});

/**
 * client-go's `retry.DefaultBackoff`: 4 attempts, 10 ms growing 5× each time (10, 50,
 * 250 ms, with 10 % jitter), for errors that take longer to clear.
 */
export const defaultBackoff: Readonly<BackoffOptions> = Object.freeze({
  steps: 4,
  duration: 10,
  factor: 5.0,
  jitter: 0.1,
});

/** Options of {@link retryOnConflict} and {@link retryOnError}. */
export interface RetryOptions {
  /** Time source for the waits; a `FakeClock` from `@kubets/apimachinery/testing` in tests. */
  clock?: Clock;
  /** Stops waiting: the pending wait rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs `fn` until it succeeds, retrying while it throws an error for which `retriable` is
 * true, at most `backoff.steps` times in all, waiting the backoff between attempts
 * (client-go's `retry.OnError`). Resolves with `fn`'s result; rejects with the last error.
 */
export async function retryOnError<R>(
  backoff: BackoffOptions,
  retriable: (err: unknown) => boolean,
  fn: () => R | Promise<R>,
  options: RetryOptions = {},
): Promise<R> {
  const steps = backoff.steps ?? 1;
  if (!Number.isInteger(steps) || steps < 1) {
    throw new RangeError(`backoff steps must be a positive integer, got ${steps}`);
  }
  const sequence = new Backoff(backoff);
  const clock = options.clock ?? realClock;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      // The last attempt's error is the caller's, whatever it is.
      if (!retriable(err) || sequence.steps <= 1) throw err;
    }
    await clock.sleep(sequence.step(), options.signal);
  }
}

/**
 * Runs `fn` — typically get, change, update — again when it fails with a Conflict (409),
 * i.e. when someone else wrote the object between the read and the write (client-go's
 * `retry.RetryOnConflict`). Any other error is thrown at once. `fn` must read the object
 * again each time, or it will conflict forever.
 *
 * ```ts
 * await retryOnConflict(defaultRetry, async () => {
 *   const cm = await configMaps.get('settings');
 *   cm.data = { ...cm.data, mode: 'on' };
 *   await configMaps.update(cm);
 * });
 * ```
 */
export function retryOnConflict<R>(
  backoff: BackoffOptions,
  fn: () => R | Promise<R>,
  options: RetryOptions = {},
): Promise<R> {
  return retryOnError(backoff, isConflict, fn, options);
}
