import { randomUUID } from 'node:crypto';
import { type Clock, type Logger, realClock, silentLogger } from '@kubets/apimachinery';
import type { GenericLister } from '@kubets/listers';
import type { EventRecorder } from '@kubets/record';
import {
  type MetricsProvider,
  PriorityQueue,
  type RateLimiter,
  RateLimitingQueue,
} from '@kubets/workqueue';
import {
  type CacheSyncSource,
  defaultCacheSyncTimeoutMs,
  formatDuration,
  waitForSourcesSynced,
} from './cache-sync.js';
import { cachedObject } from './cached.js';
import type { ControllerMetricsRecorder } from './controller-metrics.js';
import { findInErrorChain } from './error-chain.js';
import { discardingEventRecorder } from './event-recorder.js';
import { withFields } from './logger.js';
import {
  isTerminalError,
  type ReconcileContext,
  type Reconciler,
  type Result,
} from './reconciler.js';
import { type ReconcileRequest, requestFromKey, requestKey } from './request.js';

/** Settings of a {@link Controller}. */
export interface ControllerOptions<T> {
  /** The controller's name: in its logs, metrics and the work queue's name. */
  name: string;
  /** What each request is handed to. */
  reconciler: Reconciler<T>;
  /** How many requests are reconciled at once (different objects only). Default 1. */
  maxConcurrentReconciles?: number;
  /**
   * Paces retries after errors and `{ requeue: true }`. Default: 5 ms doubling to 1000 s per
   * object; with `usePriorityQueue: false`, the workqueue's `defaultControllerRateLimiter`
   * (that and 10 qps overall), as controller-runtime.
   */
  rateLimiter?: RateLimiter<string>;
  /**
   * Queue requests in a priority queue (default true, controller-runtime's default since
   * v0.23): requests from informers' initial lists and resyncs wait behind real changes.
   * `false`: the plain rate-limiting queue.
   */
  usePriorityQueue?: boolean;
  /** Where reconcile errors and lifecycle lines go. Default silent. */
  logger?: Logger;
  /** Time source of the work queue; a `FakeClock` in tests. */
  clock?: Clock;
  /** The lister handed to reconcilers as `ctx.lister`, over the primary resource's cache. */
  lister: GenericLister<T>;
  /**
   * Caches to wait for before the first reconcile: each watched resource's
   * {@link CacheSyncSource} (the builder passes them), or a bare `hasSynced` function.
   */
  cacheSyncs?: readonly (CacheSyncSource | (() => boolean))[];
  /**
   * How long `run` waits for the caches to sync before it fails with a
   * {@link CacheSyncTimeoutError} naming the resources not synced and their last list error
   * (controller-runtime's `CacheSyncTimeout`). Default 2 minutes.
   */
  cacheSyncTimeoutMs?: number;
  /**
   * Aborts each reconcile's `ctx.signal` this many milliseconds after it began
   * (controller-runtime's `ReconciliationTimeout`); a reconcile that then fails is retried
   * as any failed one. Default 0: no limit.
   */
  reconcileTimeoutMs?: number;
  /** Records controller-runtime's reconcile metrics; default none. */
  metrics?: ControllerMetricsRecorder;
  /** Records the work queue's metrics (client-go's `workqueue_*`); default the workqueue's global provider. */
  workqueueMetrics?: MetricsProvider;
  /** The reconcilers' `ctx.recorder`; default one that drops every event. */
  recorder?: EventRecorder | undefined;
}

/** How reconciles ended, by controller-runtime's `controller_runtime_reconcile_total` labels. */
export interface ReconcileCounts {
  /** Done: returned nothing. */
  success: number;
  /** Threw (terminal errors included). */
  error: number;
  /** Returned `{ requeue: true }`. */
  requeue: number;
  /** Returned `{ requeueAfterMs }`. */
  requeue_after: number;
}

/** A controller's counters, as controller-runtime exports them as metrics. */
export interface ControllerStats {
  /** Reconciles by result. */
  readonly reconcileTotal: Readonly<ReconcileCounts>;
  /** Reconciles that threw (`controller_runtime_reconcile_errors_total`). */
  readonly reconcileErrors: number;
  /** Reconciles that threw a `TerminalError` (`controller_runtime_terminal_reconcile_errors_total`). */
  readonly terminalReconcileErrors: number;
  /** Reconciles running now (`controller_runtime_active_workers`). */
  readonly activeWorkers: number;
  /** Reconciles whose `reconcileTimeoutMs` ran out (`controller_runtime_reconcile_timeouts_total`). */
  readonly reconcileTimeouts: number;
}

