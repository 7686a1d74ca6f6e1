import { serveAdmittedWrite } from './admission-writes.js';
import { conversionWebhookOf, convertObjects } from './conversion-webhooks.js';
import type { RequestContext } from './http.js';
import { sendJson } from './http.js';
import { type Entry, makeEntry } from './object-entry.js';
import type { JsonObject } from './patch.js';
import { parseObjectBody } from './request-body.js';
import { apiVersionOf } from './resources.js';
import { parseListQuery, sendList } from './routes-list-watch.js';
import type { WriteParams } from './routes-objects.js';
import type { ServerState } from './server-state.js';
import type { Target } from './target.js';

/**
 * Reads and writes of a custom resource whose CRD converts through a webhook, at any version:
 * GET and LIST answer each object converted to the requested version; POST and PUT go through
 * the admission webhooks at the requested version, are converted to the storage version and
 * stored, and answered converted back. Answers false (nothing
 * sent) for other resources and requests.
 */
export async function serveConvertedRequest(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string | undefined,
  subresource: 'status' | undefined,
  params: WriteParams,
): Promise<boolean> {
  const webhook = conversionWebhookOf(state, target.definition);
  if (!webhook) return false;
  const method = ctx.req.method ?? 'GET';
  const apiVersion = apiVersionOf(target.definition.group, target.version);
  const view = async (obj: JsonObject): Promise<JsonObject> =>
    (await convertObjects(webhook, [obj], target.version))[0] as JsonObject;
  const send = async (code: number, entry: Entry): Promise<void> =>
    sendJson(ctx.res, code, JSON.stringify(await view(entry.obj)));
  if (method === 'GET' && name !== undefined) {
    await send(200, state.storage.get(target, name));
    return true;
  }
  if (method === 'GET') {
    const result = state.storage.list(target, parseListQuery(ctx.query));
    const converted = await convertObjects(
      webhook,
      result.items.map((e) => e.obj),
      target.version,
    );
    const items = result.items.map((e, i) =>
      makeEntry(converted[i] as JsonObject, e.namespace, e.name, e.rv),
    );
    sendList(ctx, target, items, result);
    return true;
  }
  if (method !== 'POST' && method !== 'PUT') return false;
  if (target.version === webhook.storageVersion) return false;
  const body = parseObjectBody(ctx, target.definition);
  if (body.apiVersion !== apiVersion) return false;
  const storageTarget = { ...target, version: webhook.storageVersion };
  return serveAdmittedWrite(state, ctx, target, name, subresource, params, {
    write: async (operation, obj, options) => {
      const [stored] = (await convertObjects(webhook, [obj], webhook.storageVersion)) as [
        JsonObject,
      ];
      return operation === 'CREATE'
        ? state.storage.create(storageTarget, stored, options)
        : state.storage.update(storageTarget, name as string, stored, options);
    },
    view,
    send,
  });
}
