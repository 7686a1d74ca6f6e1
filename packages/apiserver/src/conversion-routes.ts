import { type StorageWrites, serveAdmittedWrite } from './admission-writes.js';
import {
  type ConversionWebhook,
  conversionWebhookOf,
  convertEntries,
  convertObjects,
} from './conversion-webhooks.js';
import { RequestContext, sendJson } from './http.js';
import { type Entry, makeEntry, storeKey } from './object-entry.js';
import { meta } from './object-meta.js';
import { isObject, type JsonObject } from './patch.js';
import { parseObjectBody, parsePatch, patchTypeOf } from './request-body.js';
import { apiVersionOf } from './resources.js';
import { parseListQuery, sendList, serveWatch } from './routes-list-watch.js';
import { deleteCollection, deleteOne, type WriteParams } from './routes-objects.js';
import type { ServerState } from './server-state.js';
import { badRequest } from './status.js';
import { keyNamespace, type Target } from './target.js';

/**
 * Reads and writes of a custom resource whose CRD converts through a webhook, at any version:
 * GET and LIST answer each object converted to the requested version; POST and PUT go through
 * the admission webhooks at the requested version, are converted to the storage version and
 * stored, and answered converted back; a PATCH applies to the object at the requested version,
 * and its result is stored converted (without admission webhooks); a DELETE (or
 * deletecollection) reads what it deletes at the requested version first, so that admission
 * webhooks see it there and a failed conversion deletes nothing, and answers the objects
 * converted. Answers false (nothing sent) for other resources and requests.
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
    sendList(ctx, target, await convertEntries(webhook, result.items, target.version), result);
    return true;
  }
  if (target.version === webhook.storageVersion) return false;
  const storageTarget = { ...target, version: webhook.storageVersion };
  const toStorage = async (obj: JsonObject): Promise<JsonObject> =>
    (await convertObjects(webhook, [obj], webhook.storageVersion))[0] as JsonObject;
  const writes: StorageWrites = {
    write: async (operation, obj, options) => {
      const stored = await toStorage(obj);
      return operation === 'CREATE'
        ? state.storage.create(storageTarget, stored, options)
        : state.storage.update(storageTarget, name as string, stored, options);
    },
    view,
    send,
  };
  if (method === 'DELETE' && subresource === undefined) {
    await serveConvertedDelete(state, ctx, target, name, params, webhook, writes);
    return true;
  }
  if (method === 'PATCH' && name !== undefined) {
    // The patch applies to the object as this version shows it; the result is stored converted.
    const typed = parsePatch(ctx, patchTypeOf(ctx, target.definition));
    const options = { manager: params.manager(), dryRun: params.dryRun, subresource };
    const existing = state.storage
      .storeOf(target.definition)
      .get(storeKey(keyNamespace(target), name));
    if (!existing) {
      if (typed.type !== 'apply' || !isObject(typed.patch)) return false;
      await send(201, state.storage.create(storageTarget, await toStorage(typed.patch), options));
      return true;
    }
    const patched = state.storage.applyPatchToValue(
      await view(existing.obj),
      typed,
      target.definition,
    );
    if (!isObject(patched)) throw badRequest('the patch did not produce an object');
    const stored = await toStorage(patched);
    stored.metadata = { ...meta(stored), resourceVersion: String(existing.rv) };
    await send(200, state.storage.update(storageTarget, name, stored, options));
    return true;
  }
  if (method !== 'POST' && method !== 'PUT') return false;
  const body = parseObjectBody(ctx, target.definition);
  if (body.apiVersion !== apiVersion) return false;
  return serveAdmittedWrite(state, ctx, target, name, subresource, params, writes);
}

/**
 * A DELETE (or deletecollection) at a version the webhook converts to. kube-apiserver reads
 * what it deletes at the request's version (its storage of each version decodes through the
 * webhook) before deleting anything, so a failed conversion deletes nothing and admission
 * webhooks get the objects at that version; the answer (an object a finalizer keeps, or the
 * list a deletecollection deleted) is converted too. The Status of an object gone at once
 * carries no object.
 */
