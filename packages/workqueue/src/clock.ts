/** A scheduled callback returned by {@link Clock.setTimeout}. */
export interface ClockTimer {
  /** Stops the timer; the callback will not run. Calling it again, or after it fired, is harmless. */
  cancel(): void;
  /**
   * Lets the process exit while this timer is still pending (Node's `timer.unref()`).
   * Optional: clocks without a process to keep alive (such as {@link FakeClock}) leave it out.
   */
  unref?(): void;
}

/**
 * The time source and timer factory every queue and rate limiter uses. Inject a
 * {@link FakeClock} to make tests fast and exact.
 *
 * Times are milliseconds on a monotonic scale with an arbitrary origin: only differences
 * between two `now()` readings mean anything.
 */
export interface Clock {
  /** The current time in milliseconds (monotonic, arbitrary origin). */
  now(): number;
  /**
   * Runs `callback` once, `delayMs` milliseconds from now (`<= 0` means as soon as possible,
   * but never synchronously). A delay of `Infinity` never fires.
   */
  setTimeout(callback: () => void, delayMs: number): ClockTimer;
}

/** Node's `setTimeout` keeps at most this delay (2^31-1 ms, about 24.8 days). */
const MAX_NODE_DELAY_MS = 2 ** 31 - 1;

class RealTimer implements ClockTimer {
  #handle: NodeJS.Timeout | undefined;
  #unref = false;
  readonly #due: number;
  readonly #callback: () => void;

  constructor(callback: () => void, delayMs: number) {
    this.#callback = callback;
    this.#due = performance.now() + Math.max(0, delayMs);
    if (delayMs !== Number.POSITIVE_INFINITY) this.#arm(Math.max(0, delayMs));
  }

  #arm(delayMs: number): void {
    // Longer delays than Node accepts are reached in steps.
    const step = Math.min(delayMs, MAX_NODE_DELAY_MS);
    this.#handle = setTimeout(() => {
      const left = this.#due - performance.now();
      if (left > 1) {
        this.#arm(left);
        return;
      }
      this.#handle = undefined;
      this.#callback();
    }, step);
    if (this.#unref) this.#handle.unref();
  }

  cancel(): void {
    if (this.#handle !== undefined) clearTimeout(this.#handle);
    this.#handle = undefined;
  }

  unref(): void {
    this.#unref = true;
    this.#handle?.unref();
  }
}

/** The real clock: `performance.now()` and Node timers. */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, delayMs) => new RealTimer(callback, delayMs),
};

interface FakeTimer {
  readonly due: number;
  readonly seq: number;
  readonly callback: () => void;
}

/**
 * A manual clock for tests: time stands still until {@link FakeClock.step} (or
 * {@link FakeClock.advance}) moves it, and timers fire then, in order of their due time
 * (ties in the order they were set), each seeing `now()` equal to its due time.
 *
 * ```ts
 * const clock = new FakeClock();
 * const queue = newDelayingQueue<string>({ clock });
 * queue.addAfter('default/web', 100);
 * clock.step(100); // the item is in the queue now
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Set<FakeTimer>();

  /** @param startMs - the initial value of `now()` (default 0). */
  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): ClockTimer {
    const timer: FakeTimer = {
      due: this.#now + Math.max(0, Number.isNaN(delayMs) ? 0 : delayMs),
      seq: this.#seq++,
      callback,
    };
    if (timer.due !== Number.POSITIVE_INFINITY) this.#timers.add(timer);
    return { cancel: () => this.#timers.delete(timer) };
  }

  /** How many timers are set and have neither fired nor been cancelled. */
  pendingTimers(): number {
    return this.#timers.size;
  }

  /** The due time of the earliest pending timer, or `undefined` when none is pending. */
  nextTimerAt(): number | undefined {
    return this.#earliest()?.due;
  }

  /**
   * Moves time forward by `ms` (which must be `>= 0`), firing every timer that becomes due,
   * including timers set by callbacks during the step, in due-time order. Promise callbacks
   * queued by those timers run only after `step` returns; use {@link FakeClock.advance} to
   * let them run between timers.
   */
  step(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.step: ms must be >= 0, got ${ms}`);
    const target = this.#now + ms;
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.due > target) break;
      this.#timers.delete(next);
      this.#now = next.due;
      next.callback();
    }
    this.#now = target;
  }

  /**
   * Like {@link FakeClock.step}, but yields to the event loop (a macrotask turn) after each
   * fired timer and at the end, so async code woken by a timer (a worker awaiting
   * `queue.get()`) runs before time moves on.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${ms}`);
    const target = this.#now + ms;
    for (;;) {
      await yieldToEventLoop();
      const next = this.#earliest();
      if (next === undefined || next.due > target) break;
      this.#timers.delete(next);
      this.#now = next.due;
      next.callback();
    }
    this.#now = target;
    await yieldToEventLoop();
  }

  #earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.#timers) {
      if (best === undefined || t.due < best.due || (t.due === best.due && t.seq < best.seq)) {
        best = t;
      }
    }
    return best;
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
