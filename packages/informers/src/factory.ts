import {
  type GroupVersion,
  type GroupVersionResource,
  groupVersionToString,
  type HasObjectMeta,
} from '@kubets/apimachinery';
import {
  type FilteredInformerFactoryArgs,
  filteredInformerFactoryOptions,
  type Indexer,
  informerKey,
  type KeyedInformerFactory,
  type KeyedInformerFactoryOptions,
  type ListOptionsTweak,
  metaNamespaceIndexFunc,
  type NewInformerFunc,
  namespaceIndex,
  newFilteredListWatchFromClient,
  newFilteredMetadataListWatchFromClient,
  newKeyedInformerFactory,
  newSharedIndexInformer,
  type RESTGetter,
  type SharedIndexInformer,
} from '@kubets/cache';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import { type GenericLister, newGenericLister } from '@kubets/listers';
import { GeneratedInformerFactory, informableResources } from './generated/factory.js';
import type {
  GenericInformer,
  GroupVersionInformers,
  GroupVersionInformersClass,
  InformerSource,
} from './resource-informer.js';

/**
 * What the factory lists and watches through: a `Clientset` of `@kubets/clientset`, or
 * anything else that hands out a REST client per group/version.
 */
export interface InformerClient {
  /** The REST client of a group/version (`/api/v1`, `/apis/apps/v1`, ...). */
  restClientFor(groupVersion: GroupVersion): RESTGetter;
}

/**
 * Settings of a {@link SharedInformerFactory} besides the default resync period (client-go's
 * `SharedInformerOption`s: `WithNamespace`, `WithTweakListOptions`, `WithCustomResyncConfig`,
 * `WithTransform`, `WithInformerName`): those of `@kubets/cache`'s keyed factory, which the
 * typed factory is built on, with its resync period given apart.
 */
export interface SharedInformerOptions
  extends Omit<KeyedInformerFactoryOptions, 'defaultResyncMs' | 'namespace'> {
  /**
   * Limit the informers of namespaced resources to one namespace; `''` (the default) for
   * all. Cluster-scoped resources are always watched cluster-wide.
   */
  namespace?: string | undefined;
}

/** Settings of {@link newSharedInformerFactory}. */
export interface SharedInformerFactoryOptions extends SharedInformerOptions {
  /** Resync period of every informer in milliseconds (0 for never), unless `customResync` says otherwise. */
  defaultResyncMs: number;
}

function isDescriptor(
  value: ResourceDescriptor<ObjectWithMeta, unknown> | GroupVersionResource,
): value is ResourceDescriptor<ObjectWithMeta, unknown> {
  return (
    typeof (value as { kind?: unknown }).kind === 'string' &&
    typeof (value as { namespaced?: unknown }).namespaced === 'boolean'
  );
}

/**
 * The typed shared informer factory (client-go's `informers.SharedInformerFactory`): one
 * accessor per built-in group/version with one method per listable and watchable resource,
 * each giving the resource's shared informer and a typed lister:
 *
 * ```ts
 * const factory = newSharedInformerFactory(clientset, { defaultResyncMs: 60_000 });
 * const deployments = factory.appsV1().deployments();
 * deployments.informer().addEventHandler({ onAdd: (d) => console.log('add', d.metadata?.name) });
 * factory.start(signal);
 * await factory.waitForCacheSync(signal);
 * const inDefault = deployments.lister().byNamespace('default').list();
 * ```
 *
 * There is one informer per resource: asking twice (through the typed accessor,
 * {@link forResource} or {@link informerFor} with the same key) returns the same instance.
 * Informers list and watch through the clientset's REST client of their group/version, are
 * limited to the factory's namespace (namespaced resources only) and list options, and have
 * the `namespace` index (`namespaceIndex` → `metaNamespaceIndexFunc`) as in client-go.
 * Only informers asked for before {@link start} are started by it; call `start` again after
 * asking for more.
 */
export class SharedInformerFactory extends GeneratedInformerFactory implements InformerSource {
  /** The client the informers list and watch through. */
  readonly client: InformerClient;
  /** The namespace informers of namespaced resources are limited to; `''` for all. */
  readonly namespace: string;
  readonly #base: KeyedInformerFactory;
  readonly #groups = new Map<
    GroupVersionInformersClass<GroupVersionInformers>,
    GroupVersionInformers
  >();

