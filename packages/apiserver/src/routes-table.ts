import { serveConvertedWatch } from './conversion-routes.js';
import { conversionWebhookOf, convertEntries } from './conversion-webhooks.js';
import { crdVersion } from './crd-lookup.js';
import { type RequestContext, sendJson } from './http.js';
import type { Entry } from './object-entry.js';
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
 * per event (`kubectl get -w`). A custom resource whose CRD converts through a webhook is
 * converted to the requested version first, as kube-apiserver's storage of that version
 * decodes it: the version's columns read the object as that version shows it.
 */
export async function serveTable(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string | undefined,
  version: TableVersion,
  watch: boolean,
): Promise<void> {
  const def = target.definition;
  const include = parseIncludeObject(ctx.query.get('includeObject'));
  const printer = printerFor(def, crdVersion(state, def, target.version));
  const render = (entry: Entry) => state.storage.render(entry, target);
  if (watch) {
    const events = tableEventRenderer(printer, { version, include, now: Date.now, render });
    if (serveConvertedWatch(state, ctx, target, name, events)) return;
    serveWatch(state, ctx, target, name, events);
    return;
  }
  const webhook = conversionWebhookOf(state, def);
  const atVersion = async (entries: readonly Entry[]): Promise<readonly Entry[]> =>
    webhook ? convertEntries(webhook, entries, target.version) : entries;
  if (name !== undefined) {
    const entry = state.storage.get(target, name);
    const meta = { resourceVersion: String(entry.rv) };
    const rows = await atVersion([entry]);
    const now = Date.now();
    sendJson(ctx.res, 200, buildTable(printer, rows, { version, include, meta, now, render }));
    return;
  }
  if (!def.verbs.includes('list')) throw methodNotAllowed('list', def.kind, def.custom);
  const result = state.storage.list(target, parseListQuery(ctx.query));
  const meta = {
    resourceVersion: String(result.resourceVersion),
    continue: result.continue,
    remainingItemCount: result.remainingItemCount,
  };
  const rows = await atVersion(result.items);
  const now = Date.now();
  sendJson(ctx.res, 200, buildTable(printer, rows, { version, include, meta, now, render }));
}
