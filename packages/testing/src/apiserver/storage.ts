import { randomUUID } from 'node:crypto';
import {
  type FieldSelector,
  fieldsFromObject,
  type KubeObject,
  parseFieldSelector,
  parseSelector,
  type Selector,
} from '@kubets/apimachinery';
import {
  ApplyConflictError,
  applyConfiguration,
  describeConflictOwner,
  type FieldScope,
  recordUpdate,
} from './fieldmanager.js';
import {
  clone,
  isObject,
  type JsonObject,
  type JsonValue,
  jsonEqual,
  jsonPatch,
  mergePatch,
  PatchError,
  strategicMergePatch,
} from './patch.js';
import {
  apiVersionOf,
  definitionFromCrd,
  type ResourceDefinition,
  ResourceRegistry,
  resourceKey,
} from './resources.js';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  failure,
  invalid,
  notFound,
  OBJECT_MODIFIED,
  resourceExpired,
  unsupportedMediaType,
} from './status.js';
import {
  compareKeys,
  type Entry,
  lowerBound,
  makeEntry,
  ResourceStore,
  storeKey,
} from './store.js';
import { generateNameSuffix, validateObjectName } from './validation.js';

/** Where a request points: resource, version and namespace. */
export interface Target {
  readonly definition: ResourceDefinition;
  readonly version: string;
  /** The namespace from the URL; undefined for cluster-scoped resources and all-namespace lists. */
  readonly namespace: string | undefined;
}

/** Options every write takes. */
export interface WriteOptions {
  /** The field manager recorded in managedFields. */
  manager: string;
  /** `dryRun=All`: validate and answer, store nothing. */
  dryRun?: boolean;
  /** `status` for writes to the status subresource. */
  subresource?: 'status' | undefined;
}

/** The patch content types the server understands. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** Query parameters of a list. */
export interface ListQuery {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: number | undefined;
  continue?: string | undefined;
  resourceVersion?: string | undefined;
  resourceVersionMatch?: string | undefined;
}

/** A list result: entries in key order, the list's resourceVersion and paging data. */
export interface ListResult {
  items: Entry[];
  resourceVersion: number;
  continue?: string;
  remainingItemCount?: number;
}

/** Parsed selectors of a list or watch. */
export interface Selection {
  labels: Selector | undefined;
  fields: FieldSelector | undefined;
  /** Extra field paths the field selector may use for this resource. */
  fieldPaths: readonly string[];
}

const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
const NOT_AN_OBJECT = 'json: cannot unmarshal array into Go value of type map[string]interface {}';
const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';

