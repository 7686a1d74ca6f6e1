/**
 * Test doubles for `@kubets/apimachinery`, as Go's `k8s.io/utils/clock/testing`. Import them
 * from `@kubets/apimachinery/testing` so production bundles never carry them.
 *
 * @packageDocumentation
 */
import type { Clock, ClockTimer } from './clock.js';

interface Waiter {
  readonly due: number;
  readonly seq: number;
  readonly fire: () => void;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * A {@link Clock} that only moves when a test tells it to, as Go's `testing.FakeClock`.
 *
 * Sleeps and timers are both "waiters" with a due time. Moving time fires every waiter that
 * becomes due, in order of due time (ties in the order they were created), each seeing
 * `now()` equal to its due time:
 *
 * - {@link FakeClock.step} moves time synchronously. Timer callbacks run inside `step`;
 *   code awaiting a `sleep` resumes only after `step` returns (promise callbacks always
 *   do), so await a turn before checking its effects.
 * - {@link FakeClock.advance} is the same, but yields to the event loop before each waiter
 *   fires and once at the end, so async code woken by one waiter (a worker awaiting
 *   `queue.get()`, a retry loop after its sleep) runs before time moves on.
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
  readonly #waiters = new Set<Waiter>();

  /**
   * The durations passed to {@link FakeClock.sleep} so far, in call order (to assert a
   * retry waited); a sleep whose signal had already aborted is not recorded.
   */
  readonly requestedSleeps: number[] = [];

  /**
   * @param start - the initial value of `now()` (default 0); pass an epoch value such as
   *   `Date.parse('2024-01-01T00:00:00Z')` for components that need wall-clock time.
   */
  constructor(start = 0) {
    this.#now = start;
  }

  /** The current fake time in milliseconds. */
  now(): number {
    return this.#now;
  }

  /**
   * Resolves once time has been moved `ms` milliseconds past now; rejects with
   * `signal.reason` (and stops waiting) when `signal` aborts first.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    this.requestedSleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters.delete(waiter);
        reject(abortReason(signal as AbortSignal));
      };
      const waiter: Waiter = {
        due: this.#dueIn(ms),
        seq: this.#seq++,
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /**
   * Runs `callback` when time has been moved `delayMs` milliseconds past now. A delay of
   * `Infinity` never fires and is not counted as pending.
   */
  setTimeout(callback: () => void, delayMs: number): ClockTimer {
    const waiter: Waiter = { due: this.#dueIn(delayMs), seq: this.#seq++, fire: callback };
    if (waiter.due !== Number.POSITIVE_INFINITY) this.#waiters.add(waiter);
    return { cancel: () => this.#waiters.delete(waiter) };
  }

  /** How many sleeps and timers are waiting for time to move. */
  get pending(): number {
    return this.#waiters.size;
  }

  /** The due time of the earliest pending sleep or timer, or `undefined` when none is pending. */
  nextDue(): number | undefined {
    return this.#earliest()?.due;
  }

  /**
   * Moves time forward by `ms` (which must be `>= 0`), firing every sleep and timer that
   * becomes due, including timers set by callbacks during the step, in due-time order.
   * Timer callbacks run before `step` returns; code awaiting a sleep runs after it.
   */
  step(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.step: ms must be >= 0, got ${ms}`);
    const target = this.#now + ms;
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.due > target) break;
      this.#fire(next);
    }
    this.#now = target;
  }

  /** Moves time to the earliest pending sleep or timer (if any) and fires every waiter due then. */
  stepToNext(): void {
    const due = this.nextDue();
    if (due !== undefined) this.step(Math.max(0, due - this.#now));
  }

  /**
   * Like {@link FakeClock.step}, but yields to the event loop (a macrotask turn) before each
   * waiter fires and at the end, so async code woken by one runs before time moves on.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${ms}`);
    const target = this.#now + ms;
    for (;;) {
      await yieldToEventLoop();
      const next = this.#earliest();
      if (next === undefined || next.due > target) break;
      this.#fire(next);
    }
    this.#now = target;
    await yieldToEventLoop();
  }

  #dueIn(ms: number): number {
    return this.#now + Math.max(0, Number.isNaN(ms) ? 0 : ms);
  }

  #fire(waiter: Waiter): void {
    this.#waiters.delete(waiter);
    this.#now = Math.max(this.#now, waiter.due);
    waiter.fire();
  }

  #earliest(): Waiter | undefined {
    let best: Waiter | undefined;
    for (const w of this.#waiters) {
      if (best === undefined || w.due < best.due || (w.due === best.due && w.seq < best.seq)) {
        best = w;
      }
    }
    return best;
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
