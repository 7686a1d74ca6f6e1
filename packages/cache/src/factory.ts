import type { ListQueryOptions } from '@kubets/apimachinery';
import {
  type GroupVersionResource,
  groupVersionToString,
  type Logger,
  silentLogger,
} from '@kubets/apimachinery';
import type { InformerName, InformerNameAndResource } from './identity.js';
import type { InformerMetricsProvider } from './informer-metrics.js';
import type { ReflectorMetricsProvider } from './reflector-metrics.js';
import type { SharedIndexInformer } from './shared-informer.js';
import { waitForCacheSync } from './wait.js';

/**
 * Settings of a {@link KeyedInformerFactory} (client-go's `SharedInformerOption`s), which
 * the typed and the dynamic factories pass on unchanged.
 */
export interface KeyedInformerFactoryOptions {
  /** Resync period of every informer, in milliseconds, unless `customResync` says otherwise; 0 for never. */
  defaultResyncMs: number;
  /** Namespace every informer is limited to; `''` (the default) for all namespaces. */
  namespace?: string | undefined;
  /** Changes the list and watch options of every informer, e.g. to add a label selector. */
  tweakListOptions?: ((options: ListQueryOptions) => void) | undefined;
  /** Resync periods per informer key (see {@link informerKey}), overriding `defaultResyncMs`. */
  customResync?: Readonly<Record<string, number>> | ReadonlyMap<string, number> | undefined;
  /**
   * Set as the transform of every informer the factory creates (client-go's
   * `WithTransform`), e.g. to drop `metadata.managedFields` before objects are cached. It
   * must return an object of the same resource.
   */
  transform?: ((obj: unknown) => unknown) | undefined;
  /** Where failures of informers are reported, and what informers get to log to. Default silent. */
  logger?: Logger | undefined;
  /**
   * The name the factory's informers are identified by in informer metrics (client-go's
   * `WithInformerName`), from `newInformerName(...)`: the informer of a resource gets
   * `informerName.withResource(resource)` as its `identifier`. Without it, the factory's
   * informers record no informer metrics.
   */
  informerName?: InformerName | undefined;
  /** Where the factory's informers record informer metrics. Default: the process-wide provider. */
  informerMetricsProvider?: InformerMetricsProvider | undefined;
  /** Where the factory's reflectors record reflector metrics. Default: the process-wide provider. */
  reflectorMetricsProvider?: ReflectorMetricsProvider | undefined;
}

/**
 * The metrics settings a factory hands each informer it creates, named as the options of
 * `newSharedIndexInformer`, so that a {@link NewInformerFunc} spreads them into those.
 */
export interface InformerMetricsOptions {
  /** The informer's identity: the factory's `informerName` with the informer's resource. */
  identifier?: InformerNameAndResource | undefined;
  /** The factory's `informerMetricsProvider`. */
  informerMetricsProvider?: InformerMetricsProvider | undefined;
  /** The factory's `reflectorMetricsProvider`, as the informer's reflector `metricsProvider`. */
  metricsProvider?: ReflectorMetricsProvider | undefined;
}

/** What a {@link NewInformerFunc} gets from the factory. */
export interface InformerFactoryContext {
  /** The resync period for this informer, in milliseconds. */
  resyncPeriodMs: number;
  /** The factory's namespace; `''` for all. */
  namespace: string;
  /** The factory's list-options tweak, to apply to the informer's ListerWatcher. */
  tweakListOptions: ((options: ListQueryOptions) => void) | undefined;
  /** The factory's logger, to hand to the informer; `undefined` when none was set. */
  logger: Logger | undefined;
  /** The informer's metrics settings, to spread into its options; empty when none were set. */
  metrics: InformerMetricsOptions;
}

/** Creates the informer for one resource key (client-go `NewInformerFunc`). */
export type NewInformerFunc<T> = (context: InformerFactoryContext) => SharedIndexInformer<T>;

