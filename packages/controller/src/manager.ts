import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock, type Logger, silentLogger } from '@kubets/apimachinery';
import { Clientset } from '@kubets/clientset';
import {
  DynamicClient,
  type DynamicSharedInformerFactory,
  newDynamicSharedInformerFactoryWithOptions,
} from '@kubets/dynamic';
import { newSharedInformerFactory, type SharedInformerFactory } from '@kubets/informers';
import { LeaseLock, runLeaderElection } from '@kubets/leaderelection';
import type { Config } from '@kubets/rest';
import type { ControllerDeps } from './builder.js';
import type { Runnable } from './runnable.js';

/**
 * Leader election of a {@link Manager} over a `coordination.k8s.io/v1` Lease: of several
 * replicas, only the leader runs the controllers; all of them keep their caches warm.
 */
export interface ManagerLeaderElection {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease, the same for every replica. */
  name: string;
  /** This replica's identity; default the hostname and a random UUID. */
  identity?: string;
  /** How long a lease lasts without renewal (default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it gives up (default 10 s). */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew (default 2 s). */
  retryPeriodMs?: number;
  /**
   * Give the Lease up on shutdown so another replica takes over at once, instead of after
   * the lease expired. Default false: the controllers may still be draining when it is
   * released.
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
  readonly #leaderElection: ManagerLeaderElection | undefined;
  #started = false;
  #leading = false;

  constructor(config: Config, options: ManagerOptions = {}) {
    const resyncMs = options.resyncMs ?? defaultResyncMs;
    if (!(Number.isFinite(resyncMs) && resyncMs >= 0)) {
      throw new RangeError(
        `manager resyncMs must be a number of milliseconds ≥ 0, got ${resyncMs}`,
      );
    }
    this.config = config;
    this.#leaderElection = options.leaderElection;
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
      const runAll = (runSignal: AbortSignal): Promise<unknown> =>
        Promise.all(
          this.#runnables.map((r) =>
            r.run(runSignal).catch((error: unknown) => {
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
        await runAll(stop.signal);
      } else {
        await this.#runElected(runAll, stop, (error) => {
          failure ??= { error };
        });
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#leading = false;
      stop.abort();
      await Promise.all([this.informers.shutdown(), this.dynamicInformers.shutdown()]);
      this.logger.info('Manager stopped');
    }
    if (failure) throw failure.error;
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
            this.logger.info('Became leader; starting controllers', { identity });
            running = runAll(leading);
          },
          onStoppedLeading: () => {
            this.#leading = false;
            // Losing the Lease while still meant to run: another replica may be acting
            // already, so this one must stop, as controller-runtime's manager exits.
            if (!stop.signal.aborted) {
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
      stop.signal,
    );
    await running;
  }
}
