import { isWatchQuery } from './http.js';
import { isAhead, parseResourceVersion } from './resource-version.js';
import type { ServerState } from './server-state.js';

/** How long kube-apiserver's watch cache waits for a resourceVersion it has not reached. */
export const READ_WAIT_MS = 3_000;

/**
 * Holds a read the watch cache serves (a GET, a LIST without `limit`, `continue` or
 * `resourceVersionMatch=Exact`, or a watch with `sendInitialEvents=true`) whose
 * `resourceVersion` is ahead of the server's until a write
 * brings the server there or {@link READ_WAIT_MS} pass on the server's clock; the read then
 * runs as usual (and answers 504 if the version is still ahead).
 */
export async function waitForFreshRead(
  state: ServerState,
  method: string | undefined,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  if (method !== 'GET') return;
  // A watch waits only to send its initial events from a state at least that new.
  const watch = isWatchQuery(query) || /\/watch\//.test(path);
  if (watch && !isStreamingList(query)) return;
  const value = query.get('resourceVersion');
  let rv: bigint;
  try {
    rv = parseResourceVersion(value ?? '');
  } catch {
    // The route answers the bad value at once.
    return;
  }
  if (!isAhead(rv, state.storage.rv)) return;
  const limit = Number(query.get('limit') ?? '0');
  if (
    !watch &&
    (query.get('resourceVersionMatch') === 'Exact' || query.get('continue') || limit > 0)
  )
    return;
  await state.storage.waitForRevision(Number(rv), (onTimeout) =>
    state.clock.setTimeout(onTimeout, READ_WAIT_MS),
  );
}

/** A watch newer servers accept as a streaming list (see routes-list-watch.ts for the 422s). */
function isStreamingList(query: URLSearchParams): boolean {
  return (
    query.get('sendInitialEvents') === 'true' &&
    query.get('resourceVersionMatch') === 'NotOlderThan' &&
    query.get('allowWatchBookmarks') === 'true'
  );
}
