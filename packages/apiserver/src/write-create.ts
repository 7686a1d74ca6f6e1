import { randomUUID } from 'node:crypto';
import { prepareDataObject } from './data-objects.js';
import { applyDefaults, prepareNewBuiltin } from './defaults/builtin.js';
import { validationGroup } from './event-versions.js';
import { selfOwnedNodes } from './field-shapes.js';
import { recordUpdate } from './fieldmanager.js';
import { rawBodyOf } from './go-decode.js';
import { type Entry, storeKey } from './object-entry.js';
import { meta, objectName, timestamp } from './object-meta.js';
import { isObject, type JsonObject } from './patch.js';
import { apiVersionOf, type ResourceDefinition, resourceKey } from './resources.js';
import { allocateServiceAddresses } from './service-allocation.js';
import { ApiError, alreadyExists, failure, invalid } from './status.js';
import { keyNamespace, type Target, type WriteOptions } from './target.js';
import { validateCreate } from './validation/builtin.js';
import { generateNameSuffix, validateObjectName } from './validation/names.js';
import type { VersionedStore } from './versioned-store.js';
import { checkWireTypes } from './wire-decode.js';
import { normaliseWireObject } from './wire-times.js';
import { checkKind, checkNamespace, requireNamespace } from './write-checks.js';

/** POST: creates an object. */
export function createObject(
  store: VersionedStore,
  target: Target,
  body: JsonObject,
  options: WriteOptions,
): Entry {
  const { definition, version } = target;
  checkKind(target, body, true);
  checkWireTypes(target, rawBodyOf(body));
  // The body is owned by this call (freshly parsed): copy only what is changed in place.
  normaliseWireObject(target, body);
  const obj: JsonObject = {
    ...body,
    metadata: isObject(body.metadata) ? { ...body.metadata } : {},
  };
  obj.kind = definition.kind;
  obj.apiVersion = apiVersionOf(definition.group, version);
  prepareDataObject(target, obj, rawBodyOf(body));
  applyDefaults(definition, obj);
  const md = meta(obj);
  checkNamespace(target, obj);
  requireNamespace(store, target, objectName(obj));
  const generateName = typeof md.generateName === 'string' ? md.generateName : undefined;
  let name = objectName(obj);
  const objects = store.storeOf(definition);
  // As kube-apiserver, the name is generated first and validated with generateName.
  if (!name && generateName) {
    do name = generateNameSuffix(generateName);
    while (objects.get(storeKey(keyNamespace(target), name)));
    md.name = name;
  }
  const problems = validateCreate(
    definition,
    obj,
    validateObjectName(name || undefined, generateName, definition.nameRule),
  );
  if (problems.length > 0) {
    throw invalid(definition.kind, name, problems, validationGroup(definition));
  }
  if (!options.dryRun) checkNoResourceVersion(md);
  if (objects.get(storeKey(keyNamespace(target), name))) {
    throw alreadyExists(definition.resource, name, definition.group);
  }
  md.uid = randomUUID();
  md.creationTimestamp = timestamp();
  delete md.deletionTimestamp;
  delete md.deletionGracePeriodSeconds;
  delete md.resourceVersion;
  delete md.managedFields;
  if (definition.generation) md.generation = 1;
  else delete md.generation;
  // The field manager sees the decoded, defaulted body, whole: what the admission plugins, the
  // create strategy and the address allocator set afterwards is owned by no one.
  recordUpdate(
    undefined,
    obj,
    options.manager,
    obj.apiVersion as string,
    definition.mergeKeys,
    'all',
    selfOwnedNodes(definition, target.version, 'Update'),
  );
  prepareCreate(definition, obj);
  allocateServiceAddresses(store, target, obj);
  return store.commit(target, undefined, obj, options);
}

/**
 * etcd's storage refuses to create an object whose `metadata.resourceVersion` is a number other
 * than 0; kube-apiserver passes that on as a 500 without a reason (1.20 and the releases after
 * it). One that is not a number is ignored.
 */
function checkNoResourceVersion(md: JsonObject): void {
  const rv = md.resourceVersion;
  if (typeof rv === 'string' && /^\d+$/.test(rv) && BigInt(rv) !== 0n) {
    const { reason: _reason, ...status } = failure(
      500,
      '',
      'resourceVersion should not be set on objects to be created',
    );
    throw new ApiError(status);
  }
}

/** Creates the object a server-side apply produced, keeping its Apply managedFields entry. */
export function createApplied(
  store: VersionedStore,
  target: Target,
  obj: JsonObject,
  options: WriteOptions,
): Entry {
  const managed = meta(obj).managedFields;
  const { definition } = target;
  prepareDataObject(target, obj);
  applyDefaults(definition, obj);
  const name = objectName(obj);
  const problems = validateCreate(
    definition,
    obj,
    validateObjectName(name, undefined, definition.nameRule),
  );
  if (problems.length > 0) {
    throw invalid(definition.kind, name, problems, validationGroup(definition));
  }
  requireNamespace(store, target, name);
  const md = meta(obj);
  md.uid = randomUUID();
  md.creationTimestamp = timestamp();
  if (definition.generation) md.generation = 1;
  prepareCreate(definition, obj);
  allocateServiceAddresses(store, target, obj);
  if (managed !== undefined) md.managedFields = managed;
  return store.commit(target, undefined, obj, options);
}

/** What kube-apiserver's create strategies set: status resets and defaults per resource. */
function prepareCreate(definition: ResourceDefinition, obj: JsonObject): void {
  if (
    definition.status &&
    !definition.custom &&
    definition.resource !== 'customresourcedefinitions'
  ) {
    delete obj.status;
  }
  if (definition.custom && definition.status) delete obj.status;
  prepareNewBuiltin(definition, obj);
  const key = resourceKey(definition.group, definition.resource);
  if (key === '/namespaces') {
    obj.spec = { finalizers: ['kubernetes'], ...(isObject(obj.spec) ? obj.spec : {}) };
    obj.status = { phase: 'Active' };
  }
  if (key === 'apiextensions.k8s.io/customresourcedefinitions') {
    const spec = isObject(obj.spec) ? obj.spec : {};
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
    const storage = versions.find((v) => v.storage === true)?.name;
    obj.status = {
      conditions: [
        {
          type: 'NamesAccepted',
          status: 'True',
          lastTransitionTime: timestamp(),
          reason: 'NoConflicts',
          message: 'no conflicts found',
        },
        {
          type: 'Established',
          status: 'True',
          lastTransitionTime: timestamp(),
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
      ],
      acceptedNames: isObject(spec.names) ? spec.names : {},
      storedVersions: storage ? [storage] : [],
    };
  }
}
