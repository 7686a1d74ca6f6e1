import type { GroupVersion, GroupVersionResource, ObjectList } from '@kubets/apimachinery';

/**
 * The least a typed client needs from an object: type meta and the identifying parts of
 * `metadata`. Every `kubernetes-types` object, `KubeObject` from `@kubets/apimachinery`
 * and any custom resource interface with a `metadata` field satisfy it.
 */
export interface ObjectWithMeta {
  /** `group/version` of the object, e.g. `apps/v1`; filled in from the descriptor when missing. */
  apiVersion?: string;
  /** The object's kind; filled in from the descriptor when missing. */
  kind?: string;
  /** The identifying parts of the object's metadata. */
  metadata?: {
    /** The object's name. */
    name?: string;
    /** Prefix for a server-generated name, used on create when `name` is empty. */
    generateName?: string;
    /** The namespace, used when the client was not given one. */
    namespace?: string;
    /** Sent back on update for optimistic concurrency. */
    resourceVersion?: string;
    /** The object's UID. */
    uid?: string;
  };
}

/** A list response whose items are `T` (`PodList`, `DeploymentList`, `ObjectList<T>`, ...). */
export interface ListOf<T> {
  /** `group/version` of the list. */
  apiVersion?: string;
  /** The list kind, e.g. `PodList`. */
  kind?: string;
  /** The list's version and paging information. */
  metadata?: {
    /** The resourceVersion to watch from to see changes after this list. */
    resourceVersion?: string;
    /** Token for the next page; absent or empty on the last page. */
    continue?: string;
    /** How many items remain after this page, when the server could count them. */
    remainingItemCount?: number;
  };
  /** The listed objects. */
  items: T[];
}

/**
 * A subresource a resource serves: `status` and `scale` are the ones the typed clients
 * use generically; others (`log`, `eviction`, `token`, `finalize`, ...) are listed for
 * completeness and served by the resource-specific clients.
 */
export type Subresource = 'status' | 'scale' | (string & {});

/**
 * Everything a typed client needs to address a resource: its group/version, plural
 * resource name, kind and scope. Built-in resources have generated descriptors (e.g.
 * `coreV1Resources.pods`); for a custom resource write one with {@link defineResource},
 * no code generation needed.
 *
 * `T` is the object type and `L` the list type; they exist only at the type level. `N` (the
 * scope) and `S` (the subresources) are the literal types of `namespaced` and
 * `subresources` when known, as in the generated descriptors; `clientset.resource()` then
 * gives a client with exactly the methods the descriptor allows. Left wide (`boolean`,
 * {@link Subresource}), the client has every method and checks at run time.
 */
export interface ResourceDescriptor<
  T = unknown,
  L = ObjectList<T>,
  N extends boolean = boolean,
  S extends Subresource = Subresource,
> {
  /** The API group; `''` for the core group. */
  readonly group: string;
  /** The API version, e.g. `v1`. */
  readonly version: string;
  /** The plural, lower-case resource name used in URLs, e.g. `deployments`. */
  readonly resource: string;
  /** The object kind, e.g. `Deployment`. */
  readonly kind: string;
  /** The list kind; `<kind>List` when omitted. */
  readonly listKind?: string;
  /** True for namespaced resources, false for cluster-scoped ones. */
  readonly namespaced: N;
  /** The subresources the server serves for this resource. */
  readonly subresources?: readonly S[];
  /**
   * Type-level marker carrying `T` and `L` so that clients built from this descriptor infer
   * them. Never set at runtime.
   */
  readonly __types?: {
    /** The object type `T`. */
    readonly object: T;
    /** The list type `L`. */
    readonly list: L;
  };
}

/**
 * Declares a resource for the typed clients, fixing its object and list types:
 *
 * ```ts
 * interface Mydemo { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: { ip: string; port: number } }
 * const mydemos = defineResource<Mydemo>({
 *   group: 'crddemo.k8s.io', version: 'v1', resource: 'mydemos', kind: 'Mydemo', namespaced: true,
 * });
 * ```
 *
 * Give the scope and subresources as type arguments too, and `clientset.resource()` checks
 * at compile time what the client may do (no `updateStatus` without `status`, no `get`
 * without a namespace for a namespaced resource):
 *
 * ```ts
 * const mydemos = defineResource<Mydemo, ObjectList<Mydemo>, true, 'status'>({
 *   group: 'crddemo.k8s.io', version: 'v1', resource: 'mydemos', kind: 'Mydemo',
 *   namespaced: true, subresources: ['status'],
 * });
 * ```
 */
export function defineResource<
  T,
  L = ObjectList<T>,
  N extends boolean = boolean,
  S extends Subresource = Subresource,
>(descriptor: Omit<ResourceDescriptor<T, L, N, S>, '__types'>): ResourceDescriptor<T, L, N, S> {
  return Object.freeze({
    ...descriptor,
    ...(descriptor.subresources
      ? { subresources: Object.freeze([...descriptor.subresources]) }
      : {}),
  });
}

/** The group/version of a descriptor. */
export function descriptorGroupVersion(
  descriptor: ResourceDescriptor<unknown, unknown>,
): GroupVersion {
  return { group: descriptor.group, version: descriptor.version };
}

/** The group/version/resource of a descriptor. */
export function descriptorGVR(
  descriptor: ResourceDescriptor<unknown, unknown>,
): GroupVersionResource {
  return { group: descriptor.group, version: descriptor.version, resource: descriptor.resource };
}

/** The `apiVersion` string objects of this resource carry: `v1`, `apps/v1`, ... */
export function descriptorAPIVersion(descriptor: ResourceDescriptor<unknown, unknown>): string {
  return descriptor.group === '' ? descriptor.version : `${descriptor.group}/${descriptor.version}`;
}

/** Whether the descriptor lists `subresource`. */
export function hasSubresource(
  descriptor: ResourceDescriptor<unknown, unknown>,
  subresource: Subresource,
): boolean {
  return descriptor.subresources?.includes(subresource) ?? false;
}
