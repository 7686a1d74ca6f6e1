import type { Clock } from '@kubets/apimachinery';
import { informerKey, type SharedIndexInformer, syncedPollPeriodMs } from '@kubets/cache';

/**
 * A cache a controller waits for before its first reconcile: one watched resource's informer
 * and the controller's handler on it.
 */
export interface CacheSyncSource {
  /** The resource, as `group/version/resource` (`v1/configmaps` for the core group). */
  readonly resource: string;
  /** True once the informer has synced and the handler has seen its initial list. */
  hasSynced(): boolean;
  /** The last error of a list or watch of the informer, if any (what keeps it from syncing). */
  lastListError?(): unknown;
}

/** controller-runtime's default `CacheSyncTimeout`: two minutes. */
export const defaultCacheSyncTimeoutMs = 2 * 60 * 1000;

/**
 * A controller's (or a manager's) caches did not sync within its cache sync timeout, e.g.
 * because the custom resource's CRD is not installed and every list fails with 404.
 */
export class CacheSyncTimeoutError extends Error {
  /** The resources (`group/version/resource`) whose caches had not synced. */
  readonly resources: readonly string[];

  constructor(message: string, resources: readonly string[], options?: ErrorOptions) {
    super(message, options);
    this.name = 'CacheSyncTimeoutError';
    this.resources = resources;
  }
}

/** Go's `time.Duration` printing for whole and fractional seconds: `2m0s`, `1.5s`, `250ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = (ms - minutes * 60_000) / 1000;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

/** Why each of `sources` has not synced: `resource (last list error: ...)`. */
export function describeUnsynced(sources: readonly CacheSyncSource[]): string {
  return sources
    .map((s) => {
      const error = s.lastListError?.();
      return error === undefined
        ? `${s.resource} (no list error seen)`
        : `${s.resource} (last list error: ${errorText(error)})`;
    })
    .join(', ');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Waits until every source has synced, checking at once and then every 100 ms of `clock`.
 * Resolves `true` once synced, `false` when `signal` aborts first.
 *
 * @throws {CacheSyncTimeoutError} after `timeoutMs` (`what` starts its message), naming the
 *   sources not synced and their last list errors.
 */
export async function waitForSourcesSynced(
  sources: readonly CacheSyncSource[],
  options: { signal: AbortSignal; clock: Clock; timeoutMs: number; what: string },
): Promise<boolean> {
  const { signal, clock, timeoutMs } = options;
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    if (signal.aborted) return false;
    const unsynced = sources.filter((s) => !s.hasSynced());
    if (unsynced.length === 0) return true;
    const left = deadline - clock.now();
    if (left <= 0) {
      const lastError = unsynced.map((s) => s.lastListError?.()).find((e) => e !== undefined);
      throw new CacheSyncTimeoutError(
        `${options.what}: timed out after ${formatDuration(timeoutMs)} waiting for caches to sync: ${describeUnsynced(unsynced)}`,
        unsynced.map((s) => s.resource),
        lastError === undefined ? undefined : { cause: lastError },
      );
    }
    try {
      await clock.sleep(Math.min(syncedPollPeriodMs, left), signal);
    } catch {
      return false;
    }
  }
}

// The last list or watch error per informer. An informer has one watch error handler, set
// before it runs: the first controller to watch it sets this one, and every controller
// sharing the informer reads the same record.
const lastErrors = new WeakMap<object, { error: unknown }>();

/**
 * The {@link CacheSyncSource} of a handler registered on `informer`, which watches
 * `resource`. Records the informer's list and watch errors from now on, unless it already
 * runs (a watch error handler can only be set before).
 */
export function cacheSyncSource(
  resource: { group: string; version: string; resource: string },
  informer: Pick<SharedIndexInformer<unknown>, 'setWatchErrorHandler'>,
  registration: { hasSynced(): boolean },
): CacheSyncSource {
  let record = lastErrors.get(informer);
  if (record === undefined) {
    const created: { error: unknown } = { error: undefined };
    try {
      informer.setWatchErrorHandler((error) => {
        created.error = error;
      });
      record = created;
      lastErrors.set(informer, record);
    } catch {
      // Already running: its errors cannot be seen from here.
    }
  }
  const seen = record;
  return {
    resource: informerKey(resource),
    hasSynced: () => registration.hasSynced(),
    lastListError: () => seen?.error,
  };
}