  constructor(client: InformerClient, options: SharedInformerFactoryOptions) {
    super();
    this.client = client;
    this.#base = newKeyedInformerFactory(options);
    this.namespace = this.#base.namespace;
  }

  protected groupInformers<G extends GroupVersionInformers>(
    groupClass: GroupVersionInformersClass<G>,
  ): G {
    let group = this.#groups.get(groupClass);
    if (group === undefined) {
      group = new groupClass(this);
      this.#groups.set(groupClass, group);
    }
    return group as G;
  }

  /**
   * The informer registered under `key` (a string, or a group/version/resource keyed by
   * {@link informerKey}), created with `newFunc` on first use (client-go's `InformerFor`):
   * for informers the typed accessors do not make, such as one with a different field
   * selector. `newFunc` gets the resync period for `key`, the factory's namespace,
   * list-options tweak and logger; the factory's `transform` is set on the informer. Later
   * calls with the same key return the same informer.
   */
  informerFor<T>(
    key: string | GroupVersionResource,
    newFunc: NewInformerFunc<T>,
  ): SharedIndexInformer<T> {
    return this.#base.informerFor(key, newFunc);
  }

  /**
   * The shared informer and a generic lister of any resource (client-go's `ForResource`).
   * With a descriptor — a generated one such as `appsV1Resources.deployments`, or one made
   * with `defineResource` for a custom resource — no generated code is needed and the
   * objects are typed. With a bare group/version/resource only the built-in resources of
   * {@link informableResources} are known.
   *
   * @throws {TypeError} for a group/version/resource that is not a built-in listable and
   *   watchable resource (client-go: "no informer found for ...").
   */
  forResource<T extends ObjectWithMeta>(
    descriptor: ResourceDescriptor<T, unknown>,
  ): GenericInformer<T>;
  forResource(gvr: GroupVersionResource): GenericInformer<ObjectWithMeta>;
  forResource(
    resource: ResourceDescriptor<ObjectWithMeta, unknown> | GroupVersionResource,
  ): GenericInformer<ObjectWithMeta> {
    const descriptor = isDescriptor(resource) ? resource : builtinDescriptor(resource);
    const informer = (): SharedIndexInformer<ObjectWithMeta> => this.#informerOf(descriptor);
    return {
      informer,
      lister: (): GenericLister<ObjectWithMeta> =>
        newGenericLister(
          informer().getIndexer() as Indexer<HasObjectMeta>,
          descriptor,
        ) as GenericLister<ObjectWithMeta>,
    } as GenericInformer<ObjectWithMeta>;
  }

  #informerOf(
    descriptor: ResourceDescriptor<ObjectWithMeta, unknown>,
  ): SharedIndexInformer<ObjectWithMeta> {
    return this.#base.informerFor<ObjectWithMeta>(
      descriptor,
      newResourceInformerFunc(this.client, descriptor),
    );
  }

  /**
   * Starts every informer asked for so far and not started yet (client-go's `Start`); they
   * run until `signal` aborts or {@link shutdown}. Returns at once.
   */
  start(signal: AbortSignal): void {
    this.#base.start(signal);
  }

  /**
   * Waits until every started informer has synced (client-go's `WaitForCacheSync`).
   * Resolves with {@link informerKey} → synced; an entry is false when `signal` aborted
   * before that informer synced.
   */
  waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>> {
    return this.#base.waitForCacheSync(signal);
  }

  /**
   * Stops every informer and resolves once all have stopped (client-go's `Shutdown`).
   * `start` does nothing afterwards.
   */
  shutdown(): Promise<void> {
    return this.#base.shutdown();
  }
}

/**
 * What sets an informer made by {@link newResourceInformerFunc} apart from the one the
 * factory makes for the resource.
 */
export interface ResourceInformerSettings {
  /**
   * The namespace to watch instead of the factory's (namespaced resources only); `''` for all
   * namespaces even when the factory is limited to one.
   */
  namespace?: string | undefined;
  /** Changes the list options after the factory's own tweak, so that its selectors win. */
  tweakListOptions?: ListOptionsTweak | undefined;
  /**
   * List and watch metadata only (`PartialObjectMetadata`); the objects get the resource's
   * `apiVersion` and `kind`, as controller-runtime's metadata informers do.
   */
  metadataOnly?: boolean | undefined;
}

