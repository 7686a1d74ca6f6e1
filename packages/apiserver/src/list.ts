import { decodeContinue, encodeContinue } from './continue-token.js';
import { compareKeys, type Entry, lowerBound } from './object-entry.js';
import {
  etcdRevision,
  isAhead,
  parseEtcdResourceVersion,
  parseResourceVersion,
} from './resource-version.js';
import { matches, parseSelection } from './selectors.js';
import { ApiError, badRequest, failure, resourceExpired } from './status.js';
import type { Target } from './target.js';
import type { VersionedStore } from './versioned-store.js';

/** Query parameters of a list. */
export interface ListQuery {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: number | undefined;
  continue?: string | undefined;
  resourceVersion?: string | undefined;
  resourceVersionMatch?: string | undefined;
}

/** A list result: entries in key order, the list's resourceVersion and paging data. */
export interface ListResult {
  items: Entry[];
  resourceVersion: number;
  continue?: string;
  remainingItemCount?: number;
}

const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';

/**
 * LIST with selectors, paging and resourceVersion semantics of kube-apiserver 1.20. Reads at
 * an older revision (continue tokens, exact or paged lists) are rebuilt from the resource's
 * event history, which is why they expire with the global compaction point.
 */
export function listObjects(
  versioned: VersionedStore,
  target: Target,
  query: ListQuery,
): ListResult {
  const store = versioned.storeOf(target.definition);
  const selection = parseSelection(target, query);
  const namespace = target.definition.namespaced ? target.namespace : undefined;
  const { resourceVersion, resourceVersionMatch } = query;
  let limit = query.limit && query.limit > 0 ? query.limit : undefined;
  let atRv = versioned.rv;
  let start = '';
  if (resourceVersionMatch !== undefined && resourceVersionMatch !== '') {
    if (resourceVersionMatch !== 'NotOlderThan' && resourceVersionMatch !== 'Exact') {
      throw invalidListOptions(
        `resourceVersionMatch: Unsupported value: "${resourceVersionMatch}": supported values: "Exact", "NotOlderThan", ""`,
        'FieldValueNotSupported',
      );
    }
    if (resourceVersion === undefined || resourceVersion === '') {
      throw invalidListOptions(
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      );
    }
    if (query.continue) {
      throw invalidListOptions(
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
      );
    }
    if (resourceVersionMatch === 'Exact' && resourceVersion === '0') {
      throw invalidListOptions(
        'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      );
    }
  }
  // etcd's compaction is global; a store created later has no history before its creation.
  const floor = Math.max(versioned.compactedRv, store.floor);
  const hasRv = resourceVersion !== undefined && resourceVersion !== '';
  // kube-apiserver 1.20 reads continued, exact and paged lists from etcd, the others from the
  // watch cache (the choice compares the parameter as text: "00" is not "0").
  const fromEtcd =
    Boolean(query.continue) ||
    resourceVersionMatch === 'Exact' ||
    (resourceVersion !== '0' && limit !== undefined);
  const rv = hasRv
    ? fromEtcd
      ? parseEtcdResourceVersion(resourceVersion)
      : parseResourceVersion(resourceVersion)
    : 0n;
  if (query.continue) {
    const token = decodeContinue(query.continue);
    if (hasRv && resourceVersion !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    start = token.start;
    if (token.rv > 0n) {
      if (isAhead(token.rv, versioned.rv)) throw futureRevision();
      atRv = Number(token.rv);
    }
    if (atRv < floor) {
      throw resourceExpired(INCONSISTENT_CONTINUE, encodeContinue(-1, start));
    }
  } else if (hasRv) {
    if (!fromEtcd) {
      // Any state at least that new will do; the cache does not page. Its version is the
      // resource's own (see VersionedStore.watchCacheRv).
      const cached = versioned.watchCacheRv(target.definition);
      if (isAhead(rv, cached)) throw tooLargeResourceVersion(rv, cached);
      atRv = cached;
      limit = undefined;
    } else if (resourceVersionMatch === 'NotOlderThan') {
      if (isAhead(rv, versioned.rv)) throw tooLargeResourceVersion(rv, versioned.rv, 0);
    } else if (rv > 0n || resourceVersionMatch === 'Exact') {
      // Exact, or a paged list without a match (1.20 reads it at exactly that revision); a
      // revision of 0, or one Go wraps to a negative int64, reads the current state and then
      // fails the check that it is at least as new as the one asked for.
      const revision = etcdRevision(rv);
      if (revision === undefined) throw tooLargeResourceVersion(rv, versioned.rv, 0);
      if (isAhead(revision, versioned.rv)) throw futureRevision();
      if (revision > 0n) {
        if (revision < BigInt(floor)) throw resourceExpired(LIST_TOO_OLD);
        atRv = Number(revision);
      }
    }
  }
  const overrides =
    atRv < versioned.rv ? store.changesSince(atRv) : new Map<string, Entry | null>();
  let keys = store.sortedKeys(namespace);
  if (overrides.size > 0) {
    const set = new Set(keys);
    for (const [key, entry] of overrides) {
      if (namespace !== undefined && !key.startsWith(`${namespace}/`)) continue;
      if (entry) set.add(key);
      else set.delete(key);
    }
    keys = [...set].sort(compareKeys);
  }
  const prefix = namespace !== undefined ? `${namespace}/` : '';
  let index = start ? lowerBound(keys, prefix + start) : 0;
  const items: Entry[] = [];
  const empty = !selection.labels && !selection.fields;
  for (; index < keys.length; index++) {
    const key = keys[index] as string;
    const entry = overrides.has(key) ? overrides.get(key) : store.get(key);
    if (!entry) continue;
    if (!empty && !matches(selection, entry.obj)) continue;
    if (limit !== undefined && items.length === limit) break;
    items.push(entry);
  }
  const result: ListResult = { items, resourceVersion: atRv };
  if (limit !== undefined && index < keys.length && items.length === limit) {
    const last = items[items.length - 1] as Entry;
    result.continue = encodeContinue(atRv, `${last.key.slice(prefix.length)}\u0000`);
    if (empty) result.remainingItemCount = keys.length - index;
  }
  return result;
}

/**
 * Checks a GET's `resourceVersion` as kube-apiserver's watch cache does: any state at least that
 * new will do (the current one), and a version still ahead of the server's once the read has
 * waited for it (read-wait.ts) times out (504).
 */
export function checkGetResourceVersion(value: string | null, current: number): void {
  const rv = parseResourceVersion(value ?? '');
  if (isAhead(rv, current)) throw tooLargeResourceVersion(rv, current);
}

function invalidListOptions(message: string, reason = 'FieldValueForbidden'): ApiError {
  return new ApiError(
    failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${message}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: [
        {
          reason,
          message: message.replace(/^[^:]+: /, ''),
          field: message.split(':')[0] ?? '',
        },
      ],
    }),
  );
}

/**
 * `504 Timeout`: the resourceVersion asked for is ahead of the server's. The watch cache asks
 * the client to retry after 1 s; etcd reads (`retryAfterSeconds` 0) leave it out.
 */
export function tooLargeResourceVersion(
  rv: bigint | number,
  current: number,
  retryAfterSeconds = 1,
): ApiError {
  return new ApiError(
    failure(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
    }),
  );
}

/** etcd's answer to a read at a revision it has not reached: 500 without a reason. */
function futureRevision(): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'etcdserver: mvcc: required revision is a future revision',
    code: 500,
  });
}
