import type { GroupVersionResource } from '@kubets/apimachinery';
import {
  type FilteredInformerFactoryArgs,
  filteredInformerFactoryOptions,
  type Indexers,
  type InformerMetricsOptions,
  informerKey,
  KeyedInformerFactoryBase,
  type KeyedInformerFactoryOptions,
  type ListerWatcher,
  type ListOptionsTweak,
  type Logger,
  metaNamespaceIndexFunc,
  namespaceIndex,
  newFilteredListWatchFromClient,
  newSharedIndexInformer,
  type SharedIndexInformer,
} from '@kubets/cache';
import type { DynamicClient } from './client.js';
import { type DynamicLister, newDynamicLister } from './dynamic-lister.js';
import { resolveGVR } from './gvr.js';
import type { Unstructured } from './unstructured.js';

/**
 * The shared informer and lister of one resource in a dynamic factory (client-go's
 * `informers.GenericInformer` as `dynamicinformer` hands it out).
 */
export interface DynamicInformer {
  /**
   * The factory's shared informer of this resource, created (and registered, so that
   * `factory.start` runs it) on first use. Every call returns the same informer.
   */
  informer(): SharedIndexInformer<Unstructured>;
  /** A lister over the informer's cache. Registers the informer too. */
  lister(): DynamicLister;
}

/**
 * Hands out one shared informer of {@link Unstructured} objects per
 * group/version/resource and runs them together (client-go's
 * `dynamicinformer.DynamicSharedInformerFactory`).
 */
export interface DynamicSharedInformerFactory {
  /** The namespace every informer is limited to; `''` for all. */
  readonly namespace: string;
  /**
   * The informer and lister of `gvr` (an object, or a string such as `apps/v1/deployments`,
   * `v1/pods` or `deployments.v1.apps`). Asking twice for the same resource returns the same
   * informer.
   */
  forResource(gvr: GroupVersionResource | string): DynamicInformer;
  /**
   * Starts every informer asked for so far and not started yet; they run until `signal`
   * aborts or {@link shutdown}. Returns at once.
   */
  start(signal: AbortSignal): void;
  /**
   * Waits until every started informer has synced. Resolves with key (`apps/v1/deployments`,
   * `v1/pods`) → synced; false for those not synced when `signal` aborted.
   */
  waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>>;
  /** Stops every informer and resolves once all have stopped. `start` does nothing afterwards. */
  shutdown(): Promise<void>;
}

/**
 * Settings of {@link newDynamicSharedInformerFactoryWithOptions}: the keyed factory's, which
 * it is built on, with a transform of {@link Unstructured} objects.
 */
export interface DynamicSharedInformerFactoryOptions
  extends Omit<KeyedInformerFactoryOptions, 'namespace' | 'transform'> {
  /**
   * Limit every informer to one namespace; `''` (the default) for all. As in client-go the
   * namespace applies to every resource, so a namespaced factory is for namespaced resources.
   */
  namespace?: string;
  /**
   * Applied to every object before it is cached (client-go's `WithTransform`), e.g. to drop
   * `metadata.managedFields`. It must return an object of the same resource.
   */
  transform?: (obj: Unstructured) => Unstructured;
}

/**
 * The {@link @kubets/cache!ListerWatcher | ListerWatcher} of a dynamic informer: lists and
 * watches `gvr` in `namespace` (`''` for all) through the dynamic client's REST client of the group/version, with
 * `tweakListOptions` changing every call's options. Listed items get the list's
 * `apiVersion` and kind (the server leaves them out of lists), as the dynamic client's
 * `list` does, so every cached object is a complete {@link Unstructured}.
 */
export function newFilteredDynamicListWatch(
  client: DynamicClient,
  gvr: GroupVersionResource,
  namespace: string,
  tweakListOptions?: ListOptionsTweak,
): ListerWatcher<Unstructured> {
  const resolved = resolveGVR(gvr);
  // The client list-watch gives listed items the list's apiVersion and kind.
  return newFilteredListWatchFromClient<Unstructured>(
    client.restClient(resolved),
    resolved.resource,
    namespace,
    tweakListOptions ?? (() => {}),
  );
}

/**
 * Options of {@link newFilteredDynamicInformer}; the metrics settings (`identifier`,
 * `informerMetricsProvider`, `metricsProvider`) are those of `newSharedIndexInformer`.
 */
export interface DynamicInformerOptions extends InformerMetricsOptions {
  /** Indexes of the cache; default: the `namespace` index. */
  indexers?: Indexers<Unstructured> | undefined;
  /** Changes the list and watch options, e.g. to set a label selector. */
  tweakListOptions?: ListOptionsTweak | undefined;
  /** Where informer failures are reported. Default silent. */
  logger?: Logger | undefined;
}

