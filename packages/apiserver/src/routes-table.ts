import { crdVersion } from './crd-lookup.js';
import { type RequestContext, sendJson } from './http.js';
import { parseListQuery, serveWatch } from './routes-list-watch.js';
import type { ServerState } from './server-state.js';
import { methodNotAllowed } from './status.js';
import {
  buildTable,
  parseIncludeObject,
  printerFor,
  type TableVersion,
  tableEventRenderer,
} from './table.js';
import type { Target } from './target.js';

/**
 * GET of a list or one object as a `meta.k8s.io` Table (`Accept: …;as=Table;…`), what
 * `kubectl get` prints: the resource's columns, one row per object; a watch gets one Table
 * per event (`kubectl get -w`).
 */
export function serveTable(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string | undefined,
  version: TableVersion,
  watch: boolean,
): void {
  const def = target.definition;
  const include = parseIncludeObject(ctx.query.get('includeObject'));
  const printer = printerFor(def, crdVersion(state, def, target.version));
  const render = (entry: Parameters<typeof state.storage.render>[0]) =>
    state.storage.render(entry, target);
  if (watch) {
    const events = tableEventRenderer(printer, { version, include, now: Date.now, render });
    serveWatch(state, ctx, target, name, events);
    return;
  }
  const now = Date.now();
  if (name !== undefined) {
    const entry = state.storage.get(target, name);
    const meta = { resourceVersion: String(entry.rv) };
    sendJson(ctx.res, 200, buildTable(printer, [entry], { version, include, meta, now, render }));
    return;
  }
  if (!def.verbs.includes('list')) throw methodNotAllowed('list', def.kind, def.custom);
  const result = state.storage.list(target, parseListQuery(ctx.query));
  const meta = {
    resourceVersion: String(result.resourceVersion),
    continue: result.continue,
    remainingItemCount: result.remainingItemCount,
  };
  sendJson(
    ctx.res,
    200,
    buildTable(printer, result.items, { version, include, meta, now, render }),
  );
}
