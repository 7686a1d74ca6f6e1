import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock, type Logger, newTextLogger, realClock } from '@kubets/apimachinery';
import {
  type InformerName,
  type KeyedInformerFactoryOptions,
  newInformerName,
} from '@kubets/cache';
import { Clientset } from '@kubets/clientset';
import {
  DynamicClient,
  type DynamicSharedInformerFactory,
  newDynamicSharedInformerFactoryWithOptions,
} from '@kubets/dynamic';
import { newSharedInformerFactory, type SharedInformerFactory } from '@kubets/informers';
import { type LeaderElectionConfig, LeaseLock, runLeaderElection } from '@kubets/leaderelection';
import type { EventRecorder } from '@kubets/record';
import { type Config, copyConfig } from '@kubets/rest';
import type { WebhookServer, WebhookServerOptions } from '@kubets/webhook';
import type { MetricsProvider } from '@kubets/workqueue';
import type { ControllerDeps } from './builder.js';
import { InformerCache } from './cache.js';
import {
  type CacheOptions,
  cacheFactoryOptions,
  registerByObjectInformers,
} from './cache-options.js';
import {
  type CacheSyncSource,
  CacheSyncTimeoutError,
  defaultCacheSyncTimeoutMs,
  describeUnsynced,
  formatDuration,
} from './cache-sync.js';
import type { ControllerMetricsRecorder } from './controller-metrics.js';
import { EventRecorderProvider } from './event-recorder.js';
import { type HealthChecker, HealthChecks, healthProbeHandler } from './health-checks.js';
import { loadPromClient } from './prom-client.js';
import {
  type ManagerMetricsRecorder,
  newPrometheusControllerMetrics,
  newPrometheusManagerMetrics,
} from './prometheus-metrics.js';
import { recordManagerRbac } from './rbac.js';
import type { Runnable } from './runnable.js';
import {
  type BindAddress,
  type Endpoint,
  parseBindAddress,
  serveEndpoint,
} from './serve-endpoint.js';
import { ManagerWebhooks } from './webhooks.js';

/**
 * Leader election of a {@link Manager} over a `coordination.k8s.io/v1` Lease: of several
 * replicas, only the leader runs the controllers; all of them keep their caches warm.
 */
export interface ManagerLeaderElection
  extends Pick<LeaderElectionConfig, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'> {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease, the same for every replica. */
  name: string;
  /** This replica's identity; default the hostname and a random UUID. */
  identity?: string;
  /**
   * Give the Lease up on shutdown, once the controllers have finished, so another replica
   * takes over at once instead of after the lease expired. Default false.
   */
  releaseOnCancel?: boolean;
}

/** Settings of a {@link Manager}. */
export interface ManagerOptions {
  /** Run the controllers only while this replica holds the Lease. Default: always run them. */
  leaderElection?: ManagerLeaderElection;
  /** Limit the informers of namespaced resources to one namespace; `''` (default) for all. */
  namespace?: string;
  /**
   * What the informers cache, per resource (`byObject`) and by default (controller-runtime's
   * `cache.Options`): namespaces, label and field selectors, transforms.
   */
  cache?: CacheOptions;
  /**
   * Resync period of every informer in milliseconds: each cached object is reconciled again
   * this often. Default 10 hours, as controller-runtime's `SyncPeriod`; 0 for never.
   */
  resyncMs?: number;
  /**
   * Where the manager, its clients, informers and controllers log. Default klog's text
   * format on stderr (`newTextLogger()` of `@kubets/apimachinery`), as an operator's
   * manager logs; pass `silentLogger` for none, or an adapter of your logger (pino:
   * `@kubets/controller/pino`).
   */
  logger?: Logger;
  /** Time source of the controllers' work queues and the clients; a `FakeClock` in tests. */
  clock?: Clock;
  /**
   * Where to serve Prometheus metrics on `/metrics`: `'host:port'`, `':port'` (every
   * interface), or `'0'` to disable. Default `'0'` (controller-runtime's default is
   * `':8080'`; a library opens no port unasked). Needs the optional peer dependency
   * `prom-client`. The registry holds controller-runtime's `controller_runtime_*` metrics of
   * every controller of this manager, client-go's `workqueue_*` metrics of their queues, the
   * informers' and reflectors' metrics, `leader_election_master_status`,
   * `rest_client_requests_total` of the manager's clients, and the process metrics
   * (prom-client's default collectors).
   */
  metricsBindAddress?: string;
  /**
   * Where to serve `/healthz` and `/readyz` (controller-runtime's format): `'host:port'`,
   * `':port'`, or `'0'` (default) to disable.
   */
  healthProbeBindAddress?: string;
  /**
   * How long `start` waits for the controllers to finish their reconciles in flight once
   * its signal aborted (controller-runtime's `GracefulShutdownTimeout`, default 30 s). When
   * they take longer, `start` stops waiting and rejects. 0 stops waiting at once (and
   * resolves); a negative value or `Infinity` waits as long as it takes.
   */
  gracefulShutdownTimeoutMs?: number;
  /**
   * How long `start` waits for the informers to sync before it fails with a
   * `CacheSyncTimeoutError` naming the resources not synced and their last list errors
   * (controller-runtime's `CacheSyncTimeout`), e.g. when a CRD is not installed. Also the
   * default of every controller built on this manager. Default 2 minutes.
   */
  cacheSyncTimeoutMs?: number;
  /**
   * The webhook server (`WebhookServer` of `@kubets/webhook`), or the options of the one the
   * manager makes when a webhook is first registered (default port 9443, logging and counting
   * metrics with the manager). It runs on every replica, leader or not.
   */
  webhookServer?: WebhookServer | WebhookServerOptions;
}

