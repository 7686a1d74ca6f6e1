import { validateCustomStatus } from './crd-schema/custom.js';
import { prepareDataObject } from './data-objects.js';
import { applyDefaults, defaultStatus } from './defaults/builtin.js';
import { asServed, validationGroup } from './event-versions.js';
import { selfOwnedNodes } from './field-shapes.js';
import { recordUpdate } from './fieldmanager.js';
import { rawBodyOf } from './go-decode.js';
import { type Entry, storeKey } from './object-entry.js';
import { comparable, meta, objectName, withoutMetaAndStatus } from './object-meta.js';
import { isObject, type JsonObject, type JsonValue, jsonEqual } from './patch.js';
import { apiVersionOf } from './resources.js';
import { allocateServiceAddresses } from './service-allocation.js';
import { badRequest, invalid } from './status.js';
import { fieldScope, keyNamespace, type Target, type WriteOptions } from './target.js';
import { validateUpdate } from './validation/builtin.js';
import { isEventResource } from './validation/events.js';
import type { VersionedStore } from './versioned-store.js';
import { checkWireTypes } from './wire-decode.js';
import { normaliseWireObject } from './wire-times.js';
import {
  checkKind,
  checkNamespace,
  checkPreconditionRv,
  checkUidOfMissing,
} from './write-checks.js';
import { createObject } from './write-create.js';

