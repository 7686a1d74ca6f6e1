import { isTransportError, type TransportError } from './errors.js';

// The stopwatch behind a request's timeout and its caller's abort signal.
export class Deadline {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort = (): void => {
    this.#controller.abort(this.#callerSignal?.reason);
  };

  constructor(
    callerSignal: AbortSignal | undefined,
    timeoutMs: number,
    describe: () => TransportError,
  ) {
    this.signal = this.#controller.signal;
    this.#callerSignal = callerSignal;
    if (callerSignal?.aborted) {
      this.#controller.abort(callerSignal.reason);
    } else {
      callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    }
    if (timeoutMs > 0 && !this.signal.aborted) {
      this.#timer = setTimeout(() => this.#controller.abort(describe()), timeoutMs);
    }
  }

  /** Stops the timeout (a watch or stream has started) but keeps the caller's signal. */
  stopTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  dispose(): void {
    this.stopTimer();
    this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }

  /**
   * What a failed request rejects with: once the deadline or the caller's signal fired,
   * its reason (a timeout's `TransportError`, or the caller's abort reason) rather than
   * the error the aborted socket happened to raise; a `TransportError` already says what
   * happened and stays as it is.
   */
  failure(err: unknown): unknown {
    return this.signal.aborted && !isTransportError(err) ? this.signal.reason : err;
  }
}
