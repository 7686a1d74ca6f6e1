interface Waiter<R> {
  resolve: (result: R) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  prev: Waiter<R> | undefined;
  next: Waiter<R> | undefined;
}

/**
 * The `get` calls waiting for an item, oldest first. A linked list, so that a get whose
 * signal aborts leaves it in O(1) however many workers wait.
 * @internal
 */
export class WaitingGets<R> {
  #head: Waiter<R> | undefined;
  #tail: Waiter<R> | undefined;

  /** Whether no get is waiting. */
  get empty(): boolean {
    return this.#head === undefined;
  }

  /**
   * Waits until {@link resolveNext} or {@link resolveAll} resolves this get; rejects with
   * `signal.reason` (and stops waiting) when `signal` aborts first.
   */
  wait(signal: AbortSignal | undefined): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiter: Waiter<R> = {
        resolve,
        reject,
        signal,
        onAbort: undefined,
        prev: this.#tail,
        next: undefined,
      };
      if (this.#tail) this.#tail.next = waiter;
      else this.#head = waiter;
      this.#tail = waiter;
      if (signal !== undefined) {
        waiter.onAbort = () => {
          this.#unlink(waiter);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
    });
  }

  /**
   * Resolves the oldest waiting get with `result`. Call it only when a get waits (not
   * {@link empty}): the caller takes the item (moving it to processing) just for that get.
   */
  resolveNext(result: R): void {
    const waiter = this.#head as Waiter<R>;
    this.#unlink(waiter);
    this.#detachSignal(waiter);
    waiter.resolve(result);
  }

  /** Resolves every waiting get with `result`. */
  resolveAll(result: R): void {
    for (let w = this.#head; w !== undefined; w = w.next) {
      this.#detachSignal(w);
      w.resolve(result);
    }
    this.#head = undefined;
    this.#tail = undefined;
  }

  #unlink(waiter: Waiter<R>): void {
    if (waiter.prev) waiter.prev.next = waiter.next;
    else if (this.#head === waiter) this.#head = waiter.next;
    if (waiter.next) waiter.next.prev = waiter.prev;
    else if (this.#tail === waiter) this.#tail = waiter.prev;
    waiter.prev = undefined;
    waiter.next = undefined;
  }

  #detachSignal(waiter: Waiter<R>): void {
    if (waiter.signal !== undefined && waiter.onAbort !== undefined) {
      waiter.signal.removeEventListener('abort', waiter.onAbort);
    }
  }
}

/**
 * How many items are handed out by `get` and not yet `done` (processing), and the
 * `shutDownWithDrain` calls waiting for there to be none. The queues know which items those
 * are; this only counts them.
 * @internal
 */
export class InFlight {
  #count = 0;
  #drains: (() => void)[] = [];

  /** How many items are processing. */
  get size(): number {
    return this.#count;
  }

  /** One more item was handed out. */
  started(): void {
    this.#count++;
  }

  /** One item is done; the last one done releases the drains. */
  finished(): void {
    if (--this.#count === 0 && this.#drains.length > 0) this.release();
  }

  /**
   * Resolves once no item is processing (or at {@link release}); rejects with
   * `signal.reason` if `signal` aborts first.
   */
  drained(signal: AbortSignal | undefined): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.#drains.indexOf(release);
        if (i >= 0) this.#drains.splice(i, 1);
        reject(signal?.reason);
      };
      const release = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#drains.push(release);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Resolves every waiting drain, items processing or not (a plain `shutDown`). */
  release(): void {
    const drains = this.#drains;
    this.#drains = [];
    for (const release of drains) release();
  }
}
