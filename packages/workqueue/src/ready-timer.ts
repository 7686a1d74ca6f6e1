import type { Clock, ClockTimer } from '@kubets/apimachinery';

/**
 * The one timer of a queue whose items wait for a ready time, pointed at the earliest of
 * them and moved when that changes: a queue holds one timer however many items wait.
 * @internal
 */
export class ReadyTimer {
  readonly #clock: Clock;
  readonly #fire: () => void;
  #timer: ClockTimer | undefined;
  #at = Number.POSITIVE_INFINITY;

  /** @param fire - what runs when the clock reaches the time last {@link set}. */
  constructor(clock: Clock, fire: () => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Points the timer at clock time `at` (`Infinity`: stops it). */
  set(at: number): void {
    if (this.#timer !== undefined && at === this.#at) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#at = at;
    if (at === Number.POSITIVE_INFINITY) return;
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#at = Number.POSITIVE_INFINITY;
        this.#fire();
      },
      Math.max(0, at - this.#clock.now()),
    );
  }

  /** Stops the timer. */
  cancel(): void {
    this.set(Number.POSITIVE_INFINITY);
  }
}
