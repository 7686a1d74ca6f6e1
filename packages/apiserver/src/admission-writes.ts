import type { AdmissionOperation, AdmissionResource, AdmissionWebhook } from './admission-rules.js';
import { webhooksOf } from './admission-rules.js';
import {
  type AdmissionEnvironment,
  type AdmissionRequestFacts,
  anyWebhookMatches,
  runMutatingWebhooks,
  runValidatingWebhooks,
} from './admission-webhooks.js';
import { conversionWebhookOf, convertObjects } from './conversion-webhooks.js';
import { applyDefaults } from './defaults/builtin.js';
import { asServed } from './event-versions.js';
import type { RequestContext } from './http.js';
import { type Entry, storeKey } from './object-entry.js';
import { meta } from './object-meta.js';
import { clone, isObject, type JsonObject, jsonEqual } from './patch.js';
import { parseDeleteOptions, parseObjectBody, parsePatch, patchTypeOf } from './request-body.js';
import { apiVersionOf } from './resources.js';
import { parseListQuery } from './routes-list-watch.js';
import { sendObject, type WriteParams } from './routes-objects.js';
import type { ServerState } from './server-state.js';
import { keyNamespace, type Target, type WriteOptions } from './target.js';
import { webhookResponseLimit } from './webhook-client.js';

const GROUP = 'admissionregistration.k8s.io';

/** The webhooks of every stored configuration of `resource` (mutating or validating). */
function storedWebhooks(state: ServerState, resource: string): AdmissionWebhook[] {
  const definition = state.storage.registry.find(GROUP, resource);
  if (!definition) return [];
  return webhooksOf([...state.storage.storeOf(definition).entries(undefined)].map((e) => e.obj));
}

/** The server's side of admission for requests on `target`. */
function environment(state: ServerState, target: Target): AdmissionEnvironment {
  const { definition } = target;
  return {
    namespaceLabels: (name) => {
      const namespaces = state.storage.registry.find('', 'namespaces');
      const ns = namespaces && state.storage.storeOf(namespaces).get(storeKey('', name));
      if (!ns) return undefined;
      const labels = meta(ns.obj).labels;
      return isObject(labels) ? (labels as Record<string, string>) : {};
    },
    equivalents: (resource) =>
      definition.versions
        .filter((version) => version !== resource.version)
        .map((version) => ({ group: definition.group, version, resource: definition.resource })),
    kindAt: (resource) => ({
      group: resource.group,
      version: resource.version,
      kind: definition.kind,
    }),
    convert: async (obj, resource) => {
      const conversion = conversionWebhookOf(state, definition);
      if (conversion)
        return (await convertObjects(conversion, [obj], resource.version))[0] as JsonObject;
      return { ...obj, apiVersion: apiVersionOf(resource.group, resource.version) };
    },

    defaults: (obj) => {
      if (!definition.custom) applyDefaults(definition, obj);
    },
    // An answer carries at most one object: the patch of the object sent.
    maxResponseBytes: webhookResponseLimit(state.maxRequestBytes, 1),
  };
}

/** The `kind` of the review's `options`, with the request's dry run and field manager. */
function reviewOptions(kind: string, ctx: RequestContext, dryRun: boolean): JsonObject {
  const fieldManager = ctx.query.get('fieldManager');
  return {
    kind,
    apiVersion: 'meta.k8s.io/v1',
    ...(dryRun ? { dryRun: ['All'] } : {}),
    ...(fieldManager ? { fieldManager } : {}),
  };
}

/**
 * How a create or update reaches storage and how the request's version shows a stored object:
 * directly (the default), or through a custom resource's conversion webhook.
 */
export interface StorageWrites {
  write(operation: 'CREATE' | 'UPDATE', obj: JsonObject, options: WriteOptions): Promise<Entry>;
  view(obj: JsonObject): Promise<JsonObject>;
  send(code: number, entry: Entry): Promise<void>;
}

