import { type Logger, silentLogger } from '@kubets/apimachinery';
import type { ListOptions } from './listwatch.js';
import type { SharedIndexInformer } from './shared-informer.js';
import { waitForCacheSync } from './wait.js';

/** Settings of a {@link SharedInformerFactory}. */
export interface SharedInformerFactoryOptions {
  /** Resync period of every informer, in milliseconds, unless `customResync` says otherwise; 0 for never. */
  defaultResyncMs: number;
  /** Namespace every informer is limited to; `''` (the default) for all namespaces. */
  namespace?: string;
  /** Changes the list and watch options of every informer, e.g. to add a label selector. */
  tweakListOptions?: (options: ListOptions) => void;
  /** Resync periods per informer key, overriding `defaultResyncMs`. */
  customResync?: Readonly<Record<string, number>> | ReadonlyMap<string, number>;
  /** Where failures of informers are reported. Default silent. */
  logger?: Logger;
}

/** What a {@link NewInformerFunc} gets from the factory. */
export interface InformerFactoryContext {
  /** The resync period for this informer, in milliseconds. */
  resyncPeriodMs: number;
  /** The factory's namespace; `''` for all. */
  namespace: string;
  /** The factory's list-options tweak, to apply to the informer's ListerWatcher. */
  tweakListOptions: ((options: ListOptions) => void) | undefined;
}

/** Creates the informer for one resource key (client-go `NewInformerFunc`). */
export type NewInformerFunc<T> = (context: InformerFactoryContext) => SharedIndexInformer<T>;

/**
 * Hands out one shared informer per resource and runs them together (client-go
 * `SharedInformerFactory`). Typed factories (`@kubets/informers`) and the dynamic factory
 * build on it: they call {@link informerFor} with a key such as `"apps/v1/deployments"`.
 */
export interface SharedInformerFactory {
  /** The namespace informers are limited to; `''` for all. */
  readonly namespace: string;
  /**
   * The informer registered under `key`, created with `newFunc` on first use. Later calls
   * return the same informer, whatever their `newFunc`.
   */
  informerFor<T>(key: string, newFunc: NewInformerFunc<T>): SharedIndexInformer<T>;
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

class SharedInformerFactoryImpl implements SharedInformerFactory {
  readonly namespace: string;
  readonly #defaultResyncMs: number;
  readonly #tweakListOptions: ((options: ListOptions) => void) | undefined;
  readonly #customResync: ReadonlyMap<string, number>;
  readonly #logger: Logger;
  readonly #informers = new Map<string, SharedIndexInformer<unknown>>();
  readonly #running = new Map<string, Promise<void>>();
  readonly #shutdown = new AbortController();

  constructor(options: SharedInformerFactoryOptions) {
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
    this.#logger = options.logger ?? silentLogger;
  }

  informerFor<T>(key: string, newFunc: NewInformerFunc<T>): SharedIndexInformer<T> {
    const existing = this.#informers.get(key);
    if (existing !== undefined) return existing as SharedIndexInformer<T>;
    const informer = newFunc({
      resyncPeriodMs: this.#customResync.get(key) ?? this.#defaultResyncMs,
      namespace: this.namespace,
      tweakListOptions: this.#tweakListOptions,
    });
    this.#informers.set(key, informer as SharedIndexInformer<unknown>);
    return informer;
  }

  start(signal: AbortSignal): void {
    if (this.#shutdown.signal.aborted) return;
    const combined = AbortSignal.any([signal, this.#shutdown.signal]);
    for (const [key, informer] of this.#informers) {
      if (this.#running.has(key)) continue;
      const done = informer.run(combined).catch((err: unknown) => {
        this.#logger.error('Informer failed', { informer: key, error: String(err) });
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
 * Creates a {@link SharedInformerFactory} (client-go `NewSharedInformerFactoryWithOptions`).
 *
 * ```ts
 * const factory = newSharedInformerFactory({ defaultResyncMs: 60_000 });
 * const informer = factory.informerFor('apps/v1/deployments', ({ resyncPeriodMs, namespace }) =>
 *   newSharedIndexInformer(deploymentsListWatch(namespace), 'deployments', { resyncPeriodMs }),
 * );
 * factory.start(signal);
 * await factory.waitForCacheSync(signal);
 * ```
 */
export function newSharedInformerFactory(
  options: SharedInformerFactoryOptions,
): SharedInformerFactory {
  return new SharedInformerFactoryImpl(options);
}
