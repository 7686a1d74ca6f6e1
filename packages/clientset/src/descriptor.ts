import type { GroupVersion, GroupVersionResource, ObjectList } from '@kubets/apimachinery';

/**
 * The least a typed client needs from an object: type meta and the identifying parts of
 * `metadata`. Every `kubernetes-types` object, `KubeObject` from `@kubets/apimachinery`
 * and any custom resource interface with a `metadata` field satisfy it.
 */
export interface ObjectWithMeta {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    generateName?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
  };
}

/** A list response whose items are `T` (`PodList`, `DeploymentList`, `ObjectList<T>`, ...). */
export interface ListOf<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
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
 * `T` is the object type and `L` the list type; they exist only at the type level.
 */
export interface ResourceDescriptor<T = unknown, L = ObjectList<T>> {
  /** The API group; `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** The plural, lower-case resource name used in URLs, e.g. `deployments`. */
  readonly resource: string;
  /** The object kind, e.g. `Deployment`. */
  readonly kind: string;
  /** The list kind; `<kind>List` when omitted. */
  readonly listKind?: string;
  /** True for namespaced resources, false for cluster-scoped ones. */
  readonly namespaced: boolean;
  /** The subresources the server serves for this resource. */
  readonly subresources?: readonly Subresource[];
  /**
   * Type-level marker carrying `T` and `L` so that clients built from this descriptor infer
   * them. Never set at runtime.
   */
  readonly __types?: { readonly object: T; readonly list: L };
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
 */
export function defineResource<T, L = ObjectList<T>>(
  descriptor: Omit<ResourceDescriptor<T, L>, '__types'>,
): ResourceDescriptor<T, L> {
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