async function serveConvertedDelete(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string | undefined,
  params: WriteParams,
  webhook: ConversionWebhook,
  writes: StorageWrites,
): Promise<void> {
  if (name === undefined) {
    const { labelSelector, fieldSelector } = parseListQuery(ctx.query);
    const victims = state.storage.list(target, { labelSelector, fieldSelector }).items;
    await convertEntries(webhook, victims, target.version);
  } else {
    const existing = state.storage
      .storeOf(target.definition)
      .get(storeKey(keyNamespace(target), name));
    if (existing) await writes.view(existing.obj);
  }
  // Admission webhooks answer false for a delete they allow: it is deleted here.
  await serveAdmittedWrite(state, ctx, target, name, undefined, params, writes);
  if (name === undefined) {
    const deleted = deleteCollection(state, ctx, target, params.dryRun);
    const listMeta = { resourceVersion: state.storage.rv };
    sendList(ctx, target, await convertEntries(webhook, deleted, target.version), listMeta);
    return;
  }
  const entry = deleteOne(state, ctx, target, name, params.dryRun);
  if (entry) await writes.send(200, entry);
}

/**
 * A WATCH of a custom resource at a version its CRD's conversion webhook converts to: the
 * watch is served as any other, each event's object (stored at the storage version) converted
 * through the webhook before it is written, one event after the other in their order.
 * kube-apiserver 1.20 converts in its watch encoder, and ends the stream (no ERROR event)
 * when an object cannot be encoded; so does this. `render` shows each converted object (a
 * Table row for `kubectl get -w`); by default it is sent as converted. Answers false (nothing
 * sent) for other watches, and for metadata-only ones, which carry no version's fields.
 */
export function serveConvertedWatch(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string | undefined,
  render: (entry: Entry) => string = (entry) => entry.json,
): boolean {
  const webhook = conversionWebhookOf(state, target.definition);
  if (!webhook || target.version === webhook.storageVersion || ctx.view !== 'full') {
    return false;
  }
  const stored = apiVersionOf(target.definition.group, webhook.storageVersion);
  const { res } = ctx;
  const open = (): boolean => !res.destroyed && !res.writableEnded;
  let pending: Promise<void> = Promise.resolve();
  const convertLine = async (line: string): Promise<string | undefined> => {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return line; // not an event of ours (an injected fault): sent as it is
    }
    if (!isObject(event) || !isObject(event.object) || event.object.apiVersion !== stored) {
      return line; // BOOKMARK and ERROR events are already at the version asked for
    }
    try {
      const [object] = (await convertObjects(webhook, [event.object], target.version)) as [
        JsonObject,
      ];
      const md = meta(object);
      const entry = makeEntry(
        object,
        typeof md.namespace === 'string' ? md.namespace : '',
        String(md.name ?? ''),
        Number(md.resourceVersion),
      );
      return `{"type":${JSON.stringify(event.type)},"object":${render(entry)}}\n`;
    } catch {
      return undefined;
    }
  };
  // The watch stream writes each line at once; the lines are converted in order before they
  // reach the client, and the end waits for the lines before it.
  const converting = new Proxy(res, {
    get(response, property) {
      if (property === 'write') {
        return (line: string): boolean => {
          pending = pending.then(async () => {
            if (!open()) return;
            const converted = await convertLine(line);
            if (!open()) return;
            if (converted === undefined) res.end();
            else res.write(converted);
          });
          return true;
        };
      }
      if (property === 'end') {
        return (): typeof res => {
          pending = pending.then(() => {
            if (!res.writableEnded) res.end();
          });
          return res;
        };
      }
      const value: unknown = Reflect.get(response, property, response);
      return typeof value === 'function' ? value.bind(response) : value;
    },
  });
  // Stored objects are rendered as stored, so that the conversion starts from all their fields.
  const converted = new RequestContext(ctx.req, converting, ctx.url, ctx.body);
  serveWatch(state, converted, target, name, (entry) => entry.json);
  return true;
}
