import { type GroupVersionResource, groupVersionResourceToString } from '@kubets/apimachinery';
import type { Indexer } from '@kubets/cache';
import { type GenericLister, type GenericNamespaceLister, newGenericLister } from '@kubets/listers';
import type { Unstructured } from './unstructured.js';

/**
 * Reads {@link Unstructured} objects from an informer's cache (client-go's
 * `dynamiclister.Lister`): `list(selector)`, `get(name)` for cluster-scoped objects and
 * `byNamespace(ns).list/get` for namespaced ones. `get` throws a NotFound `StatusError` for
 * the lister's group/resource when the cache has no such object.
 */
export type DynamicLister = GenericLister<Unstructured>;

/** The namespace view of a {@link DynamicLister} (client-go's `dynamiclister.NamespaceLister`). */
export type DynamicNamespaceLister = GenericNamespaceLister<Unstructured>;

/**
 * A lister of `gvr`'s objects over `indexer`, usually a dynamic informer's
 * `getIndexer()` (client-go's `dynamiclister.New`). Namespace lists use the indexer's
 * `namespace` index when it has one (dynamic informers do).
 *
 * ```ts
 * const lister = newDynamicLister(informer.getIndexer(), { group: 'apps', version: 'v1', resource: 'deployments' });
 * const inDefault = lister.byNamespace('default').list('app=web');
 * ```
 */
export function newDynamicLister(
  indexer: Indexer<Unstructured>,
  gvr: GroupVersionResource,
): DynamicLister {
  if (!gvr.resource) {
    throw new TypeError(
      `a dynamic lister needs a resource, got ${groupVersionResourceToString(gvr)}`,
    );
  }
  return newGenericLister(indexer, { group: gvr.group, resource: gvr.resource });
}
