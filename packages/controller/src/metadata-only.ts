import type { PartialObjectMetadata } from '@kubets/apimachinery';
import { informerKey, type NewInformerFunc, type SharedIndexInformer } from '@kubets/cache';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import {
  type GenericInformer,
  type InformerClient,
  newResourceInformerFunc,
} from '@kubets/informers';
import { newGenericLister } from '@kubets/listers';

const metadataOnlyMark = Symbol('kubets.controller.metadataOnly');

/**
 * `descriptor`'s resource, watched and cached as metadata only (controller-runtime's
 * `builder.OnlyMetadata`): the server sends each object's metadata and nothing else, so a
 * cache of large objects (Secrets, ConfigMaps, Pods) keeps a fraction of their memory. Use
 * it where a resource is named: `owns(onlyMetadata(coreV1Resources.secrets))`,
 * `watches(onlyMetadata(...), map)`, `mgr.cache.list(onlyMetadata(...))`; the objects are
 * `PartialObjectMetadata` (`@kubets/apimachinery`). Its informer is not
 * the full objects' one: both may run side by side.
 *
 * @throws {TypeError} for something that is not a resource descriptor.
 */
export function onlyMetadata(
  descriptor: ResourceDescriptor<unknown, unknown>,
): ResourceDescriptor<PartialObjectMetadata, unknown> {
  const d = descriptor as Partial<ResourceDescriptor> | undefined;
  if (
    typeof d?.resource !== 'string' ||
    typeof d.kind !== 'string' ||
    typeof d.version !== 'string' ||
    typeof d.group !== 'string' ||
    typeof d.namespaced !== 'boolean'
  ) {
    throw new TypeError(
      `onlyMetadata needs a resource descriptor (e.g. coreV1Resources.secrets), got ${JSON.stringify(descriptor)}`,
    );
  }
  return Object.freeze({
    group: d.group,
    version: d.version,
    resource: d.resource,
    kind: d.kind,
    namespaced: d.namespaced,
    [metadataOnlyMark]: true,
  });
}

/** @internal Whether `descriptor` was made by {@link onlyMetadata}. */
export function isMetadataOnly(descriptor: ResourceDescriptor<unknown, unknown>): boolean {
  return (descriptor as { [metadataOnlyMark]?: boolean })[metadataOnlyMark] === true;
}

/** @internal What a metadata-only informer is made in: a typed shared informer factory. */
export interface MetadataInformerSource {
  readonly client: InformerClient;
  informerFor<T>(key: string, newFunc: NewInformerFunc<T>): SharedIndexInformer<T>;
}

/** @internal Whether `informers` can make metadata-only informers. */
export function isMetadataInformerSource(informers: unknown): informers is MetadataInformerSource {
  const source = informers as Partial<MetadataInformerSource> | undefined;
  return (
    typeof source?.informerFor === 'function' && typeof source.client?.restClientFor === 'function'
  );
}

/**
 * @internal The metadata-only informer of `descriptor` in `factory`, under a key of its own
 * (`metadata:<group/version/resource>`), and a lister over it.
 */
export function metadataInformer(
  factory: MetadataInformerSource,
  descriptor: ResourceDescriptor<ObjectWithMeta, unknown>,
): GenericInformer<ObjectWithMeta> {
  const informer = (): SharedIndexInformer<ObjectWithMeta> =>
    factory.informerFor<ObjectWithMeta>(
      `metadata:${informerKey(descriptor)}`,
      newResourceInformerFunc(factory.client, descriptor, { metadataOnly: true }),
    );
  return {
    informer,
    lister: () => newGenericLister(informer().getIndexer(), descriptor),
  } as GenericInformer<ObjectWithMeta>;
}