/**
 * The key a resource's informer is registered under in a factory, and its entry in
 * `waitForCacheSync`'s result and in `customResync`: `apps/v1/deployments`, or `v1/pods`
 * for the core group.
 */
export function informerKey(gvr: GroupVersionResource): string {
  return `${groupVersionToString(gvr)}/${gvr.resource}`;
}

// The resource an informer key made by informerKey() names; undefined for other keys.
function parseInformerKey(key: string): GroupVersionResource | undefined {
  const parts = key.split('/');
  if (parts.some((part) => part === '')) return undefined;
  if (parts.length === 2) return { group: '', version: parts[0]!, resource: parts[1]! };
  if (parts.length === 3) return { group: parts[0]!, version: parts[1]!, resource: parts[2]! };
  return undefined;
}

/**
 * Hands out one shared informer per key and runs them together (client-go's
 * `sharedInformerFactory` without the typed accessors): the base of the typed factory of
 * `@kubets/informers` and of the dynamic factory of `@kubets/dynamic`, which call
 * {@link KeyedInformerFactory.informerFor} with the resource they are asked for.
 */
export interface KeyedInformerFactory {
  /** The namespace informers are limited to; `''` for all. */
  readonly namespace: string;
  /**
   * The informer registered under `key` (a string, or a resource, keyed by
   * {@link informerKey}), created with `newFunc` on first use and given the factory's
   * `transform`. Later calls return the same informer, whatever their `newFunc`.
   */
  informerFor<T>(
    key: string | GroupVersionResource,
    newFunc: NewInformerFunc<T>,
  ): SharedIndexInformer<T>;
  /** Starts every informer not started yet; they run until `signal` aborts or {@link shutdown}. */
  start(signal: AbortSignal): void;
  /**
   * Waits until every started informer has synced; resolves with key → synced (false for
   * those not synced when `signal` aborted).
   */
  waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>>;
  /** Stops every informer and resolves once all have stopped. `start` does nothing afterwards. */
  shutdown(): Promise<void>;
}

/**
 * The {@link KeyedInformerFactory} that {@link newKeyedInformerFactory} creates, as a class to
 * extend: a factory that adds its own accessors on top (the dynamic factory of
 * `@kubets/dynamic`) inherits `namespace`, `informerFor`, `start`, `waitForCacheSync` and
 * `shutdown` instead of forwarding each of them.
 */
export class KeyedInformerFactoryBase implements KeyedInformerFactory {
  readonly namespace: string;
  readonly #defaultResyncMs: number;
  readonly #tweakListOptions: ((options: ListQueryOptions) => void) | undefined;
  readonly #customResync: ReadonlyMap<string, number>;
  readonly #transform: ((obj: unknown) => unknown) | undefined;
  readonly #logger: Logger | undefined;
  readonly #informerName: InformerName | undefined;
  readonly #informerMetricsProvider: InformerMetricsProvider | undefined;
  readonly #reflectorMetricsProvider: ReflectorMetricsProvider | undefined;
  readonly #informers = new Map<string, SharedIndexInformer<unknown>>();
  readonly #running = new Map<string, Promise<void>>();
  readonly #shutdown = new AbortController();

  constructor(options: KeyedInformerFactoryOptions) {
    this.namespace = options.namespace ?? '';
    this.#defaultResyncMs = options.defaultResyncMs;
    this.#tweakListOptions = options.tweakListOptions;
    const custom = options.customResync;
    this.#customResync =
      custom === undefined
        ? new Map()
        : custom instanceof Map
          ? custom
          : new Map(Object.entries(custom as Record<string, number>));
    this.#transform = options.transform;
    this.#logger = options.logger;
    this.#informerName = options.informerName;
    this.#informerMetricsProvider = options.informerMetricsProvider;
    this.#reflectorMetricsProvider = options.reflectorMetricsProvider;
  }