/**
 * How a typed factory makes the informer of `descriptor` (what {@link
 * SharedInformerFactory.forResource} uses), for {@link SharedInformerFactory.informerFor}
 * under a key of its own, with `settings` on top: the informer lists and watches through
 * `client`, with the factory's resync period, namespace, list-options tweak, logger and
 * metrics, and the `namespace` index.
 */
export function newResourceInformerFunc(
  client: InformerClient,
  descriptor: ResourceDescriptor<unknown, unknown>,
  settings: ResourceInformerSettings = {},
): NewInformerFunc<ObjectWithMeta> {
  const gv = { group: descriptor.group, version: descriptor.version };
  const typeMeta = { apiVersion: groupVersionToString(gv), kind: descriptor.kind };
  return ({ resyncPeriodMs, namespace, tweakListOptions, logger, metrics }) => {
    const listWatch = settings.metadataOnly
      ? newFilteredMetadataListWatchFromClient
      : newFilteredListWatchFromClient<ObjectWithMeta>;
    const lw = listWatch(
      client.restClientFor(gv),
      descriptor.resource,
      descriptor.namespaced ? (settings.namespace ?? namespace) : '',
      (listOptions) => {
        tweakListOptions?.(listOptions);
        settings.tweakListOptions?.(listOptions);
      },
    );
    const informer = newSharedIndexInformer<ObjectWithMeta>(
      lw,
      settings.metadataOnly ? `${descriptor.resource} metadata` : typeMeta,
      {
        resyncPeriodMs,
        indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
        ...(logger ? { logger } : {}),
        ...metrics,
      },
    );
    // The server sends meta.k8s.io/v1 PartialObjectMetadata; the objects get their
    // resource's kind, which Events and owner references need.
    if (settings.metadataOnly) informer.setTransform((obj) => Object.assign(obj, typeMeta));
    return informer;
  };
}

function builtinDescriptor(gvr: GroupVersionResource): ResourceDescriptor<ObjectWithMeta, unknown> {
  const found = informableResources.find(
    (d) => d.group === gvr.group && d.version === gvr.version && d.resource === gvr.resource,
  );
  if (found === undefined) {
    throw new TypeError(
      `no informer found for ${informerKey(gvr)}: pass a resource descriptor (defineResource) for resources that are not built in`,
    );
  }
  return found as ResourceDescriptor<ObjectWithMeta, unknown>;
}

/**
 * A typed shared informer factory over `client` (client-go's `NewSharedInformerFactory` and
 * `NewSharedInformerFactoryWithOptions`). `options` is the default resync period in
 * milliseconds, or the full settings:
 *
 * ```ts
 * const factory = newSharedInformerFactory(clientset, 60_000);
 * const scoped = newSharedInformerFactory(clientset, {
 *   defaultResyncMs: 60_000,
 *   namespace: 'default',
 *   tweakListOptions: (o) => { o.labelSelector = 'app=web'; },
 *   customResync: { 'v1/pods': 30_000 },
 * });
 * ```
 */
export function newSharedInformerFactory(
  client: InformerClient,
  options: number | SharedInformerFactoryOptions,
): SharedInformerFactory {
  return new SharedInformerFactory(
    client,
    typeof options === 'number' ? { defaultResyncMs: options } : options,
  );
}

/**
 * client-go's `NewSharedInformerFactoryWithOptions`: the default resync period (ms) and the
 * other settings apart.
 */
export function newSharedInformerFactoryWithOptions(
  client: InformerClient,
  defaultResyncMs: number,
  options: SharedInformerOptions = {},
): SharedInformerFactory {
  return new SharedInformerFactory(client, { ...options, defaultResyncMs });
}

/**
 * client-go's (deprecated) `NewFilteredSharedInformerFactory`: a factory limited to
 * `namespace` (`''` for all) whose list and watch options `tweakListOptions` changes.
 */
export function newFilteredSharedInformerFactory(
  client: InformerClient,
  ...filter: FilteredInformerFactoryArgs
): SharedInformerFactory {
  return new SharedInformerFactory(client, filteredInformerFactoryOptions(...filter));
}
