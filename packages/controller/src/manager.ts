import { type Clock, type Logger, silentLogger } from '@kubets/apimachinery';
import { Clientset } from '@kubets/clientset';
import {
  DynamicClient,
  type DynamicSharedInformerFactory,
  newDynamicSharedInformerFactoryWithOptions,
} from '@kubets/dynamic';
import { newSharedInformerFactory, type SharedInformerFactory } from '@kubets/informers';
import type { Config } from '@kubets/rest';
import type { ControllerDeps } from './builder.js';
import type { Runnable } from './runnable.js';

/** Settings of a {@link Manager}. */
export interface ManagerOptions {
  /** Limit the informers of namespaced resources to one namespace; `''` (default) for all. */
  namespace?: string;
  /**
   * Resync period of every informer in milliseconds: each cached object is reconciled again
   * this often. Default 10 hours, as controller-runtime's `SyncPeriod`; 0 for never.
   */
  resyncMs?: number;
  /** Where the manager, its informers and its controllers log. Default silent. */
  logger?: Logger;
  /** Time source of the controllers' work queues and the clients; a `FakeClock` in tests. */
  clock?: Clock;
}

/** controller-runtime's default `SyncPeriod`. */
const defaultResyncMs = 10 * 60 * 60 * 1000;

/**
 * Runs controllers over shared caches (controller-runtime's `Manager`): it owns the clients
 * built from one REST config, the typed and the dynamic shared informer factory, and the
 * controllers added to it (`controller(mgr)...complete()` adds them). `start(signal)` starts
 * the informers, waits for their caches, runs the controllers, and stops all of it when
 * `signal` aborts.
 */
export class Manager implements ControllerDeps {
  /** The REST configuration the clients are built from. */
  readonly config: Config;
  /** The typed clientset. */
  readonly clientset: Clientset;
  /** The dynamic client, for resources known only at run time. */
  readonly dynamicClient: DynamicClient;
  /** The typed shared informer factory every controller's watches use. */
  readonly informers: SharedInformerFactory;
  /** The dynamic shared informer factory, started and synced with the typed one. */
  readonly dynamicInformers: DynamicSharedInformerFactory;
  /** The manager's logger. */
  readonly logger: Logger;
  /** The controllers' clock. */
  readonly clock: Clock | undefined;
  readonly #runnables: Runnable[] = [];
  #started = false;

  constructor(config: Config, options: ManagerOptions = {}) {
    const resyncMs = options.resyncMs ?? defaultResyncMs;
    if (!(Number.isFinite(resyncMs) && resyncMs >= 0)) {
      throw new RangeError(
        `manager resyncMs must be a number of milliseconds ≥ 0, got ${resyncMs}`,
      );
    }
    this.config = config;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock;
    this.clientset = new Clientset(config, options.clock ? { clock: options.clock } : {});
    this.dynamicClient = new DynamicClient(config);
    const shared = {
      defaultResyncMs: resyncMs,
      namespace: options.namespace ?? '',
      logger: this.logger,
    };
    this.informers = newSharedInformerFactory(this.clientset, shared);
    this.dynamicInformers = newDynamicSharedInformerFactoryWithOptions(this.dynamicClient, shared);
  }

  /**
   * Adds a controller or other runnable, to be run by {@link start}.
   *
   * @throws {Error} after `start`, or when a runnable of the same name was added.
   */
  add(runnable: Runnable): void {
    if (this.#started) {
      throw new Error(`cannot add ${runnable.name} to a manager that was already started`);
    }
    if (this.#runnables.some((r) => r.name === runnable.name)) {
      throw new Error(
        `a controller named ${runnable.name} was already added: name controllers uniquely with named()`,
      );
    }
    this.#runnables.push(runnable);
  }

  /**
   * Starts the informers, waits until their caches have synced, then runs every added
   * runnable until `signal` aborts; then stops the informers. Resolves once everything has
   * stopped. When a runnable fails, the others are stopped and `start` rejects with its error.
   *
   * @throws {Error} when called a second time.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error('the manager was already started');
    this.#started = true;
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let failure: { error: unknown } | undefined;
    try {
      this.informers.start(stop.signal);
      this.dynamicInformers.start(stop.signal);
      const synced = await Promise.all([
        this.informers.waitForCacheSync(stop.signal),
        this.dynamicInformers.waitForCacheSync(stop.signal),
      ]);
      if (stop.signal.aborted) return;
      this.logger.info('Caches synced', { informers: synced.reduce((n, m) => n + m.size, 0) });
      await Promise.all(
        this.#runnables.map((r) =>
          r.run(stop.signal).catch((error: unknown) => {
            this.logger.error('Runnable failed; stopping the manager', { runnable: r.name, error });
            failure ??= { error };
            stop.abort(error);
          }),
        ),
      );
    } finally {
      signal.removeEventListener('abort', onAbort);
      stop.abort();
      await Promise.all([this.informers.shutdown(), this.dynamicInformers.shutdown()]);
      this.logger.info('Manager stopped');
    }
    if (failure) throw failure.error;
  }
}