/** The reason a reconcile's `ctx.signal` aborts with when its `reconcileTimeoutMs` ran out. */
export class ReconcileTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

/**
 * The reconcile loop (controller-runtime's internal `Controller`): a rate-limited work
 * queue of request keys and `maxConcurrentReconciles` workers. The queue never hands one
 * key to two workers, so an object is reconciled by one worker at a time; events for it
 * during a reconcile queue exactly one more. Usually built with `controller(...)`.
 */
export class Controller<T> {
  /** The controller's name. */
  readonly name: string;
  /** The work queue of request keys (`namespace/name`). */
  readonly queue: PriorityQueue<string> | RateLimitingQueue<string>;
  readonly #reconcile: (request: ReconcileRequest, ctx: ReconcileContext<T>) => unknown;
  readonly #workers: number;
  readonly #logger: Logger;
  readonly #lister: GenericLister<T>;
  readonly #cacheSyncs: readonly (CacheSyncSource | (() => boolean))[];
  readonly #cacheSyncTimeoutMs: number;
  readonly #reconcileTimeoutMs: number;
  readonly #metrics: ControllerMetricsRecorder | undefined;
  readonly #clock: Clock;
  readonly #recorder: EventRecorder;
  readonly #counts: ReconcileCounts = { success: 0, error: 0, requeue: 0, requeue_after: 0 };
  #errors = 0;
  #terminal = 0;
  #active = 0;
  #timeouts = 0;
  #started = false;

