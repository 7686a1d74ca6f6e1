import { type RequestContext, sendJson } from './http.js';
import { checkGetResourceVersion } from './list.js';
import { type Entry, storeKey } from './object-entry.js';
import { isObject } from './patch.js';
import { encodeProtobufObject } from './protobuf.js';
import { renderObject } from './render.js';
import { parseDeleteOptions, parseObjectBody, parsePatch, patchTypeOf } from './request-body.js';
import { apiVersionOf } from './resources.js';
import { parseListQuery, sendList, serveList } from './routes-list-watch.js';
import type { ServerState } from './server-state.js';
import { methodNotAllowed, pathNotFound, success } from './status.js';
import { keyNamespace, type Target } from './target.js';
import { checkWriteOptions } from './write-options.js';
import { preferredMediaType, sendYaml } from './yaml-output.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** What every object and collection request carries besides its target. */
export interface WriteParams {
  /** The field manager: `fieldManager`, else the client's user-agent name. */
  manager: () => string;
  dryRun: boolean;
}

/** A collection: GET lists, POST creates, DELETE is deletecollection. */
export function serveCollection(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  { manager, dryRun }: WriteParams,
): void {
  const { req, query } = ctx;
  const method = req.method ?? 'GET';
  const def = target.definition;
  switch (method) {
    case 'GET':
      serveList(state, ctx, target);
      return;
    case 'POST': {
      // A namespaced resource's all-namespaces path only lists (go-restful: 405 for built-ins).
      if (def.namespaced && target.namespace === undefined) {
        if (def.custom) throw pathNotFound();
        throw methodNotAllowed(method, def.kind);
      }
      checkWriteOptions('CreateOptions', query);
      const body = parseObjectBody(ctx, def);
      const entry = state.storage.create(target, body, { manager: manager(), dryRun });
      sendObject(ctx, target, 201, entry);
      return;
    }
    case 'DELETE':
      sendList(ctx, target, deleteCollection(state, ctx, target, dryRun), {
        resourceVersion: state.storage.rv,
      });
      return;
    default:
      throw methodNotAllowed(method, def.kind, def.custom);
  }
}

/** One object or its status: GET, PUT, PATCH (including server-side apply) and DELETE. */
export function serveObject(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string,
  subresource: 'status' | undefined,
  { manager, dryRun }: WriteParams,
): void {
  const { req, query } = ctx;
  const method = req.method ?? 'GET';
  const def = target.definition;
  switch (method) {
    case 'GET': {
      checkGetResourceVersion(query.get('resourceVersion'), state.storage.watchCacheRv(def));
      sendObject(ctx, target, 200, state.storage.get(target, name));
      return;
    }
    case 'PUT': {
      checkWriteOptions('UpdateOptions', query);
      const body = parseObjectBody(ctx, def);
      const created = subresource === undefined && state.storage.createsOnUpdate(target, name);
      const entry = state.storage.update(target, name, body, {
        manager: manager(),
        dryRun,
        subresource,
      });
      sendObject(ctx, target, created ? 201 : 200, entry);
      return;
    }
    case 'PATCH': {
      const type = patchTypeOf(ctx, def);
      checkWriteOptions('PatchOptions', query, type);
      const typed = parsePatch(ctx, type);
      const existed =
        state.storage.storeOf(def).get(storeKey(keyNamespace(target), name)) !== undefined;
      const entry = state.storage.patch(target, name, typed, {
        manager: manager(),
        dryRun,
        subresource,
        force: query.get('force') === 'true',
      });
      sendObject(ctx, target, existed ? 200 : 201, entry);
      return;
    }
    case 'DELETE': {
      if (subresource) throw methodNotAllowed('delete', def.kind, def.custom);
      const entry = deleteOne(state, ctx, target, name, dryRun);
      if (entry) sendObject(ctx, target, 200, entry);
      return;
    }
    default:
      throw methodNotAllowed(method, def.kind, def.custom);
  }
}

/**
 * Deletes one object (a DELETE's checks and options, then storage). For an object that is
 * gone, of a kind that does not return the deleted object, sends kube-apiserver's Success
 * Status and answers undefined; otherwise answers the object to send (finalizers pending, a
 * graceful deletion, or a kind that returns the deleted object).
 */
export function deleteOne(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string,
  dryRun: boolean,
): Entry | undefined {
  const def = target.definition;
  checkWriteOptions('DeleteOptions', ctx.query);
  const options = parseDeleteOptions(ctx);
  const { entry, deleted } = state.storage.delete(target, name, {
    ...options,
    dryRun: dryRun || options.dryRun,
  });
  if (!deleted || def.returnDeletedObject) return entry;
  const uid = isObject(entry.obj.metadata) ? entry.obj.metadata.uid : undefined;
  sendJson(
    ctx.res,
    200,
    JSON.stringify(
      success({
        name,
        ...(def.group ? { group: def.group } : {}),
        kind: def.resource,
        ...(typeof uid === 'string' ? { uid } : {}),
      }),
    ),
  );
  return undefined;
}

/** A deletecollection's checks and deletes: answers the objects it deleted, in list order. */
export function deleteCollection(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  dryRun: boolean,
): Entry[] {
  const def = target.definition;
  if (!def.verbs.includes('deletecollection'))
    throw methodNotAllowed('deletecollection', def.kind, def.custom);
  checkWriteOptions('DeleteOptions', ctx.query);
  return state.storage.deleteCollection(target, parseListQuery(ctx.query), dryRun);
}

/** Writes one object in the request's view, at the apiVersion it was asked for. */
export function sendObject(ctx: RequestContext, target: Target, code: number, entry: Entry): void {
  const json = renderObject(entry, apiVersionOf(target.definition.group, target.version), ctx.view);
  const type = preferredMediaType(ctx.req.headers.accept);
  if (type === 'application/yaml') {
    sendYaml(ctx.res, code, json);
    return;
  }
  // Kinds (and fields) the protobuf schema does not cover are answered in JSON.
  const protobuf = type === PROTOBUF ? encodeProtobufObject(JSON.parse(json)) : undefined;
  if (!protobuf) {
    sendJson(ctx.res, code, json);
    return;
  }
  ctx.res.writeHead(code, {
    'Content-Type': PROTOBUF,
    'Cache-Control': 'no-cache, private',
    'Content-Length': protobuf.length,
  });
  ctx.res.end(protobuf);
}
