import type { Entry } from './object-entry.js';
import { meta } from './object-meta.js';
import type { JsonObject } from './patch.js';
import { apiVersionOf } from './resources.js';
import { type ApiError, badRequest, conflict, notFound, OBJECT_MODIFIED } from './status.js';
import type { Target } from './target.js';
import type { VersionedStore } from './versioned-store.js';

/** Refuses a body whose kind/apiVersion is not the target's (both absent is fine). */
export function checkKind(target: Target, body: JsonObject): void {
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

/** 404 unless the target's namespace exists (namespaced resources only). */
export function requireNamespace(store: VersionedStore, target: Target): void {
  const { definition, namespace } = target;
  if (!definition.namespaced || namespace === undefined) return;
  if (!store.existingStore('', 'namespaces')?.get(namespace))
    throw notFound('namespaces', namespace);
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