  /**
   * @throws {TypeError} when the reconciler is neither a function nor has a `reconcile`
   *   method, or the name is empty.
   * @throws {RangeError} when `maxConcurrentReconciles` is not a positive integer.
   */
  constructor(options: ControllerOptions<T>) {
    if (typeof options.name !== 'string' || options.name === '') {
      throw new TypeError('controller name must be a non-empty string');
    }
    this.name = options.name;
    this.#reconcile = reconcileFuncOf(options.reconciler, options.name);
    const workers = options.maxConcurrentReconciles ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new RangeError(
        `controller ${options.name}: maxConcurrentReconciles must be a positive integer, got ${workers}`,
      );
    }
    this.#workers = workers;
    this.#cacheSyncTimeoutMs = durationOption(
      options.cacheSyncTimeoutMs,
      defaultCacheSyncTimeoutMs,
      'cacheSyncTimeoutMs',
      options.name,
    );
    this.#reconcileTimeoutMs = durationOption(
      options.reconcileTimeoutMs,
      0,
      'reconcileTimeoutMs',
      options.name,
    );
    this.#logger = withFields(options.logger ?? silentLogger, { controller: options.name });
    this.#lister = options.lister;
    this.#cacheSyncs = options.cacheSyncs ?? [];
    this.#metrics = options.metrics;
    this.#clock = options.clock ?? realClock;
    this.#recorder = options.recorder ?? discardingEventRecorder;
    const QueueKind = options.usePriorityQueue === false ? RateLimitingQueue : PriorityQueue;
    this.queue = new QueueKind<string>({
      name: options.name,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      ...(options.workqueueMetrics ? { metricsProvider: options.workqueueMetrics } : {}),
    });
  }

  /**
   * Queues `request` (a no-op once the controller is shutting down), at `priority` (default
   * 0; higher is reconciled first; ignored without the priority queue).
   */
  enqueue(request: ReconcileRequest, priority?: number): void {
    if (priority !== undefined && this.queue instanceof PriorityQueue) {
      this.queue.addWithOpts({ priority }, requestKey(request));
    } else {
      this.queue.add(requestKey(request));
    }
  }

  /** The counters of this controller's reconciles so far. */
  stats(): ControllerStats {
    return {
      reconcileTotal: { ...this.#counts },
      reconcileErrors: this.#errors,
      terminalReconcileErrors: this.#terminal,
      activeWorkers: this.#active,
      reconcileTimeouts: this.#timeouts,
    };
  }

  /**
   * Waits for the caches to sync, then reconciles until `signal` aborts. On abort, workers
   * take no new request; the reconciles in flight see their `ctx.signal` abort and are
   * awaited. Resolves once every worker has stopped.
   *
   * @throws {Error} when the controller was already started (a controller runs once).
   * @throws {CacheSyncTimeoutError} when the caches have not synced within
   *   `cacheSyncTimeoutMs`.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error(`controller ${this.name} was already started`);
    this.#started = true;
    const stop = (): void => this.queue.shutDown();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    try {
      const synced = await waitForSourcesSynced(this.cacheSyncSources(), {
        signal,
        clock: this.#clock,
        timeoutMs: this.#cacheSyncTimeoutMs,
        what: `failed to wait for ${this.name} caches to sync`,
      });
      if (!synced) return;
      this.#logger.info('Starting workers', { workerCount: this.#workers });
      this.#metrics?.started(this.name, this.#workers);
      await Promise.all(Array.from({ length: this.#workers }, () => this.#worker(signal)));
      this.#logger.info('All workers finished');
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
    }
  }

  /** The caches this controller waits for before its first reconcile. */
  cacheSyncSources(): readonly CacheSyncSource[] {
    return this.#cacheSyncs.map((s, i) =>
      typeof s === 'function' ? { resource: `cache ${i + 1}`, hasSynced: s } : s,
    );
  }

  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const next =
        this.queue instanceof PriorityQueue
          ? await this.queue.getWithPriority()
          : { ...(await this.queue.get()), priority: 0 };
      if (next.shutdown) return;
      if (signal.aborted) {
        // Queued but not started: left for the next run of the process.
        this.queue.done(next.item);
        return;
      }
      try {
        await this.#reconcileHandler(next.item, next.priority, signal);
      } finally {
        this.queue.done(next.item);
      }
    }
  }

  // A request goes back at the priority it was handed out at, or the one its result names
  // (controller-runtime's reconcileHandler), so a retry keeps its rank in the queue.
  async #reconcileHandler(key: string, priority: number, signal: AbortSignal): Promise<void> {
    const request = requestFromKey(key);
    const reconcileID = randomUUID();
    const logger = withFields(this.#logger, {
      namespace: request.namespace,
      name: request.name,
      reconcileID,
    });
    const timeout = this.#reconcileDeadline(signal);
    const ctx: ReconcileContext<T> = {
      signal: timeout.signal,
      reconcileID,
      logger,
      controller: this.name,
      lister: this.#lister,
      cached: () => cachedObject(this.#lister, request),
      recorder: this.#recorder,
    };
    this.#active++;
    this.#metrics?.activeWorkers(this.name, 1);
    const startedAt = this.#clock.now();
    const reconciled = (outcome: keyof ReconcileCounts, terminal = false): void => {
      this.#counts[outcome]++;
      this.#metrics?.reconciled(
        this.name,
        outcome,
        (this.#clock.now() - startedAt) / 1000,
        terminal,
      );
    };
    let result: NormalizedResult | undefined;
    try {
      result = checkResult(await this.#reconcile(request, ctx), this.name);
    } catch (err) {
      if (isCutShortByStop(err, signal)) {
        // Not a failure: the stop cut the reconcile short (controller-runtime drops a
        // context-canceled error on shutdown too); the next run's first reconcile of the
        // object does what is left.
        logger.debug('Reconcile cut short by the controller stopping');
        return;
      }
      this.#errors++;
      reconciled('error', isTerminalError(err));
      if (isTerminalError(err)) {
        this.#terminal++;
        this.queue.forget(key);
        logger.error('Reconciler error (terminal: not retried)', { error: err });
      } else {
        this.#requeue(key, { rateLimited: true, priority });
        logger.error('Reconciler error', { error: err });
      }
      return;
    } finally {
      timeout.cancel();
      if (timeout.expired()) {
        this.#timeouts++;
        this.#metrics?.reconcileTimedOut?.(this.name);
      }
      this.#active--;
      this.#metrics?.activeWorkers(this.name, -1);
    }
    if (result !== undefined && result.requeueAfterMs > 0) {
      // The wait was asked for: it must not grow with earlier failures.
      this.queue.forget(key);
      this.#requeue(key, { after: result.requeueAfterMs, priority: result.priority ?? priority });
      reconciled('requeue_after');
    } else if (result?.requeue === true) {
      this.#requeue(key, { rateLimited: true, priority: result.priority ?? priority });
      reconciled('requeue');
    } else {
      this.queue.forget(key);
      reconciled('success');
    }
  }

  // controller-runtime's priorityQueueWrapper: without the priority queue, the priority is
  // dropped and the plain queue's addAfter / addRateLimited do the same.
  #requeue(key: string, options: { rateLimited?: true; after?: number; priority: number }): void {
    if (this.queue instanceof PriorityQueue) this.queue.addWithOpts(options, key);
    else if (options.after !== undefined) this.queue.addAfter(key, options.after);
    else this.queue.addRateLimited(key);
  }

  // The reconcile's signal: the stop's, also aborted once reconcileTimeoutMs has passed.
  #reconcileDeadline(stop: AbortSignal): {
    signal: AbortSignal;
    cancel(): void;
    expired(): boolean;
  } {
    const ms = this.#reconcileTimeoutMs;
    if (ms === 0) return { signal: stop, cancel: () => {}, expired: () => false };
    const deadline = new AbortController();
    let expired = false;
    const timer = this.#clock.setTimeout(() => {
      // A stop that came first is no timeout.
      if (stop.aborted) return;
      expired = true;
      deadline.abort(
        new ReconcileTimeoutError(
          `controller ${this.name}: reconcile timed out after ${formatDuration(ms)}`,
        ),
      );
    }, ms);
    timer.unref?.();
    return {
      signal: AbortSignal.any([stop, deadline.signal]),
      cancel: () => timer.cancel(),
      expired: () => expired,
    };
  }
}