/**
 * A shared informer of `gvr`'s objects outside any factory (client-go's
 * `dynamicinformer.NewFilteredDynamicInformer`), with a lister over its cache. Run it with
 * `informer().run(signal)`.
 */
export function newFilteredDynamicInformer(
  client: DynamicClient,
  gvr: GroupVersionResource | string,
  namespace: string,
  resyncPeriodMs: number,
  options: DynamicInformerOptions = {},
): DynamicInformer {
  const resolved = resolveGVR(gvr);
  const informer = newSharedIndexInformer<Unstructured>(
    newFilteredDynamicListWatch(client, resolved, namespace, options.tweakListOptions),
    informerKey(resolved),
    {
      resyncPeriodMs,
      indexers: options.indexers ?? { [namespaceIndex]: metaNamespaceIndexFunc },
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.identifier ? { identifier: options.identifier } : {}),
      ...(options.informerMetricsProvider
        ? { informerMetricsProvider: options.informerMetricsProvider }
        : {}),
      ...(options.metricsProvider ? { metricsProvider: options.metricsProvider } : {}),
    },
  );
  return {
    informer: () => informer,
    lister: () => newDynamicLister(informer.getIndexer(), resolved),
  };
}

// The keyed factory's `namespace`, `start`, `waitForCacheSync` and `shutdown` are the dynamic
// factory's as they are; it adds `forResource`.
class DynamicSharedInformerFactoryImpl
  extends KeyedInformerFactoryBase
  implements DynamicSharedInformerFactory
{
  readonly #client: DynamicClient;

  constructor(client: DynamicClient, options: DynamicSharedInformerFactoryOptions) {
    super({
      ...options,
      // Every informer of a dynamic factory caches Unstructured objects: the transform fits
      // all of them.
      transform: options.transform as ((obj: unknown) => unknown) | undefined,
    });
    this.#client = client;
  }

  forResource(gvr: GroupVersionResource | string): DynamicInformer {
    const resolved = resolveGVR(gvr);
    const informer = (): SharedIndexInformer<Unstructured> =>
      this.informerFor<Unstructured>(
        resolved,
        ({ resyncPeriodMs, namespace, tweakListOptions, logger, metrics }) =>
          newFilteredDynamicInformer(this.#client, resolved, namespace, resyncPeriodMs, {
            ...(tweakListOptions ? { tweakListOptions } : {}),
            ...(logger ? { logger } : {}),
            ...metrics,
          }).informer(),
      );
    return {
      informer,
      lister: () => newDynamicLister(informer().getIndexer(), resolved),
    };
  }
}

/**
 * A dynamic shared informer factory over every namespace (client-go's
 * `dynamicinformer.NewDynamicSharedInformerFactory`):
 *
 * ```ts
 * const factory = newDynamicSharedInformerFactory(dynamicClient, 60_000);
 * const deployments = factory.forResource({ group: 'apps', version: 'v1', resource: 'deployments' });
 * deployments.informer().addEventHandler({ onAdd: (obj) => console.log('add', obj.metadata.name) });
 * factory.start(signal);
 * await factory.waitForCacheSync(signal);
 * deployments.lister().byNamespace('default').list();
 * ```
 *
 * Informers list and watch through the client's REST client of each group/version and have
 * the `namespace` index.
 */
export function newDynamicSharedInformerFactory(
  client: DynamicClient,
  defaultResyncMs: number,
): DynamicSharedInformerFactory {
  return new DynamicSharedInformerFactoryImpl(client, { defaultResyncMs });
}

/**
 * A dynamic shared informer factory limited to `namespace` (`''` for all) whose list and
 * watch options `tweakListOptions` changes (client-go's
 * `dynamicinformer.NewFilteredDynamicSharedInformerFactory`).
 */
export function newFilteredDynamicSharedInformerFactory(
  client: DynamicClient,
  ...filter: FilteredInformerFactoryArgs
): DynamicSharedInformerFactory {
  return new DynamicSharedInformerFactoryImpl(client, filteredInformerFactoryOptions(...filter));
}

/** A dynamic shared informer factory with every setting, including per-resource resync. */
export function newDynamicSharedInformerFactoryWithOptions(
  client: DynamicClient,
  options: DynamicSharedInformerFactoryOptions,
): DynamicSharedInformerFactory {
  return new DynamicSharedInformerFactoryImpl(client, options);
}
