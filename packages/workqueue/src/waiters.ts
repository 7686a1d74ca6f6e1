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
   * Resolves the oldest waiting get with what `take()` returns, calling `take` only when a
   * get is waiting (taking an item moves it to processing). Returns whether one was.
   */
  resolveNext(take: () => R): boolean {
    const waiter = this.#head;
    if (waiter === undefined) return false;
    this.#unlink(waiter);
    this.#detachSignal(waiter);
    waiter.resolve(take());
    return true;
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
 * The items handed out by `get` and not yet `done` (processing), and the
 * `shutDownWithDrain` calls waiting for there to be none.
 * @internal
 */
export class InFlight<T> {
  readonly #items = new Set<T>();
  #drains: (() => void)[] = [];

  /** How many items are processing. */
  get size(): number {
    return this.#items.size;
  }

  /** Whether `item` is processing. */
  has(item: T): boolean {
    return this.#items.has(item);
  }

  /** `item` was handed out. */
  add(item: T): void {
    this.#items.add(item);
  }

  /**
   * `item` is done: returns false when it was not processing. The last one done releases
   * the drains.
   */
  finish(item: T): boolean {
    if (!this.#items.delete(item)) return false;
    if (this.#items.size === 0) this.release();
    return true;
  }

  /**
   * Resolves once no item is processing (or at {@link release}); rejects with
   * `signal.reason` if `signal` aborts first.
   */
  drained(signal: AbortSignal | undefined): Promise<void> {
    if (this.#items.size === 0) return Promise.resolve();
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
