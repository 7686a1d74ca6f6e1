import type { ListQueryOptions } from '@kubets/apimachinery';
import {
  type Clock,
  type Logger,
  type ObjectList,
  realClock,
  silentLogger,
} from '@kubets/apimachinery';

/**
 * The environment variable that turns the check on (client-go
 * `KUBE_WATCHLIST_INCONSISTENCY_DETECTOR`): meant for CI, never for production.
 */
export const watchListInconsistencyDetectorEnvVar = 'KUBE_WATCHLIST_INCONSISTENCY_DETECTOR';

// The spellings Go's strconv.ParseBool accepts as true.
const goTrue = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * True when {@link watchListInconsistencyDetectorEnvVar} is set to true (client-go
 * `IsDataConsistencyDetectionForWatchListEnabled`): then every streaming list of a reflector
 * is checked against a plain list with {@link checkDataConsistency}.
 */
export function isDataConsistencyDetectionForWatchListEnabled(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  return goTrue.has(env?.[watchListInconsistencyDetectorEnvVar] ?? '');
}

/** Thrown by {@link checkDataConsistency} when a streaming list and a plain list differ. */
export class DataInconsistencyError extends Error {
  /** Who ran the check (a reflector's name), or `''`. */
  readonly identity: string;

  constructor(identity: string) {
    super(`data inconsistency detected for ${identity}`);
    this.name = 'DataInconsistencyError';
    this.identity = identity;
  }
}

/** What {@link checkDataConsistency} compares. */
export interface CheckDataConsistencyOptions<T> {
  /** Names the checker in logs and errors, e.g. the reflector's name. */
  identity?: string | undefined;
  /** The resourceVersion the retrieved items are at; the plain list asks for it exactly. */
  lastSyncedResourceVersion: string;
  /** Lists from the server. */
  list: (options: ListQueryOptions, signal: AbortSignal) => Promise<ObjectList<T>>;
  /** The options the retrieved items were asked with (default none). */
  listOptions?: ListQueryOptions | undefined;
  /** The items to check, e.g. what a streaming list delivered. */
  retrievedItems: () => readonly T[];
  /** Applied to every listed item before comparing (the informer's transform). */
  transform?: ((obj: T) => T) | undefined;
  /** Waits between failed lists (default the real clock); they are retried every second. */
  clock?: Clock | undefined;
  /** Where the check reports what it does. Default silent. */
  logger?: Logger | undefined;
}

/**
 * Lists `lastSyncedResourceVersion` exactly (from etcd) and compares the items, ordered by
 * UID, with `retrievedItems()` (client-go `CheckDataConsistency`). A failed list is retried
 * every second until `signal` aborts (then the check is skipped). Skipped when no valid
 * exact list can be formed: a `continue` token set, or `lastSyncedResourceVersion` `"0"`.
 *
 * @throws {DataInconsistencyError} when the items differ (client-go panics).
 */
export async function checkDataConsistency<T>(
  options: CheckDataConsistencyOptions<T>,
  signal: AbortSignal,
): Promise<void> {
  const identity = options.identity ?? '';
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? realClock;
  const requested = options.listOptions ?? {};
  if (requested.continue || options.lastSyncedResourceVersion === '0') {
    logger.debug(
      'Data consistency check is enabled but no valid exact list can be formed; skipped',
      { identity },
    );
    return;
  }
  logger.info(
    'Warning: data consistency check is enabled, this will result in an additional call to the API server.',
    { identity },
  );
  const retrieved = [...options.retrievedItems()];
  const listOptions = exactListOptions(
    options.lastSyncedResourceVersion,
    requested,
    retrieved.length,
  );
  let list: ObjectList<T> | undefined;
  while (list === undefined) {
    if (signal.aborted) {
      logger.error('Failed to list data from the server; the data consistency check is skipped', {
        identity,
      });
      return;
    }
    try {
      list = await options.list(listOptions, signal);
    } catch (err) {
      logger.info('Failed to list data from the server, retrying until stopped', {
        identity,
        error: String(err),
      });
      try {
        await clock.sleep(1000, signal);
      } catch {
        // Stopped: the loop reports it.
      }
    }
  }
  const transform = options.transform;
  const listed = transform === undefined ? [...list.items] : list.items.map((o) => transform(o));
  if (!sameJson(byUID(listed), byUID(retrieved))) {
    logger.error(
      'Previously received data is different than received by the standard list api call against etcd',
      { identity },
    );
    throw new DataInconsistencyError(identity);
  }
}

/** The list options of the check: an exact read at `rv`, straight from etcd. */
function exactListOptions(
  rv: string,
  requested: ListQueryOptions,
  retrievedCount: number,
): ListQueryOptions {
  const options: ListQueryOptions = { ...requested };
  // The watch cache ignores the limit at resourceVersion "0": compare with an unlimited list.
  if (
    requested.resourceVersion === '0' &&
    requested.limit !== undefined &&
    requested.limit > 0 &&
    retrievedCount > requested.limit
  ) {
    delete options.limit;
  }
  options.resourceVersion = rv;
  options.resourceVersionMatch = 'Exact';
  return options;
}

function byUID<T>(items: T[]): T[] {
  const uid = (o: T) => (o as { metadata?: { uid?: string } }).metadata?.uid ?? '';
  return items.sort((a, b) => (uid(a) < uid(b) ? -1 : uid(a) > uid(b) ? 1 : 0));
}

/** Equal as JSON values: the same keys and values, in any key order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bKeys = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((k) =>
    sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}
