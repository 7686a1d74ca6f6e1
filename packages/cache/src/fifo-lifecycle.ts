const closedBrand = Symbol.for('kubets.cache.FIFOClosedError');

/** Rejects a FIFO's `pop` once the FIFO is closed and empty (client-go `ErrFIFOClosed`). */
export class FIFOClosedError extends Error {
  /**
   * Brand that lets {@link isFIFOClosedError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [closedBrand] = true;

  constructor() {
    super('DeltaFIFO: manipulating with closed queue');
    this.name = 'FIFOClosedError';
  }
}

/** True for a {@link FIFOClosedError}, also one created by another copy of this package. */
export function isFIFOClosedError(err: unknown): err is FIFOClosedError {
  return typeof err === 'object' && err !== null && closedBrand in err;
}

const resolved = Promise.resolve();

interface Waiter {
  wake(): void;
  /** Called on abort: the waiter doubles as the signal's event listener. */
  handleEvent(): void;
}

/**
 * What every FIFO keeps besides its items: whether it is closed, the consumers waiting to
 * pop, and the countdown of the first list that decides `hasSynced`.
 */
export class FIFOLifecycle {
  #waiters = new Set<Waiter>();
  // Consumers that wait without a signal (the informer's process loop, once per event) share
  // one promise: no waiter object, closures or set entry per wait.
  #nextWake: Promise<void> | undefined;
  #wakeShared: (() => void) | undefined;
  #closed = false;
  #populated = false;
  #initialPopulationCount = 0;

  /** Something was queued: an add, update or delete before the first list counts as synced. */
  populated(): void {
    this.#populated = true;
  }

  /** The first list (and what came before it) queued `count` items; later lists are ignored. */
  firstList(count: number): void {
    if (this.#populated) return;
    this.#populated = true;
    this.#initialPopulationCount = count;
  }

  /** Items of the first list still to be processed (0 once synced). */
  get initialRemaining(): number {
    return this.#initialPopulationCount;
  }

  /** `count` items were popped and processed. */
  processed(count: number): void {
    if (this.#initialPopulationCount > 0) {
      this.#initialPopulationCount = Math.max(0, this.#initialPopulationCount - count);
    }
  }

  /** True once populated and every item of the first list has been processed. */
  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  /** Closes: waiting consumers wake up and, finding nothing, reject. */
  close(): void {
    this.#closed = true;
    this.wakeAll();
  }

  /** True after {@link close}. */
  isClosed(): boolean {
    return this.#closed;
  }

  /**
   * Waits until `isEmpty()` is false.
   *
   * @throws {FIFOClosedError} when closed while empty.
   * @throws the signal's `reason` if `signal` aborts first.
   */
  async waitForItems(isEmpty: () => boolean, signal: AbortSignal | undefined): Promise<void> {
    while (isEmpty()) {
      if (this.#closed) throw new FIFOClosedError();
      await (signal === undefined ? this.#sharedWake() : this.#wait(signal));
    }
  }

  /**
   * Resolves once `isEmpty()` may have turned false (something was queued, or the FIFO
   * closed): at once when it is false already. The caller looks again, so a wake that finds
   * the queue still empty is no error.
   *
   * @throws {FIFOClosedError} (rejects) when closed while empty.
   */
  whenItems(isEmpty: () => boolean): Promise<void> {
    if (!isEmpty()) return resolved;
    if (this.#closed) return Promise.reject(new FIFOClosedError());
    return this.#sharedWake();
  }

  #sharedWake(): Promise<void> {
    this.#nextWake ??= new Promise<void>((resolve) => {
      this.#wakeShared = resolve;
    });
    return this.#nextWake;
  }

  /** Wakes every waiting consumer (they look at the queue again). Cheap when none waits. */
  wakeAll(): void {
    const wakeShared = this.#wakeShared;
    if (wakeShared !== undefined) {
      this.#nextWake = undefined;
      this.#wakeShared = undefined;
      wakeShared();
    }
    if (this.#waiters.size === 0) return;
    const waiters = this.#waiters;
    this.#waiters = new Set();
    for (const waiter of waiters) waiter.wake();
  }

  #wait(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      // One object is both the waiter and the abort listener (`handleEvent`).
      const waiter: Waiter = {
        wake: () => {
          signal?.removeEventListener('abort', waiter);
          resolve();
        },
        handleEvent: () => {
          this.#waiters.delete(waiter);
          reject(signal?.reason);
        },
      };
      this.#waiters.add(waiter);
      signal?.addEventListener('abort', waiter, { once: true });
    });
  }
}