  informerFor<T>(
    resource: string | GroupVersionResource,
    newFunc: NewInformerFunc<T>,
  ): SharedIndexInformer<T> {
    const key = typeof resource === 'string' ? resource : informerKey(resource);
    const existing = this.#informers.get(key);
    if (existing !== undefined) return existing as SharedIndexInformer<T>;
    const informer = newFunc({
      resyncPeriodMs: this.#customResync.get(key) ?? this.#defaultResyncMs,
      namespace: this.namespace,
      tweakListOptions: this.#tweakListOptions,
      logger: this.#logger,
      metrics: this.#metricsOptions(resource),
    });
    // As client-go's InformerFor: the factory's transform wins over the informer's own.
    if (this.#transform !== undefined) informer.setTransform(this.#transform as (obj: T) => T);
    this.#informers.set(key, informer as SharedIndexInformer<unknown>);
    return informer;
  }

  #metricsOptions(resource: string | GroupVersionResource): InformerMetricsOptions {
    const metrics: InformerMetricsOptions = {};
    const gvr = typeof resource === 'string' ? parseInformerKey(resource) : resource;
    if (this.#informerName !== undefined && gvr !== undefined) {
      metrics.identifier = this.#informerName.withResource(gvr);
    }
    if (this.#informerMetricsProvider !== undefined) {
      metrics.informerMetricsProvider = this.#informerMetricsProvider;
    }
    if (this.#reflectorMetricsProvider !== undefined) {
      metrics.metricsProvider = this.#reflectorMetricsProvider;
    }
    return metrics;
  }

  start(signal: AbortSignal): void {
    if (this.#shutdown.signal.aborted) return;
    const combined = AbortSignal.any([signal, this.#shutdown.signal]);
    for (const [key, informer] of this.#informers) {
      if (this.#running.has(key)) continue;
      const done = informer.run(combined).catch((err: unknown) => {
        (this.#logger ?? silentLogger).error('Informer failed', {
          informer: key,
          error: String(err),
        });
      });
      this.#running.set(key, done);
    }
  }

  async waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>> {
    const keys = Array.from(this.#running.keys());
    const results = await Promise.all(
      keys.map((key) => {
        const informer = this.#informers.get(key)!;
        return waitForCacheSync(signal, () => informer.hasSynced());
      }),
    );
    return new Map(keys.map((key, i) => [key, results[i]!]));
  }

  async shutdown(): Promise<void> {
    this.#shutdown.abort();
    await Promise.all(this.#running.values());
  }
}

/**
 * Creates a {@link KeyedInformerFactory} (client-go `NewSharedInformerFactoryWithOptions`,
 * for informers you make yourself).
 *
 * ```ts
 * const factory = newKeyedInformerFactory({ defaultResyncMs: 60_000 });
 * const informer = factory.informerFor('apps/v1/deployments', ({ resyncPeriodMs, namespace }) =>
 *   newSharedIndexInformer(deploymentsListWatch(namespace), 'deployments', { resyncPeriodMs }),
 * );
 * factory.start(signal);
 * await factory.waitForCacheSync(signal);
 * ```
 */
export function newKeyedInformerFactory(
  options: KeyedInformerFactoryOptions,
): KeyedInformerFactory {
  return new KeyedInformerFactoryBase(options);
}

/**
 * What client-go's `NewFilteredSharedInformerFactory` and
 * `NewFilteredDynamicSharedInformerFactory` take after the client: the default resync period
 * in milliseconds, the namespace every informer is limited to (`''` for all) and a change to
 * every informer's list and watch options, e.g. a label selector.
 */
export type FilteredInformerFactoryArgs = [
  defaultResyncMs: number,
  namespace: string,
  tweakListOptions?: (options: ListQueryOptions) => void,
];

/** The factory settings that {@link FilteredInformerFactoryArgs} stand for. */
export function filteredInformerFactoryOptions(
  ...[defaultResyncMs, namespace, tweakListOptions]: FilteredInformerFactoryArgs
): Pick<KeyedInformerFactoryOptions, 'defaultResyncMs' | 'namespace' | 'tweakListOptions'> {
  return { defaultResyncMs, namespace, ...(tweakListOptions ? { tweakListOptions } : {}) };
}