/** PUT: replaces an object (or its status). */
export function updateObject(
  store: VersionedStore,
  target: Target,
  name: string,
  body: JsonObject,
  options: WriteOptions,
): Entry {
  const { definition } = target;
  checkKind(target, body, true);
  checkWireTypes(target, rawBodyOf(body));
  normaliseWireObject(target, body);
  const bodyName = objectName(body);
  if (bodyName !== name) {
    throw badRequest(
      `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
    );
  }
  if (options.subresource === undefined && createsOnUpdate(store, target, name)) {
    return createObject(store, target, body, options);
  }
  const obj: JsonObject = { ...body, metadata: { ...meta(body) } };
  if (options.subresource !== 'status') prepareDataObject(target, obj, rawBodyOf(body));
  checkNamespace(target, obj);
  if (!store.storeOf(definition).get(storeKey(keyNamespace(target), name))) {
    checkUidOfMissing(target, name, obj);
  }
  const prev = store.get(target, name);
  // Custom resources' strategy forbids unconditional updates; built-in kinds' allow them.
  if (definition.custom && !meta(obj).resourceVersion) {
    throw invalid(
      definition.resource,
      name,
      [
        {
          field: 'metadata.resourceVersion',
          message: 'Invalid value: 0x0: must be specified for an update',
          reason: 'FieldValueInvalid',
        },
      ],
      definition.group,
    );
  }
  checkPreconditionRv(target, prev, obj);
  const next = prepareUpdate(target, prev, obj, options.subresource);
  if (
    definition.custom === false &&
    definition.resource === 'namespaces' &&
    options.subresource !== 'status'
  ) {
    next.status = prev.obj.status ?? { phase: 'Active' };
  }
  return finishUpdate(store, target, prev, next, options);
}

/**
 * Whether a PUT of `name` creates it: kube-apiserver's Event strategy allows create on update,
 * so a PUT of a missing Event (through either API) is a create, answered 201.
 */
export function createsOnUpdate(store: VersionedStore, target: Target, name: string): boolean {
  if (!isEventResource(target.definition)) return false;
  return store.storeOf(target.definition).get(storeKey(keyNamespace(target), name)) === undefined;
}

/**
 * The object each update's field manager saw, by the update it became: kube-apiserver 1.20
 * records ownership on the decoded, defaulted request before the strategy resets what the
 * endpoint may not change (a `/status` write's spec and labels, a main write's status), so the
 * writer owns what it sent even where it did not take.
 */
const requestedBy = new WeakMap<JsonObject, JsonObject>();

/** Makes `next` an update of `prev`: immutable fields, status handling, generation. */
export function prepareUpdate(
  target: Target,
  prev: Entry,
  body: JsonObject,
  subresource: 'status' | undefined,
): JsonObject {
  const { definition } = target;
  const old = prev.obj;
  let next: JsonObject;
  let requested: JsonObject | undefined;
  if (subresource === 'status') {
    next = { ...old, status: body.status ?? null };
    if (body.status === undefined) delete next.status;
    requested = { ...body, metadata: { ...meta(body) } };
  } else {
    next = { ...body };
    if (definition.status) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
  }
  next.kind = definition.kind;
  next.apiVersion = apiVersionOf(definition.group, target.version);
  next.metadata = { ...meta(next) };
  const md = meta(next);
  const oldMd = meta(old);
  for (const key of [
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'namespace',
    'name',
  ]) {
    for (const target of requested ? [md, meta(requested)] : [md]) {
      if (oldMd[key] === undefined) delete target[key];
      else target[key] = oldMd[key] as JsonValue;
    }
  }
  checkFinalizersWhileDeleting(target, oldMd, md);
  if (subresource !== 'status') {
    prepareDataObject(target, next);
    applyDefaults(definition, next);
    requested = { ...next };
    if (body.status === undefined) delete requested.status;
    else requested.status = body.status;
    // The body's own status, defaulted as the decoder does (a Namespace's phase).
    if (requested.status !== next.status) defaultStatus(definition, requested);
    const problems = validateUpdate(definition, next, old);
    if (problems.length > 0) {
      throw invalid(definition.kind, String(md.name ?? ''), problems, validationGroup(definition));
    }
  }
  if (requested && subresource === 'status') {
    requested.kind = next.kind;
    requested.apiVersion = next.apiVersion;
    if (!definition.custom) applyDefaults(definition, requested);
  }
  if (requested) requestedBy.set(next, requested);
  if (subresource === 'status' && definition.custom) {
    // A custom resource's status is pruned, defaulted and validated as its other writes are.
    applyDefaults(definition, next);
    const problems = validateCustomStatus(definition, next);
    if (problems.length > 0) {
      throw invalid(definition.kind, String(md.name ?? ''), problems, definition.group);
    }
  }
  if (subresource === 'status') {
    md.managedFields = oldMd.managedFields ?? null;
    if (oldMd.managedFields === undefined) delete md.managedFields;
  }
  if (definition.generation) {
    const changed = !jsonEqual(withoutMetaAndStatus(old), withoutMetaAndStatus(next));
    md.generation = ((oldMd.generation as number | undefined) ?? 1) + (changed ? 1 : 0);
  } else {
    delete md.generation;
  }
  return next;
}

/**
 * Commits an update unless it changes nothing (then `prev` is the answer, with no new
 * revision), recording the manager's fields first unless apply already did.
 */
export function finishUpdate(
  store: VersionedStore,
  target: Target,
  prev: Entry,
  next: JsonObject,
  options: WriteOptions,
  fieldsDone = false,
): Entry {
  if (options.subresource !== 'status') {
    allocateServiceAddresses(store, target, next, prev.obj);
  }
  // Compared, and fields recorded, as the request's API shows the object (events.k8s.io).
  const before = asServed(target, prev.obj);
  // A write that changes no value may still change who owns what (an apply: a second manager
  // sharing a field, a manager letting one go; an update: what the body sent and the endpoint
  // did not take): that is a write too.
  const unchanged = jsonEqual(comparable(next), comparable(before));
  const sameOwners = (): boolean => jsonEqual(ownership(next), ownership(before));
  if (unchanged && fieldsDone && sameOwners()) return prev;
  if (!fieldsDone) {
    const requested = requestedBy.get(next);
    // Whether the manager sees what is stored: then a write that changes nothing changes no
    // ownership either. A main write's request differs in its status only.
    const asStored =
      requested === undefined ||
      (options.subresource === 'status'
        ? jsonEqual(comparable(requested), comparable(next))
        : jsonEqual(requested.status, next.status));
    if (unchanged && asStored) return prev;
    recordUpdate(
      before,
      requested ?? next,
      options.manager,
      next.apiVersion as string,
      target.definition.mergeKeys,
      requested ? 'all' : fieldScope(target.definition, options.subresource),
      selfOwnedNodes(target.definition, target.version, 'Update'),
      asStored,
    );
    if (requested) {
      const managed = meta(requested).managedFields;
      if (managed === undefined) delete meta(next).managedFields;
      else meta(next).managedFields = managed;
    }
    if (unchanged && sameOwners()) return prev;
  }
  return store.commit(target, prev, next, options);
}

/** Who owns which fields, without the times of the entries. */
function ownership(obj: JsonObject): JsonValue[] {
  const entries = meta(obj).managedFields;
  return (Array.isArray(entries) ? entries : []).map((entry) => {
    if (!isObject(entry)) return entry;
    const { time: _time, ...rest } = entry;
    return rest;
  });
}

/** An object being deleted may lose finalizers but gain none (422, as kube-apiserver). */
function checkFinalizersWhileDeleting(target: Target, oldMd: JsonObject, md: JsonObject): void {
  if (oldMd.deletionTimestamp === undefined) return;
  const before = Array.isArray(oldMd.finalizers) ? oldMd.finalizers : [];
  const after = Array.isArray(md.finalizers) ? md.finalizers : [];
  const added = after.filter((f) => !before.includes(f));
  if (added.length === 0) return;
  const cause = {
    reason: 'FieldValueForbidden',
    message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
    field: 'metadata.finalizers',
  };
  const { definition } = target;
  const error = invalid(
    definition.kind,
    String(md.name ?? ''),
    [cause],
    definition.custom ? definition.group : '',
  );
  // kube-apiserver 1.20 validates object metadata twice on update and lists the cause twice.
  error.status.details = { ...error.status.details, causes: [cause, cause] };
  throw error;
}
