/**
 * Points from an object to the object that owns it (`metadata.ownerReferences[]`). The
 * garbage collector deletes dependents whose owners are gone.
 */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** True for at most one owner: the controller managing this object. */
  controller?: boolean;
  /** When true, the owner cannot be deleted in the foreground before this object is. */
  blockOwnerDeletion?: boolean;
}

/** One manager's field ownership record for server-side apply (`metadata.managedFields[]`). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | (string & {});
  apiVersion?: string;
  /** RFC 3339 timestamp, as on the wire. */
  time?: string;
  fieldsType?: 'FieldsV1' | (string & {});
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/**
 * `metadata` of every persisted object, in wire format: timestamps stay RFC 3339 strings
 * and counters are numbers, exactly as `JSON.parse` yields them.
 */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  /** Opaque; compare for equality only, never order. */
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339 timestamp. */
  creationTimestamp?: string;
  /** RFC 3339 timestamp; set once deletion has been requested. */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** `apiVersion` and `kind`, as carried by every object on the wire (often omitted in list items). */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

/**
 * Any Kubernetes object in wire format: type meta, metadata, and the rest (`spec`,
 * `status`, `data`, ...) as unknown values to be narrowed by the caller.
 */
export interface KubeObject extends TypeMeta {
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** `metadata` of a list response. */
export interface ListMeta {
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
  metadata?: ListMeta;
  items: T[];
}

/**
 * An object reduced to type meta and metadata, as served with
 * `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`. Metadata-only
 * informers cache these to keep memory down.
 */
export interface PartialObjectMetadata extends TypeMeta {
  metadata?: ObjectMeta;
}

/** A list of {@link PartialObjectMetadata}. */
export type PartialObjectMetadataList = ObjectList<PartialObjectMetadata>;

/** Anything that may carry `metadata`; what the accessors below accept. */
export interface HasObjectMeta {
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
