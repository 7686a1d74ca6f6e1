/**
 * Points from an object to the object that owns it (`metadata.ownerReferences[]`). The
 * garbage collector deletes dependents whose owners are gone.
 */
export interface OwnerReference {
  /** The owner's `apiVersion`, e.g. `apps/v1`. */
  apiVersion: string;
  /** The owner's kind, e.g. `ReplicaSet`. */
  kind: string;
  /** The owner's name; owners are always in the same namespace (or cluster-scoped). */
  name: string;
  /** The owner's UID, so a re-created owner of the same name is not mistaken for it. */
  uid: string;
  /** True for at most one owner: the controller managing this object. */
  controller?: boolean;
  /** When true, the owner cannot be deleted in the foreground before this object is. */
  blockOwnerDeletion?: boolean;
}

/** One manager's field ownership record for server-side apply (`metadata.managedFields[]`). */
export interface ManagedFieldsEntry {
  /** The field manager, as passed in `fieldManager` (e.g. `kubectl`, a controller's name). */
  manager?: string;
  /** Whether the fields were set by an apply or by an update/patch. */
  operation?: 'Apply' | 'Update' | (string & {});
  /** The API version the field set is expressed in. */
  apiVersion?: string;
  /** RFC 3339 timestamp, as on the wire. */
  time?: string;
  /** The format of `fieldsV1`; only `FieldsV1` exists. */
  fieldsType?: 'FieldsV1' | (string & {});
  /**
   * The set of fields this manager owns, in the server's FieldsV1 trie format. Typed as
   * `object` so that other typings of the same JSON (kubernetes-types' empty `FieldsV1`
   * interface) are assignable to it.
   */
  fieldsV1?: object;
  /** The subresource the fields were written through (`status`, `scale`), if any. */
  subresource?: string;
}

/**
 * `metadata` of every persisted object, in wire format: timestamps stay RFC 3339 strings
 * and counters are numbers, exactly as `JSON.parse` yields them.
 */
export interface ObjectMeta {
  /** The object's name, unique per kind within its namespace. */
  name?: string;
  /** A prefix the server completes with a random suffix when `name` is empty on create. */
  generateName?: string;
  /** The namespace; empty for cluster-scoped objects. */
  namespace?: string;
  /** Deprecated and no longer set by servers since 1.20. */
  selfLink?: string;
  /** Unique for the object's whole lifetime; a re-created object gets a new one. */
  uid?: string;
  /** Opaque; compare for equality only, never order. */
  resourceVersion?: string;
  /** Incremented by the server on every change to the desired state (usually `spec`). */
  generation?: number;
  /** RFC 3339 timestamp. */
  creationTimestamp?: string;
  /** RFC 3339 timestamp; set once deletion has been requested. */
  deletionTimestamp?: string;
  /** Seconds the object is given to terminate once `deletionTimestamp` is set. */
  deletionGracePeriodSeconds?: number;
  /** Identifying key/value pairs that selectors match on. */
  labels?: Record<string, string>;
  /** Non-identifying key/value metadata for tools and controllers. */
  annotations?: Record<string, string>;
  /** The objects this one depends on; see {@link OwnerReference}. */
  ownerReferences?: OwnerReference[];
  /** Keys that must be removed before a deleted object is actually removed. */
  finalizers?: string[];
  /** Server-side apply field ownership; large, and often stripped by informers. */
  managedFields?: ManagedFieldsEntry[];
}

/** `apiVersion` and `kind`, as carried by every object on the wire (often omitted in list items). */
export interface TypeMeta {
  /** `group/version` of the schema (`apps/v1`), or just the version for the core group (`v1`). */
  apiVersion?: string;
  /** The object's kind in CamelCase, e.g. `Pod`. */
  kind?: string;
}

/**
 * Any Kubernetes object in wire format: type meta, metadata, and the rest (`spec`,
 * `status`, `data`, ...) as unknown values to be narrowed by the caller.
 */
