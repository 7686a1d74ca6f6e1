// Waiting in tests: on conditions, never on a fixed sleep. A timeout only decides how long a
// failing test takes to say so, so the defaults are generous: CI shares two cores with other
// work, and a condition that holds will be seen long before them.

/** What {@link eventually} waits for and how. */
export interface EventuallyOptions {
  /** Real time after which the wait fails (default 30 s). */
  readonly timeoutMs?: number;
  /** Named in the failure message. */
  readonly what?: string;
  /** Real time between checks (default 0: each check waits one event-loop turn). */
  readonly intervalMs?: number;
}

/**
 * Checks `condition` until it holds: returns (or resolves to) anything but `false` without
 * throwing, so an assertion holds once it stops throwing. Each failed check waits one
 * event-loop turn (or `intervalMs`), so the code under test runs in between. Fails after
 * `timeoutMs` with `what` and the last assertion's error as the cause.
 */
export async function eventually(
  condition: () => unknown,
  options: EventuallyOptions = {},
): Promise<void> {
  const { timeoutMs = 30_000, what = 'condition', intervalMs = 0 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let lastError: unknown;
    try {
      if ((await condition()) !== false) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      // The last check's failure is in the message too: test reports keep messages, not causes.
      const last = lastError instanceof Error ? `: ${lastError.message.split('\n')[0]}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`, {
        cause: lastError,
      });
    }
    await (intervalMs > 0 ? sleepReal(intervalMs) : nextTurn());
  }
}

/** One event-loop turn: pending promise callbacks, then I/O and immediates. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Lets pending promise callbacks and `turns` event-loop turns run. */
export async function flush(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await nextTurn();
}

function sleepReal(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with what `promise` rejected with, or `undefined` when it fulfilled. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

/** What `fn` throws, or `undefined` when it returns: {@link rejectionOf} for synchronous calls. */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

/** A promise with its settle functions exposed. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/** A promise the test resolves or rejects when it chooses. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