/**
 * The part of a prom-client `Registry` a {@link Manager} exposes: enough to serve or merge
 * its metrics without this package's types depending on prom-client.
 */
export interface MetricsRegistry {
  /** The metrics in the Prometheus text format. */
  metrics(): Promise<string>;
  /** The `Content-Type` of that text. */
  readonly contentType: string;
}

/** controller-runtime's default `SyncPeriod`. */
const defaultResyncMs = 10 * 60 * 60 * 1000;

/** Reads a manager's leader-election options; set by the class's static block. */
let leaderElectionOf: (mgr: Manager) => ManagerLeaderElection | undefined;

/** @internal Whether `mgr` was built with leader election (its controllers run on its leader only). */
export function managerUsesLeaderElection(mgr: Manager): boolean {
  return leaderElectionOf(mgr) !== undefined;
}

/**
 * Runs controllers over shared caches (controller-runtime's `Manager`): it owns the clients
 * built from one REST config, the typed and the dynamic shared informer factory, and the
 * controllers added to it (`controller(mgr)...complete()` adds them). `start(signal)` starts
 * the informers, waits for their caches, runs the controllers, and stops all of it when
 * `signal` aborts.
 */
export class Manager implements ControllerDeps {
  /**
   * The REST configuration the clients are built from: the one given, or, when metrics are
   * served, a copy whose `onRequestResult` also counts `rest_client_requests_total`.
   */
  readonly config: Config;
  /** The typed clientset. */
  readonly clientset: Clientset;
  /** The dynamic client, for resources known only at run time. */
  readonly dynamicClient: DynamicClient;
  /** The typed shared informer factory every controller's watches use. */
  readonly informers: SharedInformerFactory;
  /** The dynamic shared informer factory, started and synced with the typed one. */
  readonly dynamicInformers: DynamicSharedInformerFactory;
  /**
   * Reads objects from the shared informers, by namespace, labels and indexed fields
   * (controller-runtime's `mgr.GetCache()`); readable while the manager runs.
   */
  readonly cache: InformerCache;
  /** The manager's logger. */
  readonly logger: Logger;
  /** The controllers' clock. */
  readonly clock: Clock | undefined;
  /**
   * The prom-client `Registry` this manager's metrics are in, when `metricsBindAddress` is
   * set; `undefined` otherwise.
   */
  readonly metricsRegistry: MetricsRegistry | undefined;
  /** @internal Read by `controller(mgr)`. */
  readonly controllerMetrics: ControllerMetricsRecorder | undefined;
  /** @internal Read by `controller(mgr)`. */
  readonly workqueueMetrics: MetricsProvider | undefined;
  /** How long `start` and the controllers wait for caches to sync, in milliseconds. */
  readonly cacheSyncTimeoutMs: number;
  /** The webhook server and what is registered on it (`webhookFor`, `registerConversion`). */
  readonly webhooks: ManagerWebhooks;
  readonly #managerMetrics: ManagerMetricsRecorder | undefined;
  readonly #metricsBind: BindAddress | undefined;
  #metricsEndpoint: Endpoint | undefined;
  readonly #healthBind: BindAddress | undefined;
  #healthEndpoint: Endpoint | undefined;
  readonly #healthz = new HealthChecks('healthz');
  readonly #readyz = new HealthChecks('readyz');
  #synced = false;
  readonly #gracefulShutdownMs: number;
  #leaseLost = false;
  readonly #runnables: Runnable[] = [];
  readonly #leaderElection: ManagerLeaderElection | undefined;
  readonly #events: EventRecorderProvider;
  readonly #informerName: InformerName | undefined;
  #started = false;
  #leading = false;
  // Ends the leader election at once: when start stops waiting for the runnables to drain.
  #endElection: (() => void) | undefined;

