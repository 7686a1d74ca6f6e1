import { goSortedKeys } from './go-decode.js';
import type { RequestContext } from './http.js';
import { type ListQuery, tooLargeResourceVersion } from './list.js';
import type { Entry } from './object-entry.js';
import type { JsonObject } from './patch.js';
import { renderListItem } from './render.js';
import { parseResourceVersion } from './resource-version.js';
import { apiVersionOf } from './resources.js';
import type { ServerState } from './server-state.js';
import { ApiError, badRequest, failure, methodNotAllowed } from './status.js';
import type { Target } from './target.js';
import { WatchStream } from './watch-stream.js';
import { preferredMediaType, sendYaml } from './yaml-output.js';

/** The list parameters of a query; 400 for a `limit` that is not an integer. */
export function parseListQuery(query: URLSearchParams): ListQuery {
  const limit = query.get('limit');
  let parsedLimit: number | undefined;
  if (limit !== null && limit !== '') {
    parsedLimit = Number(limit);
    if (!Number.isInteger(parsedLimit)) {
      throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(limit)}: invalid syntax`);
    }
  }
  return {
    labelSelector: query.get('labelSelector') ?? undefined,
    fieldSelector: query.get('fieldSelector') ?? undefined,
    limit: parsedLimit,
    continue: query.get('continue') ?? undefined,
    resourceVersion: query.get('resourceVersion') ?? undefined,
    resourceVersionMatch: query.get('resourceVersionMatch') ?? undefined,
  };
}

/** LIST a collection. */
export function serveList(state: ServerState, ctx: RequestContext, target: Target): void {
  if (!target.definition.verbs.includes('list'))
    throw methodNotAllowed('list', target.definition.kind, target.definition.custom);
  const result = state.storage.list(target, parseListQuery(ctx.query));
  sendList(ctx, target, result.items, result);
}

/**
 * Writes a list (or the objects a deletecollection removed), flushing every MiB so a large
 * list is never one string.
 */
export function sendList(
  ctx: RequestContext,
  target: Target,
  items: readonly Entry[],
  meta: { resourceVersion: number; continue?: string; remainingItemCount?: number },
): void {
  const { res } = ctx;
  const def = target.definition;
  const apiVersion = apiVersionOf(def.group, target.version);
  const metadata: JsonObject = { resourceVersion: String(meta.resourceVersion) };
  if (meta.continue) metadata.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) metadata.remainingItemCount = meta.remainingItemCount;
  // A custom resource's list is an UnstructuredList, encoded as a map: keys sorted.
  const sortedList = def.custom && ctx.view === 'full';
  const kind = JSON.stringify(def.listKind);
  const head =
    ctx.view !== 'full'
      ? `{"kind":"PartialObjectMetadataList","apiVersion":"${ctx.view}","metadata":${JSON.stringify(metadata)},"items":[`
      : sortedList
        ? `{"apiVersion":${JSON.stringify(apiVersion)},"items":[`
        : `{"kind":${kind},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
  // An UnstructuredList's metadata always carries `continue`, empty on the last page.
  const tail = sortedList
    ? `],"kind":${kind},"metadata":${JSON.stringify(goSortedKeys({ continue: '', ...metadata }))}}`
    : ']}';
  if (preferredMediaType(ctx.req.headers.accept) === 'application/yaml') {
    const rendered = items.map((item) => renderListItem(item, apiVersion, ctx.view, def.custom));
    sendYaml(res, 200, `${head}${rendered.join(',')}${tail}`);
    return;
  }
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
  });
  let chunk = head;
  for (let i = 0; i < items.length; i++) {
    chunk +=
      (i === 0 ? '' : ',') + renderListItem(items[i] as Entry, apiVersion, ctx.view, def.custom);
    if (chunk.length > 1 << 20) {
      res.write(chunk);
      chunk = '';
    }
  }
  res.end(`${chunk}${tail}`);
}

/** WATCH a collection (or one object by name): replay or initial state, then live events. */
export function serveWatch(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string | undefined,
  render?: (entry: Entry) => string,
): void {
  const { query, res } = ctx;
  const def = target.definition;
  if (!def.verbs.includes('watch')) throw methodNotAllowed('watch', def.kind, def.custom);
  let fieldSelector = query.get('fieldSelector') ?? '';
  if (name !== undefined)
    fieldSelector = fieldSelector
      ? `${fieldSelector},metadata.name=${name}`
      : `metadata.name=${name}`;
  const selection = state.storage.selection(target, {
    labelSelector: query.get('labelSelector') ?? undefined,
    fieldSelector,
  });
  const sendInitialEvents = query.get('sendInitialEvents');
  const match = query.get('resourceVersionMatch') ?? '';
  const bookmarks = query.get('allowWatchBookmarks') === 'true';
  const rvParam = query.get('resourceVersion') ?? '';
  if (sendInitialEvents === 'true' || sendInitialEvents === 'false') {
    if (match !== 'NotOlderThan') {
      throw invalidWatchOptions(
        'resourceVersionMatch',
        `Unsupported value: "${match}": supported values: "NotOlderThan"`,
        'FieldValueNotSupported',
      );
    }
    if (sendInitialEvents === 'true' && !bookmarks) {
      throw invalidWatchOptions(
        'allowWatchBookmarks',
        'Forbidden: allowWatchBookmarks must be true when sendInitialEvents is true',
        'FieldValueForbidden',
      );
    }
  } else if (match !== '') {
    // kube-apiserver 1.20's answer; newer servers accept it together with sendInitialEvents.
    throw invalidWatchOptions(
      'resourceVersionMatch',
      'Forbidden: resourceVersionMatch is forbidden for watch',
      'FieldValueForbidden',
    );
  }
  const requestedRv = parseResourceVersion(rvParam);
  // Past 2^53 every version is ahead of the server's, whose revisions are small.
  const fromRv = requestedRv > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(requestedRv);
  const timeoutParam = query.get('timeoutSeconds');
  const timeoutSeconds = timeoutParam === null ? undefined : Number(timeoutParam);
  const store = state.storage.storeOf(def);
  const namespace = def.namespaced ? target.namespace : undefined;
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
  });
  res.flushHeaders();
  const stream = new WatchStream(res, {
    store,
    namespace,
    group: def.group,
    version: target.version,
    selection,
    view: ctx.view,
    bookmarks,
    bookmarkIntervalMs: state.bookmarkIntervalMs,
    timeoutMs:
      timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
    // The watch cache sends only what is newer than the version asked for, even one ahead.
    after: fromRv,
    faults: state.faults,
    currentRv: () => state.storage.rv,
    render,
    onClose: (s) => {
      state.streams.delete(s);
      store.removeWatcher(s);
    },
  });
  if (sendInitialEvents === 'true') {
    // The state at least as new as resourceVersion: the read waited for it (see read-wait.ts);
    // still ahead, newer servers end the watch with the watch cache's 504.
    if (fromRv > state.storage.rv) {
      stream.error(tooLargeResourceVersion(requestedRv, state.storage.rv).status);
      return;
    }
    for (const key of store.sortedKeys(namespace)) {
      const entry = store.get(key);
      if (entry) stream.added(entry);
    }
    stream.bookmark(true);
  } else if (fromRv === 0) {
    // No resourceVersion (or 0): the current state as ADDED events, unless sendInitialEvents
    // is false (then nothing: the watch starts at the most recent state).
    if (sendInitialEvents === null) {
      for (const key of store.sortedKeys(namespace)) {
        const entry = store.get(key);
        if (entry) stream.added(entry);
      }
    }
  } else {
    if (fromRv < store.watchFloor) {
      // After a compaction etcd answers (as for a resource without watch cache); otherwise the
      // watch cache, which names the oldest version it can still start from.
      const message =
        fromRv < state.storage.requestedCompaction
          ? 'The resourceVersion for the provided watch is too old.'
          : `too old resource version: ${fromRv} (${store.watchFloor})`;
      stream.error(failure(410, 'Expired', message));
      return;
    }
    for (const event of store.eventsSince(fromRv)) stream.deliver(event);
  }
  if (stream.closed) return;
  store.addWatcher(stream);
  state.streams.add(stream);
  stream.start();
}

function invalidWatchOptions(field: string, message: string, reason: string): ApiError {
  return new ApiError(
    failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: ${message}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: [{ reason, message, field }],
    }),
  );
}
