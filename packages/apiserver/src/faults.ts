/** What a fault rule sees of a request. */
export interface FaultRequest {
  /** The HTTP method, e.g. `GET`. */
  readonly method: string;
  /** The URL path, without the query. */
  readonly path: string;
  /** The query parameters. */
  readonly query: URLSearchParams;
  /** True for watch requests (`?watch=true` or a `/watch/` path). */
  readonly watch: boolean;
}

/** Which requests a fault applies to: a path substring, a RegExp on the path, or a predicate. */
export type FaultMatcher = string | RegExp | ((request: FaultRequest) => boolean);

/** Options of {@link ApiServerFaults.respondWith}. */
export interface RespondWithOptions {
  /** Sent as `Retry-After` and in the Status's `details.retryAfterSeconds`. */
  retryAfterSeconds?: number;
  /** How many matching requests get this answer; default 1, `Infinity` until `reset()`. */
  times?: number;
  /** Which requests; default every request to the API (not `/version`, `/healthz` and the like). */
  match?: FaultMatcher;
  /** The Status message; default a message like the real server's for the code. */
  message?: string;
}

/** How the next watch line goes wrong: not JSON, or cut off mid-line and the stream closed. */
export type WatchLineFault = 'malformed' | 'truncated';

/**
 * Fault injection for tests, on `server.faults`. Every fault applies to requests arriving (or
 * watch lines written) after the call.
 */
export interface ApiServerFaults {
  /** Ends every open watch stream cleanly (as when the server's watch timeout fires). */
  closeWatches(): void;
  /**
   * Drops the event history and moves the compaction point past the current resourceVersion:
   * the next watch from an earlier resourceVersion gets a 410 `Expired` ERROR event, and the
   * next continue token or exact list at one gets HTTP 410 `Expired`.
   */
  compact(): void;
  /** The next `count` (default 1) watch lines, on any stream, are malformed or truncated. */
  nextWatchLine(kind: WatchLineFault, count?: number): void;
  /**
   * The next matching requests are answered with a Status of this code (429 →
   * `TooManyRequests`, 500 → `InternalError`, 503 → `ServiceUnavailable`, ...).
   */
  respondWith(status: number, options?: RespondWithOptions): void;
  /** Delays every request by `ms` before it is handled (0 turns it off). */
  latency(ms: number): void;
  /** Holds new requests and every watch stream's events until {@link ApiServerFaults.resume}. */
  stallConnections(): void;
  /** Releases what {@link ApiServerFaults.stallConnections} held. */
  resume(): void;
  /** Removes every fault (and resumes stalled connections). */
  reset(): void;
}

interface Rule {
  status: number;
  retryAfterSeconds: number | undefined;
  remaining: number;
  match: FaultMatcher | undefined;
  message: string | undefined;
}

/** The server side of the faults: state the request handler and watch streams consult. */
export class FaultState implements ApiServerFaults {
  latencyMs = 0;
  stalled = false;
  readonly #rules: Rule[] = [];
  readonly #lineFaults: WatchLineFault[] = [];
  readonly #waiting: (() => void)[] = [];
  readonly #onCloseWatches: () => void;
  readonly #onCompact: () => void;
  readonly #onResume: () => void;

  constructor(hooks: { closeWatches: () => void; compact: () => void; resume: () => void }) {
    this.#onCloseWatches = hooks.closeWatches;
    this.#onCompact = hooks.compact;
    this.#onResume = hooks.resume;
  }

  closeWatches(): void {
    this.#onCloseWatches();
  }

  compact(): void {
    this.#onCompact();
  }

  nextWatchLine(kind: WatchLineFault, count = 1): void {
    for (let i = 0; i < count; i++) this.#lineFaults.push(kind);
  }

  respondWith(status: number, options: RespondWithOptions = {}): void {
    this.#rules.push({
      status,
      retryAfterSeconds: options.retryAfterSeconds,
      remaining: options.times ?? 1,
      match: options.match,
      message: options.message,
    });
  }

  latency(ms: number): void {
    this.latencyMs = Math.max(0, ms);
  }

  stallConnections(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const release of this.#waiting.splice(0)) release();
    this.#onResume();
  }

  reset(): void {
    this.#rules.length = 0;
    this.#lineFaults.length = 0;
    this.latencyMs = 0;
    this.resume();
  }

  /** Resolves when requests may proceed (immediately unless stalled). */
  waitUntilResumed(): Promise<void> {
    if (!this.stalled) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** The rule that answers this request, consuming one of its `times`. */
  takeRule(request: FaultRequest): Omit<Rule, 'remaining' | 'match'> | undefined {
    for (let i = 0; i < this.#rules.length; i++) {
      const rule = this.#rules[i] as Rule;
      if (!ruleMatches(rule.match, request)) continue;
      rule.remaining--;
      if (rule.remaining <= 0) this.#rules.splice(i, 1);
      return rule;
    }
    return undefined;
  }

  /** The fault for the next watch line, if one is queued. */
  takeLineFault(): WatchLineFault | undefined {
    return this.#lineFaults.shift();
  }
}

function ruleMatches(match: FaultMatcher | undefined, request: FaultRequest): boolean {
  if (match === undefined) return true;
  if (typeof match === 'string') return request.path.includes(match);
  if (match instanceof RegExp) return match.test(request.path);
  return match(request);
}

/** The reason and message the real server sends with each fault code. */
const FAULT_MESSAGES: Readonly<Record<number, { reason: string; message: string }>> = {
  429: { reason: 'TooManyRequests', message: 'Too many requests, please try again later.' },
  500: { reason: 'InternalError', message: 'Internal error occurred: injected fault' },
  503: {
    reason: 'ServiceUnavailable',
    message: 'The server is currently unable to handle the request',
  },
  504: { reason: 'Timeout', message: 'The request timed out' },
  410: { reason: 'Gone', message: 'The resource is gone' },
  409: { reason: 'Conflict', message: 'Operation cannot be fulfilled: injected conflict' },
  404: { reason: 'NotFound', message: 'the server could not find the requested resource' },
  403: { reason: 'Forbidden', message: 'forbidden: injected fault' },
  401: { reason: 'Unauthorized', message: 'Unauthorized' },
};

/** The message the real server sends with each fault code. */
export function defaultFaultMessage(status: number): { reason: string; message: string } {
  const known = FAULT_MESSAGES[status];
  if (known) return { ...known };
  return {
    reason: status >= 500 ? 'InternalError' : 'BadRequest',
    message: `injected HTTP ${status}`,
  };
}