/** Field-selector fields each resource supports beyond `metadata.name` and `metadata.namespace`. */
const FIELD_PATHS: Record<string, readonly string[]> = {
  '/pods': [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  '/events': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
  '/nodes': ['spec.unschedulable'],
  'apps/replicasets': ['status.replicas'],
};

/** RFC 3339 with seconds, as the API server writes timestamps. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const METADATA_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'clusterName',
  'managedFields',
];

/** Puts kind, apiVersion and metadata first and metadata's fields in the server's order. */
function normalise(obj: JsonObject): JsonObject {
  const metadata = isObject(obj.metadata) ? obj.metadata : {};
  const orderedMeta: JsonObject = {};
  for (const key of METADATA_ORDER)
    if (metadata[key] !== undefined) orderedMeta[key] = metadata[key];
  for (const [key, value] of Object.entries(metadata)) {
    if (!(key in orderedMeta) && value !== undefined) orderedMeta[key] = value;
  }
  const out: JsonObject = { kind: obj.kind ?? null, apiVersion: obj.apiVersion ?? null };
  out.metadata = orderedMeta;
  for (const [key, value] of Object.entries(obj)) {
    if (key !== 'kind' && key !== 'apiVersion' && key !== 'metadata' && value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

function meta(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as JsonObject;
}

function withoutMetaAndStatus(obj: JsonObject): JsonObject {
  const { metadata: _m, status: _s, ...rest } = obj;
  return rest;
}

function comparable(obj: JsonObject): JsonObject {
  const md = { ...meta(obj) };
  delete md.resourceVersion;
  delete md.managedFields;
  return { ...obj, metadata: md };
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data at input byte 0');
  }
  if (
    !isObject(parsed) ||
    parsed.v !== 'meta.k8s.io/v1' ||
    typeof parsed.rv !== 'number' ||
    typeof parsed.start !== 'string'
  ) {
    throw badRequest(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
  return { rv: parsed.rv, start: parsed.start };
}

/** Hooks the server installs to hear about registry changes (CRDs) and removed resources. */
export interface StorageHooks {
  /** Called when a resource stops being served: its watches must end. */
  resourceRemoved?(store: ResourceStore): void;
}

/** The object storage and REST semantics of the in-memory API server. */
export class ApiStorage {
  readonly registry: ResourceRegistry;
  readonly #stores = new Map<string, ResourceStore>();
  readonly #historySize: number;
  readonly hooks: StorageHooks = {};
  /** The global resourceVersion: the revision of the last write. */
  rv = 0;

  constructor(options: { historySize: number }) {
    this.#historySize = options.historySize;
    this.registry = new ResourceRegistry();
    for (const definition of this.#allDefinitions()) this.#ensureStore(definition, 0);
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      this.create(
        this.#target('', 'v1', 'namespaces', undefined),
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        { manager: 'kube-apiserver' },
      );
    }
  }

  #allDefinitions(): ResourceDefinition[] {
    const out: ResourceDefinition[] = [];
    for (const group of ['', ...this.registry.groups()]) {
      for (const version of this.registry.versionsOf(group)) {
        for (const d of this.registry.resourcesOf(group, version))
          if (!out.includes(d)) out.push(d);
      }
    }
    return out;
  }

  #target(group: string, version: string, resource: string, namespace: string | undefined): Target {
    const definition = this.registry.lookup(group, version, resource);
    if (!definition) throw new Error(`unknown resource ${group}/${version}/${resource}`);
    return { definition, version, namespace };
  }

  #ensureStore(definition: ResourceDefinition, floor: number): ResourceStore {
    const key = resourceKey(definition.group, definition.resource);
    let store = this.#stores.get(key);
    if (!store) {
      store = new ResourceStore(definition, this.#historySize, floor);
      this.#stores.set(key, store);
    }
    return store;
  }

  /** The store of a served resource. */
  storeOf(definition: ResourceDefinition): ResourceStore {
    return this.#ensureStore(definition, this.rv);
  }

  /** Every resource store. */
  stores(): ResourceStore[] {
    return [...this.#stores.values()];
  }

  /**
   * Forgets the history of every resource and moves the compaction point past the current
   * revision: watches from, continue tokens of and exact lists at any earlier resourceVersion
   * get 410 Gone/Expired.
   */
  compact(): void {
    this.rv++;
    for (const store of this.#stores.values()) store.compact(this.rv);
  }

  /** Renders an entry at the apiVersion of the request (custom resources may differ). */
  render(entry: Entry, target: Target): string {
    const apiVersion = apiVersionOf(target.definition.group, target.version);
    if (entry.obj.apiVersion === apiVersion) return entry.json;
    return JSON.stringify({ ...entry.obj, apiVersion });
  }

  #requireNamespace(target: Target): void {
    const { definition, namespace } = target;
    if (!definition.namespaced || namespace === undefined) return;
    const nsStore = this.#stores.get(resourceKey('', 'namespaces'));
    if (!nsStore?.get(namespace)) throw notFound('namespaces', namespace);
  }

  #name(obj: JsonObject): string {
    const name = meta(obj).name;
    return typeof name === 'string' ? name : '';
  }

  #checkKind(target: Target, body: JsonObject): void {
    const { definition, version } = target;
    const apiVersion = apiVersionOf(definition.group, version);
    const kind = body.kind;
    const bodyVersion = body.apiVersion;
    if (kind === undefined && bodyVersion === undefined) return;
    if (kind !== definition.kind || bodyVersion !== apiVersion) {
      if (typeof kind !== 'string' || kind === '') {
        throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
      }
      throw badRequest(
        `${kind} in version ${JSON.stringify(typeof bodyVersion === 'string' ? bodyVersion.split('/').pop() : '')} cannot be handled as a ${definition.kind}: no kind "${kind}" is registered for version "${String(bodyVersion)}" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`,
      );
    }
  }

  #checkNamespace(target: Target, obj: JsonObject): void {
    const md = meta(obj);
    if (!target.definition.namespaced) {
      delete md.namespace;
      return;
    }
    const bodyNs = md.namespace;
    if (bodyNs !== undefined && bodyNs !== '' && bodyNs !== target.namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    md.namespace = target.namespace ?? '';
  }

  /** GET one object. */
  get(target: Target, name: string): Entry {
    const { definition } = target;
    const entry = this.storeOf(definition).get(storeKey(this.#ns(target), name));
    if (!entry) throw notFound(definition.resource, name, definition.group);
    return entry;
  }

  #ns(target: Target): string {
    return target.definition.namespaced ? (target.namespace ?? '') : '';
  }

  /** POST: creates an object. */
  create(target: Target, body: JsonObject, options: WriteOptions): Entry {
    const { definition, version } = target;
    this.#checkKind(target, body);
    // The body is owned by this call (freshly parsed): copy only what is changed in place.
    const obj: JsonObject = {
      ...body,
      metadata: isObject(body.metadata) ? { ...body.metadata } : {},
    };
    obj.kind = definition.kind;
    obj.apiVersion = apiVersionOf(definition.group, version);
    const md = meta(obj);
    this.#checkNamespace(target, obj);
    const generateName = typeof md.generateName === 'string' ? md.generateName : undefined;
    let name = this.#name(obj);
    const problems = validateObjectName(name || undefined, generateName, definition.nameRule);
    if (problems.length > 0) {
      throw invalid(definition.kind, name, problems, definition.custom ? definition.group : '');
    }
    this.#requireNamespace(target);
    const store = this.storeOf(definition);
    if (!name && generateName) {
      do name = generateNameSuffix(generateName);
      while (store.get(storeKey(this.#ns(target), name)));
      md.name = name;
    }
    if (store.get(storeKey(this.#ns(target), name))) {
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
    this.#prepareCreate(definition, obj);
    recordUpdate(
      undefined,
      obj,
      options.manager,
      obj.apiVersion as string,
      definition.mergeKeys,
      definition.status ? 'main' : 'all',
    );
    return this.#commit(target, undefined, obj, options);
  }

  #prepareCreate(definition: ResourceDefinition, obj: JsonObject): void {
    if (
      definition.status &&
      !definition.custom &&
      definition.resource !== 'customresourcedefinitions'
    ) {
      delete obj.status;
    }
    if (definition.custom && definition.status) delete obj.status;
    const key = resourceKey(definition.group, definition.resource);
    if (key === '/pods') obj.status = { phase: 'Pending', qosClass: 'BestEffort' };
    if (key === '/namespaces') {
      obj.spec = { finalizers: ['kubernetes'], ...(isObject(obj.spec) ? obj.spec : {}) };
      obj.status = { phase: 'Active' };
    }
    if (
      definition.group === 'apps' &&
      definition.resource !== 'daemonsets' &&
      definition.resource !== 'controllerrevisions'
    ) {
      const spec = isObject(obj.spec) ? obj.spec : {};
      if (spec.replicas === undefined) spec.replicas = 1;
      obj.spec = spec;
      obj.status = {};
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

  /** Stores `next` (prepared) over `prev`: resourceVersion, event, CRD side effects. */
  #commit(target: Target, prev: Entry | undefined, next: JsonObject, options: WriteOptions): Entry {
    const { definition } = target;
    const store = this.storeOf(definition);
    const md = meta(next);
    // An object being deleted goes away once its last finalizer is removed.
    if (
      prev &&
      md.deletionTimestamp !== undefined &&
      (!Array.isArray(md.finalizers) || md.finalizers.length === 0)
    ) {
      if (options.dryRun) return prev;
      return this.#remove(target, prev, next);
    }
    const rv = options.dryRun ? (prev?.rv ?? 0) : ++this.rv;
    md.resourceVersion = String(rv);
    const normalised = normalise(next);
    const entry = makeEntry(normalised, this.#ns(target), this.#name(normalised), rv);
    if (options.dryRun) return entry;
    store.put(entry, prev ? 'MODIFIED' : 'ADDED', prev);
    if (
      definition.group === 'apiextensions.k8s.io' &&
      definition.resource === 'customresourcedefinitions'
    ) {
      this.#crdChanged(prev?.obj, normalised);
    }
    return entry;
  }

  #remove(target: Target, prev: Entry, last: JsonObject): Entry {
    const store = this.storeOf(target.definition);
    const rv = ++this.rv;
    const obj = normalise({ ...last, metadata: { ...meta(last), resourceVersion: String(rv) } });
    const tombstone = makeEntry(obj, prev.namespace, prev.name, rv);
    store.remove(prev, tombstone);
    const { definition } = target;
    if (
      definition.group === 'apiextensions.k8s.io' &&
      definition.resource === 'customresourcedefinitions'
    ) {
      this.#crdChanged(prev.obj, undefined);
    }
    if (definition.group === '' && definition.resource === 'namespaces') {
      for (const other of this.#stores.values()) {
        if (!other.definition.namespaced) continue;
        for (const entry of [...other.entries(prev.name)]) {
          this.#remove(
            {
              definition: other.definition,
              version: other.definition.versions[0] ?? 'v1',
              namespace: prev.name,
            },
            entry,
            entry.obj,
          );
        }
      }
    }
    return tombstone;
  }

  #crdChanged(before: JsonObject | undefined, after: JsonObject | undefined): void {
    const oldDef = before ? definitionFromCrd(before) : undefined;
    const newDef = after ? definitionFromCrd(after) : undefined;
    if (
      oldDef &&
      (!newDef || oldDef.group !== newDef.group || oldDef.resource !== newDef.resource)
    ) {
      const key = resourceKey(oldDef.group, oldDef.resource);
      const store = this.#stores.get(key);
      if (store) {
        for (const entry of [...store.entries(undefined)]) {
          this.#remove(
            {
              definition: store.definition,
              version: oldDef.versions[0] ?? 'v1',
              namespace: entry.namespace || undefined,
            },
            entry,
            entry.obj,
          );
        }
        this.hooks.resourceRemoved?.(store);
        this.#stores.delete(key);
      }
      this.registry.remove(oldDef.group, oldDef.resource);
    }
    if (newDef) {
      if (oldDef) this.registry.remove(oldDef.group, oldDef.resource);
      this.registry.add(newDef);
      const existing = this.#stores.get(resourceKey(newDef.group, newDef.resource));
      if (existing) {
        existing.definition = newDef;
      } else {
        this.#ensureStore(newDef, this.rv);
      }
    }
  }

  #checkPreconditionRv(target: Target, prev: Entry, obj: JsonObject): void {
    const rv = meta(obj).resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== String(prev.rv)) {
      throw conflict(
        target.definition.resource,
        prev.name,
        OBJECT_MODIFIED,
        target.definition.group,
      );
    }
  }

  /** Makes `next` an update of `prev`: immutable fields, status handling, generation. */
  #prepareUpdate(
    target: Target,
    prev: Entry,
    body: JsonObject,
    subresource: 'status' | undefined,
  ): JsonObject {
    const { definition } = target;
    const old = prev.obj;
    let next: JsonObject;
    if (subresource === 'status') {
      next = { ...old, status: body.status ?? null };
      if (body.status === undefined) delete next.status;
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
      if (oldMd[key] === undefined) delete md[key];
      else md[key] = oldMd[key] as JsonValue;
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

  #finishUpdate(
    target: Target,
    prev: Entry,
    next: JsonObject,
    options: WriteOptions,
    fieldsDone = false,
  ): Entry {
    if (jsonEqual(comparable(next), comparable(prev.obj))) return prev;
    if (!fieldsDone) {
      const scope: FieldScope =
        options.subresource === 'status' ? 'status' : target.definition.status ? 'main' : 'all';
      recordUpdate(
        prev.obj,
        next,
        options.manager,
        next.apiVersion as string,
        target.definition.mergeKeys,
        scope,
      );
    }
    return this.#commit(target, prev, next, options);
  }

  /** PUT: replaces an object (or its status). */
  update(target: Target, name: string, body: JsonObject, options: WriteOptions): Entry {
    const { definition } = target;
    this.#checkKind(target, body);
    const bodyName = this.#name(body);
    if (bodyName !== name) {
      throw badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      );
    }
    const obj: JsonObject = { ...body, metadata: { ...meta(body) } };
    this.#checkNamespace(target, obj);
    const prev = this.get(target, name);
    this.#checkPreconditionRv(target, prev, obj);
    const next = this.#prepareUpdate(target, prev, obj, options.subresource);
    if (
      definition.custom === false &&
      definition.resource === 'namespaces' &&
      options.subresource !== 'status'
    ) {
      next.status = prev.obj.status ?? { phase: 'Active' };
    }
    return this.#finishUpdate(target, prev, next, options);
  }

  /** PATCH (json, merge, strategic or apply). Apply creates the object when it is missing. */
  patch(
    target: Target,
    name: string,
    type: PatchType,
    patch: JsonValue,
    options: WriteOptions & { force?: boolean },
  ): Entry {
    const { definition } = target;
    if (type === 'strategic' && definition.custom) {
      throw unsupportedMediaType('application/strategic-merge-patch+json');
    }
    const existing = this.storeOf(definition).get(storeKey(this.#ns(target), name));
    if (type === 'apply') return this.#apply(target, name, existing, patch, options);
    if (!existing) throw notFound(definition.resource, name, definition.group);
    const patched = this.applyPatchToValue(existing.obj, type, patch, definition);
    if (!isObject(patched)) throw badRequest('the patch did not produce an object');
    const patchedMd = meta(patched);
    if (patchedMd.name !== undefined && patchedMd.name !== name) {
      throw badRequest(
        `the name of the object (${String(patchedMd.name)}) does not match the name on the URL (${name})`,
      );
    }
    this.#checkKind(target, patched);
    this.#checkNamespace(target, patched);
    this.#checkPreconditionRv(target, existing, patched);
    const next = this.#prepareUpdate(target, existing, patched, options.subresource);
    return this.#finishUpdate(target, existing, next, options);
  }

  /** Applies a json, merge or strategic patch (apply is treated as merge) to a value. */
  applyPatchToValue(
    base: JsonObject,
    type: PatchType,
    patch: JsonValue,
    definition: ResourceDefinition,
  ): JsonValue {
    try {
      switch (type) {
        case 'json':
          return jsonPatch(base, patch);
        case 'merge':
        case 'apply':
          if (!isObject(patch)) throw new PatchError(NOT_AN_OBJECT, 400);
          return mergePatch(base, patch);
        default:
          if (!isObject(patch)) throw new PatchError(NOT_AN_OBJECT, 400);
          return strategicMergePatch(base, patch, definition.mergeKeys) ?? {};
      }
    } catch (error) {
      if (error instanceof PatchError) {
        throw new ApiError(
          failure(error.code, error.code === 400 ? 'BadRequest' : 'Invalid', error.message),
        );
      }
      throw error;
    }
  }

  /** The 409 Conflict of a stale resourceVersion on `name`. */
  conflictFor(target: Target, name: string): ApiError {
    return conflict(target.definition.resource, name, OBJECT_MODIFIED, target.definition.group);
  }

  #apply(
    target: Target,
    name: string,
    existing: Entry | undefined,
    patch: JsonValue,
    options: WriteOptions & { force?: boolean },
  ): Entry {
    const { definition } = target;
    if (!isObject(patch)) throw badRequest('the apply configuration must be an object');
    if (patch.kind === undefined || patch.apiVersion === undefined) {
      throw badRequest(
        `invalid object type: ${String(patch.apiVersion ?? '')}, Kind=${String(patch.kind ?? '')}`,
      );
    }
    this.#checkKind(target, patch);
    const config = clone(patch);
    const configMd = meta(config);
    if (configMd.name !== undefined && configMd.name !== name) {
      throw badRequest(
        `the name of the object (${String(configMd.name)}) does not match the name on the URL (${name})`,
      );
    }
    configMd.name = name;
    this.#checkNamespace(target, config);
    const apiVersion = apiVersionOf(definition.group, target.version);
    const scope: FieldScope =
      options.subresource === 'status' ? 'status' : definition.status ? 'main' : 'all';
    const applyOrThrow = (live: JsonObject | undefined): JsonObject => {
      try {
        return applyConfiguration(
          live,
          config,
          options.manager,
          apiVersion,
          definition.mergeKeys,
          scope,
          options.force === true,
        );
      } catch (error) {
        if (error instanceof ApplyConflictError) {
          throw new ApiError(
            failure(409, 'Conflict', error.message, {
              causes: error.conflicts.map((c) => ({
                reason: 'FieldManagerConflict',
                message: `conflict with ${describeConflictOwner(c)}`,
                field: describePathFor(c.path),
              })),
            }),
          );
        }
        throw error;
      }
    };
    if (!existing) {
      const created = applyOrThrow(undefined);
      // Create keeps the apply entry rather than recording an Update.
      return this.#createApplied(target, created, options);
    }
    this.#checkPreconditionRv(target, existing, config);
    const merged = applyOrThrow(existing.obj);
    const next = this.#prepareUpdate(target, existing, merged, options.subresource);
    meta(next).managedFields = meta(merged).managedFields ?? null;
    if (meta(merged).managedFields === undefined) delete meta(next).managedFields;
    return this.#finishUpdate(target, existing, next, options, true);
  }

  #createApplied(target: Target, obj: JsonObject, options: WriteOptions): Entry {
    const managed = meta(obj).managedFields;
    const { definition } = target;
    const name = this.#name(obj);
    const problems = validateObjectName(name, undefined, definition.nameRule);
    if (problems.length > 0) throw invalid(definition.kind, name, problems);
    this.#requireNamespace(target);
    const md = meta(obj);
    md.uid = randomUUID();
    md.creationTimestamp = timestamp();
    if (definition.generation) md.generation = 1;
    this.#prepareCreate(definition, obj);
    if (managed !== undefined) md.managedFields = managed;
    return this.#commit(target, undefined, obj, options);
  }

  /** DELETE one object. Returns the object and whether it is gone (false: finalizers pending). */
  delete(
    target: Target,
    name: string,
    options: { preconditions?: { uid?: string; resourceVersion?: string }; dryRun?: boolean },
  ): { entry: Entry; deleted: boolean } {
    const { definition } = target;
    const prev = this.get(target, name);
    const md = meta(prev.obj);
    const pre = options.preconditions;
    const preconditionFailed = (message: string): ApiError =>
      new ApiError(
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${definition.kind} "${name}": ${message}`,
          {
            name,
            ...(definition.custom ? { group: definition.group } : {}),
            kind: definition.kind,
          },
        ),
      );
    if (pre?.uid !== undefined && pre.uid !== md.uid) {
      throw preconditionFailed(
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${String(md.uid)}). The object might have been deleted and then recreated`,
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== md.resourceVersion) {
      throw preconditionFailed(
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(md.resourceVersion)}). The object might have been modified`,
      );
    }
    const finalizers = Array.isArray(md.finalizers) ? md.finalizers : [];
    const isNamespace = definition.group === '' && definition.resource === 'namespaces';
    if (finalizers.length > 0 && !isNamespace) {
      if (md.deletionTimestamp !== undefined) return { entry: prev, deleted: false };
      const next: JsonObject = { ...prev.obj, metadata: { ...meta(prev.obj) } };
      const nextMd = meta(next);
      nextMd.deletionTimestamp = timestamp();
      nextMd.deletionGracePeriodSeconds = 0;
      const entry = this.#commit(target, prev, next, {
        manager: '',
        dryRun: options.dryRun === true,
      });
      return { entry, deleted: false };
    }
    if (options.dryRun) return { entry: prev, deleted: true };
    if (isNamespace) {
      const last: JsonObject = { ...prev.obj, metadata: { ...meta(prev.obj) } };
      meta(last).deletionTimestamp = timestamp();
      last.status = { phase: 'Terminating' };
      this.#remove(target, prev, last);
      return { entry: makeEntry(normalise(last), '', name, prev.rv), deleted: true };
    }
    this.#remove(target, prev, prev.obj);
    return { entry: prev, deleted: true };
  }

  /** Parses and checks the selectors of a list or watch. */
  selection(
    target: Target,
    query: { labelSelector?: string | undefined; fieldSelector?: string | undefined },
  ): Selection {
    const { definition } = target;
    const fieldPaths = FIELD_PATHS[resourceKey(definition.group, definition.resource)] ?? [];
    let labels: Selector | undefined;
    let fields: FieldSelector | undefined;
    if (query.labelSelector) {
      try {
        labels = parseSelector(query.labelSelector);
      } catch (error) {
        throw badRequest(`unable to parse requirement: ${(error as Error).message}`);
      }
      if (labels.empty()) labels = undefined;
    }
    if (query.fieldSelector) {
      try {
        fields = parseFieldSelector(query.fieldSelector);
      } catch (error) {
        throw badRequest(`invalid field selector: ${(error as Error).message}`);
      }
      for (const requirement of fields.requirements()) {
        const known =
          requirement.field === 'metadata.name' ||
          requirement.field === 'metadata.namespace' ||
          fieldPaths.includes(requirement.field);
        if (!known) {
          throw badRequest(
            `"${requirement.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
          );
        }
      }
      if (fields.empty()) fields = undefined;
    }
    return { labels, fields, fieldPaths };
  }

  /** LIST with selectors, paging and resourceVersion semantics of kube-apiserver 1.20. */
  list(target: Target, query: ListQuery): ListResult {
    const store = this.storeOf(target.definition);
    const selection = this.selection(target, query);
    const namespace = target.definition.namespaced ? target.namespace : undefined;
    const { resourceVersion, resourceVersionMatch } = query;
    let limit = query.limit && query.limit > 0 ? query.limit : undefined;
    let atRv = this.rv;
    let start = '';
    if (resourceVersionMatch !== undefined && resourceVersionMatch !== '') {
      if (resourceVersionMatch !== 'NotOlderThan' && resourceVersionMatch !== 'Exact') {
        throw invalidListOptions(
          `resourceVersionMatch: Unsupported value: "${resourceVersionMatch}": supported values: "Exact", "NotOlderThan", ""`,
        );
      }
      if (resourceVersion === undefined || resourceVersion === '') {
        throw invalidListOptions(
          'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        );
      }
      if (query.continue) {
        throw invalidListOptions(
          'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
        );
      }
      if (resourceVersionMatch === 'Exact' && resourceVersion === '0') {
        throw invalidListOptions(
          'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        );
      }
    }
    if (query.continue) {
      if (resourceVersion !== undefined && resourceVersion !== '' && resourceVersion !== '0') {
        throw badRequest('specifying resource version is not allowed when using continue');
      }
      const token = decodeContinue(query.continue);
      start = token.start;
      atRv = token.rv <= 0 ? this.rv : token.rv;
      if (atRv < store.floor) {
        throw resourceExpired(INCONSISTENT_CONTINUE, encodeContinue(-1, start));
      }
    } else if (resourceVersion !== undefined && resourceVersion !== '') {
      const rv = parseRv(resourceVersion);
      if (resourceVersion === '0' && resourceVersionMatch !== 'Exact') {
        // Served from the watch cache: any state, no paging.
        limit = undefined;
      } else if (
        resourceVersionMatch === 'Exact' ||
        (resourceVersionMatch === undefined && limit !== undefined) ||
        (resourceVersionMatch === '' && limit !== undefined)
      ) {
        if (rv > this.rv) {
          throw tooLargeResourceVersion(rv, this.rv);
        }
        if (rv < store.floor) throw resourceExpired(LIST_TOO_OLD);
        atRv = rv;
      } else if (rv > this.rv) {
        throw tooLargeResourceVersion(rv, this.rv);
      } else if (limit !== undefined && resourceVersionMatch !== 'NotOlderThan') {
        limit = undefined;
      }
    }
    const overrides = atRv < this.rv ? store.changesSince(atRv) : new Map<string, Entry | null>();
    let keys = store.sortedKeys(namespace);
    if (overrides.size > 0) {
      const set = new Set(keys);
      for (const [key, entry] of overrides) {
        if (namespace !== undefined && !key.startsWith(`${namespace}/`)) continue;
        if (entry) set.add(key);
        else set.delete(key);
      }
      keys = [...set].sort(compareKeys);
    }
    const prefix = namespace !== undefined ? `${namespace}/` : '';
    let index = start ? lowerBound(keys, prefix + start) : 0;
    const items: Entry[] = [];
    const empty = !selection.labels && !selection.fields;
    for (; index < keys.length; index++) {
      const key = keys[index] as string;
      const entry = overrides.has(key) ? overrides.get(key) : store.get(key);
      if (!entry) continue;
      if (!empty && !matches(selection, entry.obj)) continue;
      if (limit !== undefined && items.length === limit) break;
      items.push(entry);
    }
    const result: ListResult = { items, resourceVersion: atRv };
    if (limit !== undefined && index < keys.length && items.length === limit) {
      const last = items[items.length - 1] as Entry;
      result.continue = encodeContinue(atRv, `${last.key.slice(prefix.length)}\u0000`);
      if (empty) result.remainingItemCount = keys.length - index;
    }
    return result;
  }

  /** Deletes every object a list with these selectors returns; answers the deleted objects. */
  deleteCollection(target: Target, query: ListQuery, dryRun: boolean): Entry[] {
    const { items } = this.list(target, {
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
    });
    const out: Entry[] = [];
    for (const item of items) {
      const { entry } = this.delete(
        { ...target, namespace: item.namespace || target.namespace },
        item.name,
        { dryRun },
      );
      out.push(entry);
    }
    return out;
  }
}

function describePathFor(path: string): string {
  return path
    .split('\u0000')
    .filter((s) => s !== '\u0001')
    .map((s) => (s.startsWith('f:') ? `.${s.slice(2)}` : `[${s.slice(2)}]`))
    .join('');
}

/** Whether an object passes a selection. */
export function matches(selection: Selection, obj: JsonObject): boolean {
  if (selection.labels) {
    const md = isObject(obj.metadata) ? obj.metadata : {};
    const labels = isObject(md.labels) ? (md.labels as Record<string, string>) : {};
    if (!selection.labels.matches(labels)) return false;
  }
  if (selection.fields) {
    if (!selection.fields.matches(fieldsFromObject(obj as KubeObject, selection.fieldPaths)))
      return false;
  }
  return true;
}

/** Parses a resourceVersion query parameter (400 when it is not a number). */
export function parseRv(value: string): number {
  if (!/^\d+$/.test(value)) {
    throw new ApiError(
      failure(
        400,
        'BadRequest',
        `resourceVersion: Invalid value: "${value}": strconv.ParseUint: parsing "${value}": invalid syntax`,
      ),
    );
  }
  return Number(value);
}

function invalidListOptions(message: string): ApiError {
  return new ApiError(
    failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${message}`, {
      kind: 'ListOptions',
      group: 'meta.k8s.io',
      causes: [
        {
          reason: 'FieldValueForbidden',
          message: message.replace(/^[^:]+: /, ''),
          field: message.split(':')[0] ?? '',
        },
      ],
    }),
  );
}

function tooLargeResourceVersion(rv: number, current: number): ApiError {
  return new ApiError(
    failure(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
  );
}