function durationOption(
  value: number | undefined,
  fallback: number,
  what: string,
  controller: string,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0) || value === Number.POSITIVE_INFINITY) {
    throw new RangeError(
      `controller ${controller}: ${what} must be a finite number of milliseconds ≥ 0, got ${String(value)}`,
    );
  }
  return value;
}

// The stop's own reason, or an AbortError, anywhere in the chain of what the reconciler threw,
// once the stop has come: a call the stop aborted, passed on as is or wrapped.
function isCutShortByStop(err: unknown, signal: AbortSignal): boolean {
  if (!signal.aborted) return false;
  return (
    findInErrorChain(
      err,
      (e) => e === signal.reason || (e instanceof Error && e.name === 'AbortError'),
    ) !== undefined
  );
}

function reconcileFuncOf<T>(
  reconciler: Reconciler<T>,
  name: string,
): (request: ReconcileRequest, ctx: ReconcileContext<T>) => unknown {
  if (typeof reconciler === 'function') return reconciler;
  if (typeof reconciler?.reconcile === 'function') {
    return (request, ctx) => reconciler.reconcile(request, ctx);
  }
  throw new TypeError(
    `controller ${name}: the reconciler must be a function or an object with a reconcile method`,
  );
}

// A wrong return value would otherwise be treated as "done" and the object never reconciled
// again; reporting it as a failed reconcile makes the mistake visible.
function checkResult(value: unknown, name: string): NormalizedResult | undefined {
  if (value === undefined || value === null) return undefined;
  const result = value as Result & { requeueAfter?: unknown };
  const after = result.requeueAfterMs;
  if (
    typeof value !== 'object' ||
    result.requeueAfter !== undefined ||
    (result.requeue !== undefined && typeof result.requeue !== 'boolean') ||
    (after !== undefined && !(typeof after === 'number' && after >= 0)) ||
    (result.priority !== undefined && !Number.isSafeInteger(result.priority))
  ) {
    // The field's earlier name would otherwise be dropped silently: no requeue at all.
    const renamed =
      typeof value === 'object' && result.requeueAfter !== undefined
        ? ' (requeueAfter is now requeueAfterMs)'
        : '';
    throw new TypeError(
      `controller ${name}: the reconciler returned ${describeReturned(value)}; expected nothing, { requeue: true } or { requeueAfterMs: <milliseconds ≥ 0> }, with an optional integer priority${renamed}`,
    );
  }
  return {
    requeue: result.requeue === true,
    requeueAfterMs: after ?? 0,
    ...(result.priority !== undefined ? { priority: result.priority } : {}),
  };
}

// What a reconciler returned, for the error: a cyclic or huge value must not turn the
// reconcile's error into another one or into a log line of unbounded length.
function describeReturned(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = `a ${typeof value} that is not JSON`;
  }
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text;
}

interface NormalizedResult {
  requeue: boolean;
  requeueAfterMs: number;
  priority?: number;
}
