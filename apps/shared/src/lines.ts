/** A line pattern: a substring, or a regular expression tested against the whole line. */
export type LinePattern = string | RegExp;

/** Options of {@link LineLog.waitFor}. */
export interface WaitForOptions {
  /** Only lines from this index on count (a {@link LineLog.mark}); default 0. */
  since?: number;
  /** How long to wait before rejecting; default 30 s (generous: the machine may be busy). */
  timeoutMs?: number;
  /** Rejects early when aborted. */
  signal?: AbortSignal;
}

const matches = (pattern: LinePattern, line: string): boolean =>
  typeof pattern === 'string' ? line.includes(pattern) : pattern.test(line);

interface Waiter {
  pattern: LinePattern;
  since: number;
  resolve(line: string): void;
  reject(err: Error): void;
}

/**
 * The lines a program printed, in order, and a way to wait for one to appear. The demo
 * scenarios wait on the app's own output with it, and the tests on a child process's.
 */
export class LineLog {
  readonly #lines: string[] = [];
  readonly #partial = new Map<string, string>();
  readonly #waiters = new Set<Waiter>();
  #closed: Error | undefined;

  /** Every complete line so far. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** Appends one line and wakes the waiters it satisfies. */
  push(line: string): void {
    this.#lines.push(line);
    const index = this.#lines.length - 1;
    for (const waiter of this.#waiters) {
      if (index >= waiter.since && matches(waiter.pattern, line)) {
        this.#waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  }

  /** Appends text from `stream` (stdout, stderr, ...), keeping a partial last line per stream. */
  write(stream: string, text: string): void {
    const parts = ((this.#partial.get(stream) ?? '') + text).split('\n');
    this.#partial.set(stream, parts.pop() ?? '');
    for (const line of parts) this.push(line);
  }

  /** The index the next line will get: pass it as `since` to wait only for newer lines. */
  mark(): number {
    return this.#lines.length;
  }

  /** The lines from `since` on that match. */
  matching(pattern: LinePattern, since = 0): string[] {
    return this.#lines.slice(since).filter((line) => matches(pattern, line));
  }

  /** The index of the first line from `since` on that matches; -1 when there is none. */
  indexOf(pattern: LinePattern, since = 0): number {
    for (let i = since; i < this.#lines.length; i++) {
      if (matches(pattern, this.#lines[i] ?? '')) return i;
    }
    return -1;
  }

  /** How many lines from `since` on match. */
  count(pattern: LinePattern, since = 0): number {
    return this.matching(pattern, since).length;
  }

  /**
   * Resolves with the first line from `since` on that matches — at once when one already
   * has. Rejects after `timeoutMs` or once {@link close}d, with the last lines in the
   * message so a failure shows what was printed instead.
   */
  waitFor(pattern: LinePattern, options: WaitForOptions = {}): Promise<string> {
    const since = options.since ?? 0;
    const found = this.#lines.slice(since).find((line) => matches(pattern, line));
    if (found !== undefined) return Promise.resolve(found);
    if (this.#closed) return Promise.reject(this.#failure(pattern, this.#closed.message));
    const timeoutMs = options.timeoutMs ?? 30_000;
    return new Promise<string>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.#waiters.delete(waiter);
      };
      const waiter: Waiter = {
        pattern,
        since,
        resolve: (line) => {
          cleanup();
          resolve(line);
        },
        reject: (err) => {
          cleanup();
          reject(err);
        },
      };
      const timer = setTimeout(
        () => waiter.reject(this.#failure(pattern, `not printed within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = (): void => waiter.reject(this.#failure(pattern, 'aborted'));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Flushes partial lines and fails every current and later wait that is not yet satisfied. */
  close(reason: string): void {
    for (const [stream, rest] of this.#partial) {
      if (rest !== '') this.push(rest);
      this.#partial.delete(stream);
    }
    this.#closed = new Error(reason);
    for (const waiter of [...this.#waiters]) waiter.reject(this.#failure(waiter.pattern, reason));
  }

  #failure(pattern: LinePattern, why: string): Error {
    const tail = this.#lines.slice(-40).join('\n');
    return new Error(
      `waiting for a line matching ${String(pattern)}: ${why}; last lines:\n${tail}`,
    );
  }
}