/**
 * A write (create, update, patch, delete) on a resource some admission webhook's rules match,
 * run as kube-apiserver 1.20 runs it: the mutating webhooks on the decoded and defaulted
 * object, then the server's own checks, then the validating webhooks, then the write. Answers
 * false (nothing sent) when no webhook applies, or for a delete once the webhooks allowed it:
 * the ordinary path then serves the request. With `writes` (a conversion webhook's), a create or
 * update is always served here, through them.
 */
export async function serveAdmittedWrite(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string | undefined,
  subresource: 'status' | undefined,
  params: WriteParams,
  writes?: StorageWrites,
): Promise<boolean> {
  const { definition } = target;
  // kube-apiserver never sends webhook configurations themselves to webhooks.
  if (definition.group === GROUP) return false;
  const method = ctx.req.method ?? 'GET';
  const operation = operationOf(method, name);
  if (!operation) return false;
  const mutating = storedWebhooks(state, 'mutatingwebhookconfigurations');
  const validating = storedWebhooks(state, 'validatingwebhookconfigurations');
  const env = environment(state, target);
  const resource: AdmissionResource = {
    group: definition.group,
    version: target.version,
    resource: definition.resource,
  };
  const isNamespace = definition.group === '' && definition.resource === 'namespaces';
  const namespace = isNamespace ? (name ?? '') : (target.namespace ?? '');
  const probe = { operation, resource, subresource: subresource ?? '', namespace };
  const rulesMatch = (hooks: AdmissionWebhook[], op: AdmissionOperation): boolean =>
    anyWebhookMatches(hooks, { ...probe, operation: op, object: null, oldObject: null }, env);
  // A patch may turn out to be a create (apply of a missing object).
  const couldCreate = method === 'PATCH' && rulesMatch([...mutating, ...validating], 'CREATE');
  const converting = writes !== undefined && (method === 'POST' || method === 'PUT');
  if (!rulesMatch([...mutating, ...validating], operation) && !couldCreate && !converting) {
    return false;
  }

  const existing =
    name === undefined
      ? undefined
      : state.storage.storeOf(definition).get(storeKey(keyNamespace(target), name));
  const served = (obj: JsonObject): JsonObject => ({
    ...asServed(target, obj),
    apiVersion: apiVersionOf(definition.group, target.version),
  });
  const storage: StorageWrites = writes ?? {
    write: async (op, obj, options) =>
      op === 'CREATE'
        ? state.storage.create(target, obj, options)
        : state.storage.update(target, name as string, obj, options),
    view: async (obj) => served(obj),
    send: async (code, entry) => sendObject(ctx, target, code, entry),
  };
  const oldView = existing ? await storage.view(existing.obj) : null;
  const facts = (
    op: AdmissionOperation,
    object: JsonObject | null,
    optionsKind: string,
  ): AdmissionRequestFacts => ({
    ...probe,
    operation: op,
    kind: { group: definition.group, version: target.version, kind: definition.kind },
    name: name ?? (object ? String(meta(object).name ?? '') : ''),
    dryRun: params.dryRun,
    options: reviewOptions(optionsKind, ctx, params.dryRun),
    object,
    oldObject: op !== 'CREATE' ? oldView : null,
  });
  const headers: string[] = [];
  const warn = (warnings: string[]): void => {
    for (const w of warnings) headers.push(`299 - ${JSON.stringify(w)}`);
    if (headers.length > 0) ctx.res.setHeader('Warning', headers);
  };
  const options = { manager: params.manager(), subresource };

  if (operation === 'DELETE') {
    const deleteOptions = parseDeleteOptions(ctx);
    const dryRun = params.dryRun || deleteOptions.dryRun;
    // A deletecollection deletes, and so admits, each object its selectors list.
    const { labelSelector, fieldSelector } = parseListQuery(ctx.query);
    const victims =
      name === undefined
        ? state.storage.list(target, { labelSelector, fieldSelector }).items
        : existing
          ? [existing]
          : [];
    for (const victim of victims) {
      const review: AdmissionRequestFacts = {
        ...facts('DELETE', null, 'DeleteOptions'),
        // 1.20 names no object in a deletecollection's reviews, only their old objects.
        name: name === undefined ? '' : victim.name,
        namespace: isNamespace ? victim.name : victim.namespace || namespace,
        oldObject: await storage.view(victim.obj),
        dryRun,
      };
      warn((await runMutatingWebhooks(mutating, review, env)).warnings);
      warn(await runValidatingWebhooks(validating, review, env));
    }
    return false;
  }

  if (method === 'POST' || method === 'PUT') {
    if (method === 'PUT' && !existing) return false;
    const body = parseObjectBody(ctx, definition);
    const decoded = clone(body);
    decoded.apiVersion ??= apiVersionOf(definition.group, target.version);
    decoded.kind ??= definition.kind;
    if (definition.namespaced && target.namespace !== undefined) {
      decoded.metadata = { ...meta(decoded), namespace: target.namespace };
    }
    // Go's decoding leaves out an empty name (omitempty), as it is before generateName's.
    if (meta(decoded).name === '') delete meta(decoded).name;
    if (!definition.custom) applyDefaults(definition, decoded);
    const optionsKind = operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions';
    const mutated = await runMutatingWebhooks(
      mutating,
      facts(operation, decoded, optionsKind),
      env,
    );
    warn(mutated.warnings);
    const object = mutated.object ?? decoded;
    const write = (dryRun: boolean): Promise<Entry> =>
      storage.write(operation as 'CREATE' | 'UPDATE', clone(object), { ...options, dryRun });
    const checked = await write(true);
    warn(
      await runValidatingWebhooks(
        validating,
        facts(operation, await storage.view(checked.obj), optionsKind),
        env,
      ),
    );
    // The name the checked write generated is the one the webhooks saw.
    if (operation === 'CREATE') object.metadata = { ...meta(object), name: checked.name };
    const entry = params.dryRun ? checked : await write(false);
    await storage.send(operation === 'CREATE' ? 201 : 200, entry);
    return true;
  }

  // PATCH: the patched object (checked as the write would) goes to the webhooks.
  const typed = parsePatch(ctx, patchTypeOf(ctx, target.definition));
  const patchOptions = { ...options, force: ctx.query.get('force') === 'true' };
  const patched = state.storage.patch(target, name as string, typed, {
    ...patchOptions,
    dryRun: true,
  });
  const op: AdmissionOperation = existing ? 'UPDATE' : 'CREATE';
  const optionsKind = existing ? 'UpdateOptions' : 'CreateOptions';
  const before = served(patched.obj);
  const mutated = await runMutatingWebhooks(mutating, facts(op, before, optionsKind), env);
  warn(mutated.warnings);
  const object = mutated.object ?? before;
  // A webhook's change is written as an update of the patched object.
  const changed = !jsonEqual(object, before);
  const write = (dryRun: boolean): Entry => {
    if (!changed)
      return state.storage.patch(target, name as string, typed, { ...patchOptions, dryRun });
    if (!existing) return state.storage.create(target, clone(object), { ...options, dryRun });
    const update = clone(object);
    update.metadata = { ...meta(update), resourceVersion: String(existing.rv) };
    return state.storage.update(target, name as string, update, { ...options, dryRun });
  };
  const checked = changed ? write(true) : patched;
  warn(await runValidatingWebhooks(validating, facts(op, served(checked.obj), optionsKind), env));
  const entry = params.dryRun ? checked : write(false);
  sendObject(ctx, target, existing ? 200 : 201, entry);
  return true;
}

function operationOf(method: string, name: string | undefined): AdmissionOperation | undefined {
  if (name === undefined) {
    return method === 'POST' ? 'CREATE' : method === 'DELETE' ? 'DELETE' : undefined;
  }
  switch (method) {
    case 'PUT':
    case 'PATCH':
      return 'UPDATE';
    case 'DELETE':
      return 'DELETE';
    default:
      return undefined;
  }
}