export interface KubeObject extends TypeMeta {
  /** Standard object metadata. */
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** `metadata` of a list response. */
export interface ListMeta {
  /** Deprecated and no longer set by servers since 1.20. */
  selfLink?: string;
  /** The resourceVersion to watch from to see changes after this list. */
  resourceVersion?: string;
  /** Token for the next page; absent or empty on the last page. */
  continue?: string;
  /** How many items remain after this page, when the server could count them. */
  remainingItemCount?: number;
}

/** A list response (`PodList`, `DeploymentList`, ...) holding items of type `T`. */
export interface ObjectList<T> extends TypeMeta {
  /** Version and paging information of the list. */
  metadata?: ListMeta;
  /** The listed objects (list items usually omit `apiVersion` and `kind`). */
  items: T[];
}

/**
 * Sets `apiVersion` and `kind` on every item of `list` that has neither, from the list's own
 * (`ConfigMapList` gives `ConfigMap`), or from `fallback` where the list has none. The API
 * server leaves them out of the items of a built-in resource's list while a watch event's
 * object carries them; client-go's unstructured decoder fills them in this way. Items that
 * carry either field are left as they are. Changes the items in place and returns `list`.
 */
export function setListItemTypeMeta<L extends ObjectList<unknown>>(
  list: L,
  fallback: TypeMeta = {},
): L {
  const apiVersion = list.apiVersion || fallback.apiVersion;
  const kind = list.kind ? list.kind.replace(/List$/, '') : fallback.kind;
  if (!apiVersion && !kind) return list;
  for (const item of list.items as (TypeMeta | null | undefined)[]) {
    if (item === null || typeof item !== 'object' || item.apiVersion || item.kind) continue;
    if (apiVersion) item.apiVersion = apiVersion;
    if (kind) item.kind = kind;
  }
  return list;
}

/**
 * An object reduced to type meta and metadata, as served with
 * `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`. Metadata-only
 * informers cache these to keep memory down.
 */
export interface PartialObjectMetadata extends TypeMeta {
  /** The object's full metadata; everything else was left out by the server. */
  metadata?: ObjectMeta;
}

/** A list of {@link PartialObjectMetadata}. */
export type PartialObjectMetadataList = ObjectList<PartialObjectMetadata>;

/** Anything that may carry `metadata`; what the accessors below accept. */
export interface HasObjectMeta {
  /** The object's metadata, if it has any. */
  metadata?: ObjectMeta | undefined;
}

const noLabels: Readonly<Record<string, string>> = Object.freeze({});
const noOwners: readonly OwnerReference[] = Object.freeze([]);

/** `metadata.name`, or `''` when there is none. */
export function getName(obj: HasObjectMeta): string {
  return obj.metadata?.name ?? '';
}

/** `metadata.namespace`, or `''` for cluster-scoped objects and objects without metadata. */
export function getNamespace(obj: HasObjectMeta): string {
  return obj.metadata?.namespace ?? '';
}

/** `metadata.resourceVersion`, or `''` when there is none. */
export function getResourceVersion(obj: HasObjectMeta): string {
  return obj.metadata?.resourceVersion ?? '';
}

/** `metadata.uid`, or `''` when there is none. */
export function getUID(obj: HasObjectMeta): string {
  return obj.metadata?.uid ?? '';
}

/**
 * `metadata.labels`, or an empty frozen object when absent. The object's own map is
 * returned (not a copy) so hot paths such as selector matching allocate nothing; copy it
 * before changing it.
 */
export function getLabels(obj: HasObjectMeta): Readonly<Record<string, string>> {
  return obj.metadata?.labels ?? noLabels;
}

/** `metadata.annotations`, or an empty frozen object when absent (not a copy, as {@link getLabels}). */
export function getAnnotations(obj: HasObjectMeta): Readonly<Record<string, string>> {
  return obj.metadata?.annotations ?? noLabels;
}

/** `metadata.ownerReferences`, or an empty frozen array when absent. */
export function getOwnerReferences(obj: HasObjectMeta): readonly OwnerReference[] {
  return obj.metadata?.ownerReferences ?? noOwners;
}

/** The owner reference marked `controller: true`, if any (client-go `metav1.GetControllerOf`). */
export function getControllerOf(obj: HasObjectMeta): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/**
 * True when `obj`'s controller reference points at `owner`. Compared by UID, as client-go
 * does, because a name can be reused by a new object after the old one is deleted.
 */
export function isControlledBy(obj: HasObjectMeta, owner: HasObjectMeta): boolean {
  const ownerUID = getUID(owner);
  if (ownerUID === '') return false;
  return getControllerOf(obj)?.uid === ownerUID;
}

/**
 * The `metadata` of a value that must be a Kubernetes object (client-go `meta.Accessor`).
 *
 * @throws {TypeError} when `obj` is not an object or its `metadata` is missing or not an
 *   object, naming what was found instead.
 */
export function objectMetaFor(obj: unknown): ObjectMeta {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new TypeError(`expected a Kubernetes object, got ${describe(obj)}`);
  }
  const metadata: unknown = (obj as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    const kind = (obj as { kind?: unknown }).kind;
    const what = typeof kind === 'string' && kind !== '' ? `${kind} object` : 'object';
    throw new TypeError(`${what} has no usable metadata: "metadata" is ${describe(metadata)}`);
  }
  return metadata as ObjectMeta;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}
