import { isWatchQuery } from './http.js';
import type { ServerState } from './server-state.js';

/** How long kube-apiserver's watch cache waits for a resourceVersion it has not reached. */
export const READ_WAIT_MS = 3_000;

/**
 * Holds a read the watch cache serves (a GET, or a LIST without `limit`, `continue` or
 * `resourceVersionMatch=Exact`) whose `resourceVersion` is ahead of the server's until a write
 * brings the server there or {@link READ_WAIT_MS} pass on the server's clock; the read then
 * runs as usual (and answers 504 if the version is still ahead).
 */
export async function waitForFreshRead(
  state: ServerState,
  method: string | undefined,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  if (method !== 'GET' || isWatchQuery(query) || /\/watch\//.test(path)) return;
  const value = query.get('resourceVersion');
  if (value === null || !/^\d+$/.test(value)) return;
  const rv = Number(value);
  if (rv <= state.storage.rv) return;
  const limit = Number(query.get('limit') ?? '0');
  if (query.get('resourceVersionMatch') === 'Exact' || query.get('continue') || limit > 0) return;
  await state.storage.waitForRevision(rv, (onTimeout) =>
    state.clock.setTimeout(onTimeout, READ_WAIT_MS),
  );
}
