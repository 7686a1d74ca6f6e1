import { isObject, type JsonObject } from './patch.js';

/** RFC 3339 with seconds, as the API server writes timestamps. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The metadata fields the server sets on its own: identity, versions and lifecycle. */
export const SERVER_SET_METADATA: readonly string[] = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/** Every ObjectMeta field, in the order the server writes them. */
export const METADATA_ORDER: readonly string[] = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  ...SERVER_SET_METADATA,
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'clusterName',
  'managedFields',
];

/** A ManagedFieldsEntry's fields, in the order of its Go struct. */
const MANAGED_FIELDS_ENTRY_ORDER: readonly string[] = [
  'manager',
  'operation',
  'apiVersion',
  'time',
  'fieldsType',
  'fieldsV1',
  'subresource',
];

function inOrder(object: JsonObject, order: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of order) if (object[key] !== undefined) out[key] = object[key];
  for (const [key, value] of Object.entries(object)) {
    if (!(key in out) && value !== undefined) out[key] = value;
  }
  return out;
}

/** `metadata` as the ObjectMeta Go struct writes it: its fields (and managedFields') in order. */
export function orderedMetadata(metadata: JsonObject): JsonObject {
  const out = inOrder(metadata, METADATA_ORDER);
  if (Array.isArray(out.managedFields)) {
    out.managedFields = out.managedFields.map((entry) =>
      isObject(entry) ? inOrder(entry, MANAGED_FIELDS_ENTRY_ORDER) : entry,
    );
  }
  return out;
}

/** Puts kind, apiVersion and metadata first and metadata's fields in the server's order. */
export function normalise(obj: JsonObject): JsonObject {
  const metadata = isObject(obj.metadata) ? obj.metadata : {};
  const out: JsonObject = { kind: obj.kind ?? null, apiVersion: obj.apiVersion ?? null };
  out.metadata = orderedMetadata(metadata);
  for (const [key, value] of Object.entries(obj)) {
    if (key !== 'kind' && key !== 'apiVersion' && key !== 'metadata' && value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

/** The object's metadata, created empty when missing, so callers can edit it in place. */
export function meta(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as JsonObject;
}

/** `metadata.name`, or `''`. */
export function objectName(obj: JsonObject): string {
  const name = meta(obj).name;
  return typeof name === 'string' ? name : '';
}

/** The fields whose change bumps `metadata.generation`. */
export function withoutMetaAndStatus(obj: JsonObject): JsonObject {
  const { metadata: _m, status: _s, ...rest } = obj;
  return rest;
}

/** What an update must change for it not to be a no-op. */
export function comparable(obj: JsonObject): JsonObject {
  const md = { ...meta(obj) };
  delete md.resourceVersion;
  delete md.managedFields;
  return { ...obj, metadata: md };
}

/** Whether a namespace still has `spec.finalizers` or `metadata.finalizers`. */
export function namespaceHasFinalizers(obj: JsonObject): boolean {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const md = meta(obj);
  return (
    (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) ||
    (Array.isArray(md.finalizers) && md.finalizers.length > 0)
  );
}