  static {
    leaderElectionOf = (mgr) => mgr.#leaderElection;
  }

  /**
   * @throws {TypeError} without a REST config; `RangeError` for an option out of range.
   */
  constructor(config: Config, options: ManagerOptions = {}) {
    if (typeof config !== 'object' || config === null) {
      throw new TypeError(
        'a Manager needs a REST config: new Manager(getConfig(), options), or { host } for a local server',
      );
    }
    const resyncMs = options.resyncMs ?? defaultResyncMs;
    if (!(Number.isFinite(resyncMs) && resyncMs >= 0)) {
      throw new RangeError(
        `manager resyncMs must be a number of milliseconds ≥ 0, got ${resyncMs}`,
      );
    }
    this.#metricsBind = parseBindAddress(options.metricsBindAddress ?? '0', 'metricsBindAddress');
    let informerMetrics: Pick<
      KeyedInformerFactoryOptions,
      'informerName' | 'informerMetricsProvider' | 'reflectorMetricsProvider'
    > = {};
    if (this.#metricsBind) {
      const { prom, newWorkqueueProvider, newInformerProvider, newReflectorProvider } =
        loadPromClient();
      const registry = new prom.Registry();
      this.metricsRegistry = registry;
      this.controllerMetrics = newPrometheusControllerMetrics(prom, registry);
      this.#managerMetrics = newPrometheusManagerMetrics(prom, registry);
      this.workqueueMetrics = newWorkqueueProvider(registry);
      this.#informerName = reserveInformerName();
      informerMetrics = {
        informerName: this.#informerName,
        informerMetricsProvider: newInformerProvider(registry),
        reflectorMetricsProvider: newReflectorProvider(registry),
      };
    } else {
      this.metricsRegistry = undefined;
      this.controllerMetrics = undefined;
      this.workqueueMetrics = undefined;
      this.#managerMetrics = undefined;
    }
    const grace = options.gracefulShutdownTimeoutMs ?? 30_000;
    if (typeof grace !== 'number' || Number.isNaN(grace)) {
      throw new RangeError(
        `manager gracefulShutdownTimeoutMs must be a number of milliseconds, got ${String(grace)}`,
      );
    }
    this.#gracefulShutdownMs = grace;
    const syncTimeout = options.cacheSyncTimeoutMs ?? defaultCacheSyncTimeoutMs;
    if (!(typeof syncTimeout === 'number' && syncTimeout > 0 && Number.isFinite(syncTimeout))) {
      throw new RangeError(
        `manager cacheSyncTimeoutMs must be a finite number of milliseconds > 0, got ${String(syncTimeout)}`,
      );
    }
    this.cacheSyncTimeoutMs = syncTimeout;
    this.#healthBind = parseBindAddress(
      options.healthProbeBindAddress ?? '0',
      'healthProbeBindAddress',
    );
    this.#readyz.add('informers-synced', () => {
      if (this.#synced) return;
      const unsynced = this.#cacheSyncSources().filter((s) => !s.hasSynced());
      throw new Error(
        unsynced.length === 0
          ? 'the informers have not synced yet'
          : `informers not synced: ${describeUnsynced(unsynced)}`,
      );
    });
    if (options.leaderElection) {
      this.#healthz.add('leader-election', () => {
        if (this.#leaseLost) throw new Error('leader election lost');
      });
    }
    const managerMetrics = this.#managerMetrics;
    if (managerMetrics !== undefined) {
      // The clients' requests are counted, and then handed to the config's own hook.
      const own = config.onRequestResult;
      config = copyConfig(config, {
        onRequestResult: (result) => {
          managerMetrics.requestResult(result);
          own?.(result);
        },
      });
    }
    this.config = config;
    this.#leaderElection = options.leaderElection;
    this.logger = options.logger ?? newTextLogger();
    this.clock = options.clock;
    this.clientset = new Clientset(config, options.clock ? { clock: options.clock } : {});
    this.dynamicClient = new DynamicClient(config);
    this.#events = new EventRecorderProvider(this.clientset, this.logger);
    const shared = {
      defaultResyncMs: resyncMs,
      namespace: options.namespace ?? '',
      logger: this.logger,
      ...informerMetrics,
      ...cacheFactoryOptions(options.cache),
    };
    this.informers = newSharedInformerFactory(this.clientset, shared);
    this.dynamicInformers = newDynamicSharedInformerFactoryWithOptions(this.dynamicClient, shared);
    registerByObjectInformers(this.informers, options.cache);
    recordManagerRbac(this, {
      namespace: options.namespace ?? '',
      leaderElection: options.leaderElection,
      cached: (options.cache?.byObject ?? []).map((b) => ({
        resource: b.resource,
        namespace: b.namespace,
      })),
    });
    this.cache = new InformerCache(this);
    this.webhooks = new ManagerWebhooks(this, options.webhookServer);
  }

  /**
   * An event recorder whose Events name `name` as their source component
   * (controller-runtime's `GetEventRecorderFor`). Every controller built on this manager gets
   * one named after itself as `ctx.recorder`; ask for others here. The Events are written
   * through the manager's clientset by one broadcaster (created on the first call), with
   * `@kubets/record`'s aggregation and spam filtering; the broadcaster stops when
   * {@link start} has stopped.
   *
   * @throws {TypeError} for an empty name.
   */
  eventRecorderFor(name: string): EventRecorder {
    return this.#events.recorderFor(name);
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
    const drain = this.#drainDeadline(stop.signal);
    let webhooks: { readonly stopped: Promise<void> } | undefined;
    try {
      await this.#serveMetrics();
      webhooks = await this.webhooks.start(stop.signal, (error) => {
        failure ??= { error };
        stop.abort(error);
      });
      if (this.#healthBind) {
        this.#healthEndpoint = await serveEndpoint(
          this.#healthBind,
          healthProbeHandler([this.#healthz, this.#readyz]),
        );
        this.logger.info('Serving health probes', { bindAddress: this.#healthEndpoint.address });
      }
      this.informers.start(stop.signal);
      this.dynamicInformers.start(stop.signal);
      this.cache.startWith(stop.signal);
      const informers = await this.#waitForCacheSync(stop.signal);
      if (stop.signal.aborted) return;
      this.#synced = true;
      this.logger.info('Caches synced', { informers });
      const runAll = (runSignal: AbortSignal): Promise<unknown> =>
        Promise.all(
          this.#runnables.map((r) =>
            r.run(runSignal).catch((error: unknown) => {
              // A runnable that passes on the abort of its stop did not fail (controller-runtime
              // drops context.Canceled the same way).
              if (runSignal.aborted && isAbortOf(error, runSignal)) return;
              this.logger.error('Runnable failed; stopping the manager', {
                runnable: r.name,
                error,
              });
              failure ??= { error };
              stop.abort(error);
            }),
          ),
        );
      if (this.#leaderElection === undefined) {
        this.#leading = true;
        // A webhook server keeps the manager running as a runnable does.
        await Promise.race([Promise.all([runAll(stop.signal), webhooks?.stopped]), drain.passed]);
      } else {
        await Promise.race([
          this.#runElected(runAll, stop, (error) => {
            failure ??= { error };
          }),
          drain.passed,
        ]);
      }
    } finally {
      drain.cancel();
      this.#endElection?.();
      this.#endElection = undefined;
      signal.removeEventListener('abort', onAbort);
      this.#leading = false;
      stop.abort();
      await Promise.all([
        this.informers.shutdown(),
        this.dynamicInformers.shutdown(),
        this.#metricsEndpoint?.close(),
        this.#healthEndpoint?.close(),
        webhooks?.stopped,
      ]);
      // Once the controllers have stopped, nothing records any more; what the sink has not
      // written yet is dropped (client-go's broadcaster Shutdown), so a stop never hangs on
      // an unreachable server.
      await this.#events.shutdown();
      this.#metricsEndpoint = undefined;
      this.#healthEndpoint = undefined;
      this.#synced = false;
      this.#informerName?.release();
      this.logger.info('Manager stopped');
    }
    if (failure) throw failure.error;
  }

  /**
   * Where `/metrics` is served while the manager runs (with the real port when
   * `metricsBindAddress` asked for port 0); `undefined` before it listens, after it stopped,
   * or when metrics are disabled.
   */
  metricsAddress(): BindAddress | undefined {
    return this.#metricsEndpoint?.address;
  }

  /**
   * Adds a liveness check served at `/healthz` (and `/healthz/<name>`); throwing means
   * unhealthy. With leader election there is a built-in `leader-election` check that fails
   * once the Lease was lost.
   *
   * @throws {TypeError} for a name that is not a URL path segment or a check that is not a
   *   function; `Error` for a name already added.
   */
  addHealthzCheck(name: string, check: HealthChecker): void {
    this.#healthz.add(name, check);
  }

  /**
   * Adds a readiness check served at `/readyz` (and `/readyz/<name>`); throwing means not
   * ready. The built-in `informers-synced` check fails until every informer has synced.
   *
   * @throws as {@link Manager.addHealthzCheck}.
   */
  addReadyzCheck(name: string, check: HealthChecker): void {
    this.#readyz.add(name, check);
  }

  /** Where `/healthz` and `/readyz` are served while the manager runs, as {@link Manager.metricsAddress}. */
  healthProbeAddress(): BindAddress | undefined {
    return this.#healthEndpoint?.address;
  }

  // The caches the controllers added so far wait for, one per resource.
  #cacheSyncSources(): CacheSyncSource[] {
    const byResource = new Map<string, CacheSyncSource>();
    for (const r of this.#runnables) {
      const sources = (r as Partial<CacheSyncing>).cacheSyncSources?.() ?? [];
      for (const s of sources) if (!byResource.has(s.resource)) byResource.set(s.resource, s);
    }
    return [...byResource.values()];
  }

  // Waits for every informer of both factories; past the cache sync timeout, throws naming
  // those not synced (by the controllers' sources where they know their last list error).
  async #waitForCacheSync(stop: AbortSignal): Promise<number> {
    const deadline = new AbortController();
    const onStop = (): void => deadline.abort();
    stop.addEventListener('abort', onStop, { once: true });
    let timedOut = false;
    const timer = (this.clock ?? realClock).setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, this.cacheSyncTimeoutMs);
    timer.unref?.();
    try {
      const results = await Promise.all([
        this.informers.waitForCacheSync(deadline.signal),
        this.dynamicInformers.waitForCacheSync(deadline.signal),
      ]);
      const unsynced = results.flatMap((m) => [...m].filter(([, ok]) => !ok).map(([key]) => key));
      if (stop.aborted || !timedOut || unsynced.length === 0) {
        return results.reduce((n, m) => n + m.size, 0);
      }
      const known = new Map(this.#cacheSyncSources().map((s) => [s.resource, s]));
      const sources = unsynced.map(
        (key): CacheSyncSource => known.get(key) ?? { resource: key, hasSynced: () => false },
      );
      const lastError = sources.map((s) => s.lastListError?.()).find((e) => e !== undefined);
      throw new CacheSyncTimeoutError(
        `failed to wait for caches to sync: timed out after ${formatDuration(this.cacheSyncTimeoutMs)}: ${describeUnsynced(sources)}`,
        unsynced,
        lastError === undefined ? undefined : { cause: lastError },
      );
    } finally {
      timer.cancel();
      stop.removeEventListener('abort', onStop);
    }
  }

  // Settles when the drain after `stop` aborts has taken too long: rejects past a positive
  // timeout, resolves at once for 0, never for a negative or infinite one.
  #drainDeadline(stop: AbortSignal): { passed: Promise<void>; cancel(): void } {
    const ms = this.#gracefulShutdownMs;
    let cancel = (): void => {};
    const passed = new Promise<void>((resolve, reject) => {
      if (ms < 0 || ms === Number.POSITIVE_INFINITY) return;
      const arm = (): void => {
        if (ms === 0) {
          resolve();
          return;
        }
        const timer = (this.clock ?? realClock).setTimeout(() => {
          reject(
            new Error(
              `failed waiting for all runnables to end within grace period of ${ms / 1000}s: context deadline exceeded`,
            ),
          );
        }, ms);
        timer.unref?.();
        cancel = () => timer.cancel();
      };
      if (stop.aborted) arm();
      else stop.addEventListener('abort', arm, { once: true });
      const prev = cancel;
      cancel = () => {
        stop.removeEventListener('abort', arm);
        prev();
      };
    });
    // A deadline that fires after start has settled must not be an unhandled rejection.
    passed.catch(() => {});
    return { passed, cancel: () => cancel() };
  }

  async #serveMetrics(): Promise<void> {
    const registry = this.metricsRegistry;
    if (this.#metricsBind === undefined || registry === undefined) return;
    this.#metricsEndpoint = await serveEndpoint(this.#metricsBind, async (req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== '/metrics') {
        res
          .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
          .end('404 page not found\n');
        return;
      }
      const body = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType }).end(body);
    });
    this.logger.info('Serving metrics server', { bindAddress: this.#metricsEndpoint.address });
  }

  /**
   * Whether this replica runs its controllers now: true while started without leader
   * election, or while holding the Lease.
   */
  isLeader(): boolean {
    return this.#leading;
  }

  async #runElected(
    runAll: (signal: AbortSignal) => Promise<unknown>,
    stop: AbortController,
    fail: (error: unknown) => void,
  ): Promise<void> {
    const election = this.#leaderElection as ManagerLeaderElection;
    const identity = election.identity ?? `${hostname()}_${randomUUID()}`;
    let running: Promise<unknown> | undefined;
    // As controller-runtime: the election ends (and with releaseOnCancel the Lease is given
    // up) only once the runnables have finished, so no other replica acts while they drain.
    const electionStop = new AbortController();
    const endElection = (): void => {
      void Promise.resolve(running).finally(() => electionStop.abort());
    };
    if (stop.signal.aborted) endElection();
    else stop.signal.addEventListener('abort', endElection, { once: true });
    this.#endElection = () => electionStop.abort();
    this.#managerMetrics?.leader(election.name, false);
    await runLeaderElection(
      {
        lock: new LeaseLock({
          namespace: election.namespace,
          name: election.name,
          client: this.clientset,
          identity,
        }),
        leaseDurationMs: election.leaseDurationMs,
        renewDeadlineMs: election.renewDeadlineMs,
        retryPeriodMs: election.retryPeriodMs,
        releaseOnCancel: election.releaseOnCancel ?? false,
        logger: this.logger,
        ...(this.clock ? { clock: this.clock } : {}),
        callbacks: {
          onStartedLeading: (leading) => {
            this.#leading = true;
            this.#managerMetrics?.leader(election.name, true);
            this.logger.info('Became leader; starting controllers', { identity });
            running = runAll(AbortSignal.any([leading, stop.signal]));
          },
          onStoppedLeading: () => {
            this.#leading = false;
            this.#managerMetrics?.leader(election.name, false);
            // Losing the Lease while still meant to run: another replica may be acting
            // already, so this one must stop, as controller-runtime's manager exits.
            if (!stop.signal.aborted) {
              this.#leaseLost = true;
              fail(
                new Error(
                  `leader election lost: ${identity} no longer holds lease ${election.namespace}/${election.name}`,
                ),
              );
              stop.abort();
            }
          },
        },
      },
      electionStop.signal,
    );
    stop.signal.removeEventListener('abort', endElection);
    await running;
  }
}

// The signal's own reason, or an AbortError.
function isAbortOf(error: unknown, signal: AbortSignal): boolean {
  return error === signal.reason || (error instanceof Error && error.name === 'AbortError');
}

/** A runnable that knows which caches it waits for (a `Controller`). */
interface CacheSyncing {
  cacheSyncSources(): readonly CacheSyncSource[];
}

// Informer names are unique per process (client-go's registry); each metrics-serving manager
// takes the first free one, so that two managers in one process (tests, replicas under leader
// election) both publish their informers' metrics, each to its own registry.
function reserveInformerName(): InformerName {
  for (let n = 1; ; n++) {
    const name = n === 1 ? 'controller-manager' : `controller-manager-${n}`;
    try {
      return newInformerName(name);
    } catch {
      // Taken by another manager of this process: try the next.
    }
  }
}
