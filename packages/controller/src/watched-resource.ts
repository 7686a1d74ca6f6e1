import { type GroupVersionResource, parseGroupVersionResource } from '@kubets/apimachinery';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import type { Unstructured } from '@kubets/dynamic';
import type { GenericInformer } from '@kubets/informers';
import { isMetadataInformerSource, isMetadataOnly, metadataInformer } from './metadata-only.js';

/**
 * A resource a controller watches: a typed descriptor (`appsV1Resources.deployments`, or one
 * made with `defineResource` for a custom resource), or a group/version/resource known only
 * at run time (`{ group, version, resource }` or a string such as
 * `crddemo.k8s.io/v1/mydemos`), watched through the dynamic informers as `Unstructured`
 * objects.
 */
export type WatchedResource<T = unknown> =
  | ResourceDescriptor<T, unknown>
  | GroupVersionResource
  | string;

/**
 * Where a builder gets shared informers of typed resources: a `SharedInformerFactory` of
 * `@kubets/informers` (or a {@link Manager}'s `informers`).
 */
export interface InformerProvider {
  /** The shared informer and lister of a resource. */
  forResource<T extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<T, unknown>,
  ): GenericInformer<T>;
}

/**
 * Where a builder gets shared informers of resources known only by group/version/resource:
 * a `DynamicSharedInformerFactory` of `@kubets/dynamic` (or a {@link Manager}'s
 * `dynamicInformers`).
 */
export interface DynamicInformerProvider {
  /** The shared informer and lister of a resource. */
  forResource(gvr: GroupVersionResource): GenericInformer<Unstructured>;
}

/** A watched resource checked and resolved: how to name it and where its informer is. */
export interface ResolvedResource {
  /** The plural resource name, for messages and default controller names. */
  readonly resource: string;
  /** Its API group. */
  readonly group: string;
  /** Its API version. */
  readonly version: string;
  /** The typed descriptor, when it is one (it knows the kind and scope). */
  readonly descriptor: ResourceDescriptor<ObjectWithMeta, unknown> | undefined;
  /** Its informer and lister, created on first use. */
  informer(): GenericInformer<ObjectWithMeta>;
}

/**
 * Checks `resource` and says where its informer comes from.
 *
 * @throws {TypeError} naming `what` for something that is no resource, or a
 *   group/version/resource without dynamic informers to watch it.
 */
export function resolveResource(
  resource: unknown,
  what: string,
  providers: {
    informers: InformerProvider;
    dynamicInformers?: DynamicInformerProvider | undefined;
  },
): ResolvedResource {
  if (isDescriptor(resource)) {
    const typed = providers.informers;
    let informer = (): GenericInformer<ObjectWithMeta> => typed.forResource(resource);
    if (isMetadataOnly(resource)) {
      if (!isMetadataInformerSource(typed)) {
        throw new TypeError(
          `${what}(onlyMetadata(${resource.resource})): metadata-only informers are made in a SharedInformerFactory: build on a Manager, or pass one as deps.informers`,
        );
      }
      informer = () => metadataInformer(typed, resource);
    }
    return {
      resource: resource.resource,
      group: resource.group,
      version: resource.version,
      descriptor: resource,
      informer,
    };
  }
  const gvr = groupVersionResourceOf(resource, what);
  const dynamic = providers.dynamicInformers;
  if (typeof dynamic?.forResource !== 'function') {
    throw new TypeError(
      `${what}(${gvr.group ? `${gvr.group}/` : ''}${gvr.version}/${gvr.resource}): a resource known only by group/version/resource is watched through dynamic informers: build on a Manager, or pass deps.dynamicInformers`,
    );
  }
  return {
    resource: gvr.resource,
    group: gvr.group,
    version: gvr.version,
    descriptor: undefined,
    informer: () => dynamic.forResource(gvr) as unknown as GenericInformer<ObjectWithMeta>,
  };
}

function isDescriptor(value: unknown): value is ResourceDescriptor<ObjectWithMeta, unknown> {
  const d = value as Partial<ResourceDescriptor> | undefined;
  return (
    typeof d?.resource === 'string' &&
    typeof d.kind === 'string' &&
    typeof d.version === 'string' &&
    typeof d.group === 'string' &&
    typeof d.namespaced === 'boolean'
  );
}

function groupVersionResourceOf(value: unknown, what: string): GroupVersionResource {
  const fail = (why: string): never => {
    throw new TypeError(
      `${what}(...) needs a resource descriptor (e.g. coreV1Resources.configMaps, or one made with defineResource) or a group/version/resource, got ${JSON.stringify(value)}${why}`,
    );
  };
  if (typeof value === 'string') {
    try {
      return parseGroupVersionResource(value);
    } catch (err) {
      return fail(`: ${(err as Error).message}`);
    }
  }
  const gvr = value as Partial<GroupVersionResource> | undefined;
  if (
    typeof gvr?.group !== 'string' ||
    typeof gvr.version !== 'string' ||
    gvr.version === '' ||
    typeof gvr.resource !== 'string' ||
    gvr.resource === ''
  ) {
    return fail('');
  }
  return { group: gvr.group, version: gvr.version, resource: gvr.resource };
}
