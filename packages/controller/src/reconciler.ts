import type { Logger } from '@kubets/apimachinery';
import type { GenericLister } from '@kubets/listers';
import type { EventRecorder } from '@kubets/record';
import { findInErrorChain } from './error-chain.js';
import type { ReconcileRequest } from './request.js';

/**
 * What a reconcile asks for next (controller-runtime's `reconcile.Result`). Returning
 * nothing means done: the request's failure count is reset.
 */
export interface Result {
  /**
   * Reconcile again after this many milliseconds (e.g. to poll something outside the
   * cluster); resets the failure count. Wins over `requeue`. controller-runtime's
   * `RequeueAfter`, kube-rs' `Action::requeue(duration)`; `0` means no requeue.
   */
  requeueAfterMs?: number | undefined;
  /**
   * Reconcile again after the rate limiter's backoff, as for an error, without logging one.
   * To wait for something outside the cluster, prefer `requeueAfterMs` with the interval
   * it needs (controller-runtime deprecated its `Requeue` for that reason): the backoff
   * paces retries after failures, not polling.
   */
  requeue?: boolean | undefined;
  /**
   * The priority the request is queued at if it is requeued (`requeue`, `requeueAfterMs`);
   * default the priority it was handed out at, so a retry keeps its rank. An integer; higher
   * is reconciled first. controller-runtime's `Result.Priority`; ignored by a controller
   * with `usePriorityQueue: false`.
   */
  priority?: number | undefined;
}

/** What a reconciler gets besides the request. */
export interface ReconcileContext<T> {
  /**
   * Aborted when the controller shuts down, or when the controller's `reconcileTimeoutMs`
   * has passed (then with a `ReconcileTimeoutError`): pass it to every call that waits.
   */
  readonly signal: AbortSignal;
  /**
   * A unique id of this reconcile (a UUID), also on every line of `logger` as `reconcileID`
   * (controller-runtime's `ReconcileIDFromContext`): tells apart the lines of two reconciles
   * of one object. Always set by a controller; optional so that contexts built by hand (in
   * tests) need none, as controller-runtime's `ReconcileIDFromContext` answers `""` then.
   */
  readonly reconcileID?: string;
  /** A logger whose lines carry the controller's name and the request. */
  readonly logger: Logger;
  /** The name of the controller running this reconcile. */
  readonly controller: string;
  /**
   * The cached object of the request, or `undefined` when the cache has none (deleted, or
   * not seen yet). The cache may lag behind the server: after a write, the next reconcile
   * can still see the old object.
   */
  cached(): T | undefined;
  /** A lister over the cache of the controller's primary resource. */
  readonly lister: GenericLister<T>;
  /**
   * Records Kubernetes Events about objects, with the controller's name as their source
   * component (controller-runtime's `mgr.GetEventRecorderFor(name)`). Never blocks, never
   * throws. The object needs `apiVersion` and `kind` (cached objects have them). Without a
   * manager (a controller built on an informer factory alone) it drops the events.
   */
  readonly recorder: EventRecorder;
}

/**
 * Brings one object's world to its desired state (controller-runtime's `Reconciler`).
 * Resolve with nothing when done, a {@link Result} to come back later; throw to be retried
 * with backoff (a {@link TerminalError} is not retried). Must be idempotent: it is called
 * again for every change and on resyncs.
 */
export type ReconcileFunc<T> = (
  request: ReconcileRequest,
  ctx: ReconcileContext<T>,
) => Result | undefined | Promise<Result | undefined> | Promise<void> | void;

/**
 * @internal The event sources a reconciler brings with it (a `ShardRing` reconciler's
 * takeovers): the builder's `complete` watches each with `enqueueRequestForObject`, so the
 * user does not have to know of them.
 */
export const reconcilerSources: unique symbol = Symbol('kubets.reconcilerSources');

/** A reconciler: a {@link ReconcileFunc}, or an object with a `reconcile` method. */
export type Reconciler<T> =
  | ReconcileFunc<T>
  | {
      /** See {@link ReconcileFunc}. */
      reconcile: ReconcileFunc<T>;
    };

/**
 * An error that retrying will not fix (controller-runtime's `reconcile.TerminalError`): it
 * is logged and counted, and the request is dropped until the next change of its object.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/**
 * Whether `err` is, wraps (through `cause`) or aggregates (an `AggregateError`'s `errors`) a
 * {@link TerminalError}, or one made by another copy of this package (controller-runtime
 * finds it with `errors.As`, through wrapped and joined errors).
 */
export function isTerminalError(err: unknown): boolean {
  return findInErrorChain(err, isOwnTerminalError) !== undefined;
}

function isOwnTerminalError(err: unknown): boolean {
  return err instanceof Error && err.name === 'TerminalError';
}
