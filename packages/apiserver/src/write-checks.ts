import { goMarshal, iteratorContext, rawBodyOf } from './go-decode.js';
import type { Entry } from './object-entry.js';
import { meta } from './object-meta.js';
import type { JsonObject } from './patch.js';
import { apiVersionOf, builtinResources } from './resources.js';
import {
  type ApiError,
  badRequest,
  conflict,
  internalError,
  invalid,
  namespaceTerminating,
  notFound,
  OBJECT_MODIFIED,
} from './status.js';
import type { Target } from './target.js';
import type { VersionedStore } from './versioned-store.js';

/**
 * Refuses a body whose kind/apiVersion is not the target's. Built-in objects may leave either
 * out; custom resources must carry both (`requireKind`, on create and update), as
 * kube-apiserver's unstructured decoder demands.
 */
export function checkKind(target: Target, body: JsonObject, requireKind = false): void {
  const { definition, version } = target;
  const apiVersion = apiVersionOf(definition.group, version);
  const kind = body.kind;
  const bodyVersion = body.apiVersion;
  if (definition.custom) {
    if (requireKind) checkCustomKindPresent(target, body);
    else if (kind === undefined && bodyVersion === undefined) return;
    if (bodyVersion !== apiVersion) {
      throw badRequest(
        `the API version in the data (${String(bodyVersion)}) does not match the expected API version (${apiVersion})`,
      );
    }
    if (kind !== definition.kind) {
      const name = typeof meta(body).name === 'string' ? String(meta(body).name) : '';
      throw invalid(
        String(kind),
        name,
        [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${JSON.stringify(kind)}: must be ${definition.kind}`,
            field: 'kind',
          },
        ],
        definition.group,
      );
    }
    return;
  }
  if ((kind ?? definition.kind) === definition.kind && (bodyVersion ?? apiVersion) === apiVersion) {
    return;
  }
  if (typeof kind !== 'string' || kind === '') {
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
  }
  const bodyGoVersion = typeof bodyVersion === 'string' ? (bodyVersion.split('/').pop() ?? '') : '';
  const handled = `${kind} in version ${JSON.stringify(bodyGoVersion)} cannot be handled as a ${definition.kind}`;
  if (bodyVersion === apiVersion && isBuiltinKind(apiVersion, kind)) {
    // A kind the scheme knows at that version decodes, then has no conversion to the target's.
    const internal = definition.group === '' ? 'core' : definition.group.split('.')[0];
    throw badRequest(
      `${handled}: converting (${bodyGoVersion}.${kind}) to (${internal}.${definition.kind}): unknown conversion`,
    );
  }
  throw badRequest(
    `${handled}: no kind "${kind}" is registered for version "${String(bodyVersion)}" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`,
  );
}

let builtinKinds: Set<string> | undefined;

/** Whether kube-apiserver's scheme has `kind` at `apiVersion` (the served built-in kinds). */
function isBuiltinKind(apiVersion: string, kind: string): boolean {
  builtinKinds ??= new Set(
    builtinResources().flatMap((d) =>
      d.versions.map((v) => `${apiVersionOf(d.group, v)}/${d.kind}`),
    ),
  );
  return builtinKinds.has(`${apiVersion}/${kind}`);
}

/**
 * A patch that leaves a custom resource without `kind` fails when kube-apiserver decodes the
 * patched object again: a 422 naming no kind or object, whose `patch` cause quotes the
 * patched JSON and the decoder's error. Without `apiVersion`, the decoder's 500.
 */
export function checkPatchedCustomKind(target: Target, patched: JsonObject): void {
  const { definition } = target;
  if (!definition.custom) return;
  if (typeof patched.kind !== 'string' || patched.kind === '') {
    const raw = goMarshal(patched);
    const message = `Invalid value: ${JSON.stringify(raw)}: unmarshalerDecoder: Object 'Kind' is missing in '${raw}'${iteratorContext(raw, Buffer.byteLength(raw, 'utf8'))}`;
    throw invalid('', '', [{ reason: 'FieldValueInvalid', message, field: 'patch' }]);
  }
  if (typeof patched.apiVersion !== 'string' || patched.apiVersion === '') {
    throw internalError("Object 'apiVersion' is missing in 'object has no apiVersion field'");
  }
}

/** A custom resource without `kind` is a 400 from the decoder; without `apiVersion`, a 500. */
function checkCustomKindPresent(target: Target, body: JsonObject): void {
  const { definition, version } = target;
  if (typeof body.kind !== 'string' || body.kind === '') {
    const raw = rawBodyOf(body);
    throw badRequest(
      `${definition.kind} in version ${JSON.stringify(version)} cannot be handled as a ${definition.kind}: unmarshalerDecoder: Object 'Kind' is missing in '${raw}'${iteratorContext(raw, Buffer.byteLength(raw, 'utf8'))}`,
    );
  }
  if (typeof body.apiVersion !== 'string' || body.apiVersion === '') {
    // kube-apiserver 1.20 answers this with a 500 InternalError, not a 400.
    throw internalError("Object 'apiVersion' is missing in 'object has no apiVersion field'");
  }
}

/** Sets the body's namespace from the URL, refusing a different one; drops it when cluster-scoped. */
export function checkNamespace(target: Target, obj: JsonObject): void {
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

/**
 * 404 unless the target's namespace exists, 403 when it is being deleted (namespaced
 * resources only): what kube-apiserver's NamespaceLifecycle admission answers a create.
 */
export function requireNamespace(store: VersionedStore, target: Target, name = ''): void {
  const { definition, namespace } = target;
  if (!definition.namespaced || namespace === undefined) return;
  const ns = store.existingStore('', 'namespaces')?.get(namespace);
  if (!ns) throw notFound('namespaces', namespace);
  if (meta(ns.obj).deletionTimestamp !== undefined) {
    throw namespaceTerminating(definition.resource, name, namespace, definition.group);
  }
}

/** The 409 Conflict of a stale resourceVersion on `name`. */
export function conflictFor(target: Target, name: string): ApiError {
  return conflict(target.definition.resource, name, OBJECT_MODIFIED, target.definition.group);
}

/** 409 when the body carries a resourceVersion other than the stored one. */
export function checkPreconditionRv(target: Target, prev: Entry, obj: JsonObject): void {
  const rv = meta(obj).resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== String(prev.rv)) {
    throw conflictFor(target, prev.name);
  }
}

/**
 * A PUT of an object that is gone, its body naming a uid: kube-apiserver takes the uid as a
 * precondition, which etcd's storage fails before finding the object missing (409, its
 * StorageError text, the key as 1.20 lays them out: `/registry/<resource>/<namespace>/<name>`,
 * a custom resource's under its group, Services' under `services/specs`).
 */
export function checkUidOfMissing(target: Target, name: string, obj: JsonObject): void {
  const uid = meta(obj).uid;
  if (typeof uid !== 'string' || uid === '') return;
  const { definition, namespace } = target;
  const prefix = definition.custom
    ? `${definition.group}/${definition.resource}`
    : definition.group === '' && definition.resource === 'services'
      ? 'services/specs'
      : definition.resource;
  const key = ['/registry', prefix, namespace, name].filter((s) => s !== undefined).join('/');
  throw conflict(
    definition.resource,
    name,
    `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: `,
    definition.group,
  );
}
