import type { GroupVersion } from '@kubets/apimachinery';
import type { SharedIndexInformer } from '@kubets/cache';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import type { GenericLister, GenericNamespaceLister, SelectorInput } from '@kubets/listers';

/**
 * The object type a resource descriptor carries: `ObjectOf<typeof appsV1Resources.deployments>`
 * is `Deployment`.
 */
export type ObjectOf<D> = D extends ResourceDescriptor<infer T, unknown> ? T : never;

/**
 * The informer/lister pair of one resource (client-go's `GenericInformer`), as
 * `factory.forResource(descriptor)` returns it.
 */
export interface GenericInformer<T> {
  /**
   * The factory's shared informer of this resource, created (and registered with the
   * factory, so that `factory.start` runs it) on first use. Every call returns the same
   * informer.
   */
  informer(): SharedIndexInformer<T>;
  /**
   * A lister over the informer's cache: `list(selector)`, `get(name)` for cluster-scoped
   * objects, `byNamespace(ns).list/get` for namespaced ones. Registers the informer too.
   */
  lister(): GenericLister<T>;
}

/**
 * Reads a namespaced resource from an informer's cache (client-go's typed listers such as
 * `PodLister`): `list(selector)` over all namespaces, and `byNamespace(ns)` — client-go's
 * `Pods(ns)`, `Deployments(ns)`, ... — for `list(selector)` and `get(name)` in one namespace.
 * Objects are the cache's own: treat them as read-only.
 */
export interface NamespacedLister<T> {
  /**
   * The objects of every namespace whose labels match `selector` (all when omitted).
   *
   * @throws {SelectorParseError} for an invalid selector string.
   */
  list(selector?: SelectorInput): T[];
  /**
   * The lister of one namespace (client-go's `lister.Pods(namespace)`); `''` for all.
   * Its `get(name)` throws a NotFound `StatusError` when the cache has no such object.
   */
  byNamespace(namespace: string): GenericNamespaceLister<T>;
}

/**
 * Reads a cluster-scoped resource from an informer's cache (client-go's typed listers such
 * as `NodeLister`). Objects are the cache's own: treat them as read-only.
 */
export interface ClusterLister<T> {
  /**
   * The objects whose labels match `selector` (all when omitted).
   *
   * @throws {SelectorParseError} for an invalid selector string.
   */
  list(selector?: SelectorInput): T[];
  /**
   * The object named `name`.
   *
   * @throws {StatusError} NotFound (`isNotFound(err)` is true) when the cache has none.
   */
  get(name: string): T;
}

/**
 * The shared informer and lister of a namespaced resource (client-go's `PodInformer`,
 * `DeploymentInformer`, ...).
 */
export interface NamespacedResourceInformer<T> {
  /** The factory's shared informer of this resource; every call returns the same one. */
  informer(): SharedIndexInformer<T>;
  /** A lister over the informer's cache (`lister.byNamespace('default').list()`). */
  lister(): NamespacedLister<T>;
}

/**
 * The shared informer and lister of a cluster-scoped resource (client-go's `NodeInformer`,
 * `NamespaceInformer`, ...).
 */
export interface ClusterResourceInformer<T> {
  /** The factory's shared informer of this resource; every call returns the same one. */
  informer(): SharedIndexInformer<T>;
  /** A lister over the informer's cache (`lister.get('node-1')`). */
  lister(): ClusterLister<T>;
}

/** What the generated group/version accessors need from the factory. */
export interface InformerSource {
  /** The informer/lister pair of a resource, shared per group/version/resource. */
  forResource<T extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<T, unknown>,
  ): GenericInformer<T>;
}

/**
 * Base class of the generated per-group/version informer accessors (`AppsV1Informers`,
 * `CoreV1Informers`, ...), client-go's `informers/<group>/<version>.Interface`.
 */
export abstract class GroupVersionInformers {
  /** The factory the informers are shared through. */
  protected readonly source: InformerSource;

  constructor(source: InformerSource) {
    this.source = source;
  }

  /** The informer/lister pair of a namespaced resource. */
  protected namespaced<T extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<T, unknown>,
  ): NamespacedResourceInformer<T> {
    return this.source.forResource(descriptor);
  }

  /** The informer/lister pair of a cluster-scoped resource. */
  protected cluster<T extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<T, unknown>,
  ): ClusterResourceInformer<T> {
    return this.source.forResource(descriptor);
  }
}

/** A generated group/version accessor class, as the factory instantiates it. */
export interface GroupVersionInformersClass<G extends GroupVersionInformers> {
  new (source: InformerSource): G;
  /** The group/version the class covers. */
  readonly groupVersion: GroupVersion;
}

// The key of a resource's informer is the same in the typed and the dynamic factory: their
// common base in @kubets/cache defines it.
export { informerKey } from '@kubets/cache';
