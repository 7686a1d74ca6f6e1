import { sleep } from './clock.js';

/** A source of uniformly distributed numbers in [0, 1), like `Math.random`. */
export type RandomSource = () => number;

/**
 * A random duration in `[durationMs, durationMs * (1 + maxFactor))`, as client-go's
 * `wait.Jitter`. Spreading retries keeps many clients from hitting the server in lockstep.
 * A `maxFactor` of zero or less means `1.0`.
 */
export function jitter(
  durationMs: number,
  maxFactor: number,
  random: RandomSource = Math.random,
): number {
  const factor = maxFactor <= 0 ? 1.0 : maxFactor;
  return durationMs + random() * factor * durationMs;
}

/** Settings of a {@link Backoff}, as the fields of client-go's `wait.Backoff`. */
export interface BackoffOptions {
  /** The first delay, in milliseconds. */
  duration: number;
  /** Each step multiplies the delay by this; `0` or `1` keeps it constant. Default 1. */
  factor?: number;
  /** Adds up to `jitter × delay` at random to each step; `0` for none. Default 0. */
  jitter?: number;
  /**
   * How many steps still grow the delay; afterwards every step returns the last delay
   * (jittered). Default 1: only the first step, then constant.
   */
  steps?: number;
  /** Upper bound for the un-jittered delay, in milliseconds; reaching it ends growth. `0` for none. */
  cap?: number;
  /** Random source for jitter (tests pass a fixed one). Default `Math.random`. */
  random?: RandomSource;
}

/**
 * An exponential backoff sequence with client-go's `wait.Backoff.Step` semantics: each
 * {@link step} returns the current delay (jittered) and multiplies it by `factor` for
 * next time, until `steps` run out or the delay reaches `cap`, after which the delay stays
 * put. Note that jitter is applied after capping, so a step may exceed `cap`.
 */
export class Backoff {
  /** The next un-jittered delay, in milliseconds. */
  duration: number;
  /** Growth steps left. */
  steps: number;
  /** Multiplier applied to the delay after each step (from {@link BackoffOptions.factor}). */
  readonly factor: number;
  /** Fraction of the delay added at random to each step; `0` for none. */
  readonly jitter: number;
  /** Upper bound of the un-jittered delay, in milliseconds; `0` for none. */
  readonly cap: number;
  readonly #random: RandomSource;

  constructor(options: BackoffOptions) {
    if (!(options.duration >= 0)) {
      throw new RangeError(
        `backoff duration must be a non-negative number, got ${options.duration}`,
      );
    }
    this.duration = options.duration;
    this.factor = options.factor ?? 1;
    this.jitter = options.jitter ?? 0;
    this.steps = options.steps ?? 1;
    this.cap = options.cap ?? 0;
    this.#random = options.random ?? Math.random;
  }

  /** The delay to wait now, in milliseconds; advances the sequence. */
  step(): number {
    if (this.steps < 1) {
      return this.jitter > 0 ? jitter(this.duration, this.jitter, this.#random) : this.duration;
    }
    this.steps--;
    const current = this.duration;
    if (this.factor !== 0) {
      this.duration = current * this.factor;
      if (this.cap > 0 && this.duration > this.cap) {
        this.duration = this.cap;
        this.steps = 0;
      }
    }
    return this.jitter > 0 ? jitter(current, this.jitter, this.#random) : current;
  }
}

/** Settings of an {@link ExponentialBackoffManager}; the defaults are the reflector's. */
export interface ExponentialBackoffManagerOptions {
  /** First delay after a healthy period, in milliseconds. Default 800. */
  initialMs?: number;
  /** Upper bound for the un-jittered delay, in milliseconds. Default 30 000. */
  maxMs?: number;
  /** Multiplier per consecutive failure. Default 2. */
  factor?: number;
  /** Jitter factor (see {@link jitter}). Default 1.0. */
  jitter?: number;
  /**
   * After this long without asking for a delay, the next one starts from `initialMs`
   * again, in milliseconds. Default 120 000 (2 minutes).
   */
  resetAfterMs?: number;
  /** Clock in milliseconds. Default `performance.now`, which does not jump with wall-clock changes. */
  now?: () => number;
  /** Random source for jitter. Default `Math.random`. */
  random?: RandomSource;
}

/**
 * Backoff between retries of a long-running loop, as client-go's
 * `wait.NewExponentialBackoffManager` used by the reflector: 800 ms doubling with
 * jitter 1.0, capped at 30 s, starting over once 2 minutes pass without a failure.
 */
export class ExponentialBackoffManager {
  readonly #initialMs: number;
  readonly #resetAfterMs: number;
  readonly #now: () => number;
  readonly #newBackoff: () => Backoff;
  #backoff: Backoff;
  #lastBackoffAt: number;

  constructor(options: ExponentialBackoffManagerOptions = {}) {
    this.#initialMs = options.initialMs ?? 800;
    this.#resetAfterMs = options.resetAfterMs ?? 120_000;
    this.#now = options.now ?? (() => performance.now());
    const { maxMs = 30_000, factor = 2, jitter: jitterFactor = 1.0, random } = options;
    this.#newBackoff = () =>
      new Backoff({
        duration: this.#initialMs,
        factor,
        jitter: jitterFactor,
        cap: maxMs,
        // Growth is bounded by the cap, not by a step count.
        steps: Number.MAX_SAFE_INTEGER,
        ...(random ? { random } : {}),
      });
    this.#backoff = this.#newBackoff();
    this.#lastBackoffAt = this.#now();
  }

  /** The delay before the next retry, in milliseconds; call once per failure. */
  next(): number {
    const now = this.#now();
    if (now - this.#lastBackoffAt > this.#resetAfterMs) this.#backoff = this.#newBackoff();
    this.#lastBackoffAt = now;
    return this.#backoff.step();
  }

  /** Starts over from the initial delay, e.g. after a success the caller trusts. */
  reset(): void {
    this.#backoff = this.#newBackoff();
    this.#lastBackoffAt = this.#now();
  }

  /**
   * Waits {@link next} milliseconds.
   *
   * @throws the signal's `reason` if `signal` aborts first.
   */
  wait(signal?: AbortSignal): Promise<void> {
    return sleep(this.next(), signal);
  }
}
