import {
  type Clock,
  type HasObjectMeta,
  isConflict,
  isNotFound,
  type Logger,
  realClock,
} from '@kubets/apimachinery';
import { isDeletedFinalStateUnknown, type ResourceEventHandler } from '@kubets/cache';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import { DEFAULT_RETRY_PERIOD_MS } from '@kubets/leaderelection';
import { PatchType } from '@kubets/rest';
import type * as PromClient from 'prom-client';
import type { ByObject, CacheOptions } from '../cache-options.js';
import { type Manager, managerUsesLeaderElection } from '../manager.js';
import { loadPromClient } from '../prom-client.js';
import type { ReconcileFunc, Reconciler, Result } from '../reconciler.js';
import { requestKey } from '../request.js';
import { webhookFor } from '../webhooks.js';
import {
  checkShardName,
  DRAIN_ACKNOWLEDGED,
  DRAIN_REQUESTED,
  drainLabel,
  ringKeyOf,
  type ShardKey,
  shardLabel,
} from './labels.js';
import { type ShardLeaseDurations, ShardMembership } from './membership.js';
import { ShardMetrics, type ShardStats } from './metrics.js';
import { RingView } from './ring-view.js';
import { type AnyDescriptor, type ShardedResourceEntry, Sharder } from './sharder.js';

/** A resource whose objects a {@link ShardRing} spreads over its members. */
export interface ShardedResource<T extends ObjectWithMeta = ObjectWithMeta> {
  /** The resource, by its typed descriptor. */
  resource: ResourceDescriptor<T, unknown>;
  /**
   * What places an object on the ring: `'object'` (default) its `namespace/name`;
   * `'owner'` its controller owner's `namespace/name`, so that an object lands with the
   * object that owns it; or a function of the object.
   */
  key?: ShardKey | undefined;
  /** Shard only this namespace's objects (a namespaced resource only); default all. */
  namespace?: string | undefined;
}

/** Settings of a {@link ShardRing}. */
export interface ShardRingOptions extends ShardLeaseDurations {
  /** The ring's name, the same on every replica: a DNS label. */
  name: string;
  /** Namespace of the shard Leases (the members' and the sharder's). */
  namespace: string;
  /** This replica's name in the ring, unique among replicas: a DNS label (the pod's name). */
  identity: string;
  /** The resources whose objects are spread over the members. */
  resources: readonly ShardedResource[];
  /** Points per member on the consistent-hash ring (default 100). */
  virtualNodes?: number | undefined;
  /**
   * Whether this replica competes to run the ring's sharder (default true). At least one
   * replica must, or nothing is assigned.
   */
  runSharder?: boolean | undefined;
  /**
   * How many objects the sharder labels at once (default 32). Moving the objects of a member
   * that died is one write each, so this bounds how soon they are reconciled again — as does
   * the manager's client rate limit (`qps`, `burst` of its REST config), which the sharder's
   * writes go through.
   */
  sharderWorkers?: number | undefined;
  /**
   * Also assign each new object as it is created, by a mutating webhook (failure policy
   * `Ignore`, CREATE only) on the manager's webhook server, so new objects never wait for the
   * sharder. Every replica then also watches the ring's Leases to know the live members.
   * Register the webhook configurations (`mgr.webhooks.registrations`) as for any webhook.
   * Default false: the sharder assigns new objects as it sees them.
   */
  assignOnCreate?: boolean | undefined;
  /** Time source of the Leases and the sharder; default the manager's clock, else the real one. */
  clock?: Clock | undefined;
}

interface Resolved {
  readonly mgr: Manager;
  readonly membership: ShardMembership;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Spreads the objects of some resources over the replicas of a controller
 * (`docs/sharding.md`): each replica is a member of the ring while it holds its shard
 * Lease; one of them runs the sharder, which labels every object with the member that owns
 * it by consistent hashing and moves objects, through a drain handshake, as members come
 * and go. Each member caches and reconciles only its own objects.
 *
 * ```ts
 * const ring = new ShardRing({ name: 'widgets', namespace: 'operators', identity: podName,
 *   resources: [{ resource: widgets }] });
 * const mgr = new Manager(config, { cache: ring.cacheOptions() });
 * ring.addTo(mgr);
 * controller(mgr).for(widgets).complete(ring.reconciler(widgets, reconcileWidget));
 * ```
 */
export class ShardRing {
  /** The ring's name. */
  readonly name: string;
  /** This replica's name in the ring. */
  readonly identity: string;
  readonly #options: ShardRingOptions;
  readonly #resources: ShardedResourceEntry[];
  readonly #shard: string;
  readonly #drain: string;
  readonly #metrics = new ShardMetrics();
  readonly #inFlight = new Set<string>();
  readonly #confirmed = new Set<string>();
  readonly #acking = new Set<string>();
  #confirmedTenure = -1;
  #idle: (() => void)[] = [];
  #stopping = false;
  #resolved: Resolved | undefined;
  #sharder: Sharder | undefined;

  /**
   * @throws {TypeError} for a name or identity that is not a DNS label, a namespace that is
   *   empty, or no resources.
   */
  constructor(options: ShardRingOptions) {
    this.name = checkShardName(options?.name, 'ShardRing name');
    this.identity = checkShardName(options.identity, 'ShardRing identity');
    if (typeof options.namespace !== 'string' || options.namespace === '') {
      throw new TypeError(
        `ShardRing namespace (of the shard Leases) must be a namespace name, got ${JSON.stringify(options.namespace)}`,
      );
    }
    if (!Array.isArray(options.resources) || options.resources.length === 0) {
      throw new TypeError('ShardRing resources must name at least one resource to shard');
    }
    this.#resources = options.resources.map((r, i) => {
      const d = r?.resource as unknown as AnyDescriptor | undefined;
      if (typeof d?.resource !== 'string' || typeof d.namespaced !== 'boolean') {
        throw new TypeError(
          `ShardRing resources[${i}].resource must be a resource descriptor, got ${JSON.stringify(d)}`,
        );
      }
      const key = r.key ?? 'object';
      if (key !== 'object' && key !== 'owner' && typeof key !== 'function') {
        throw new TypeError(
          `ShardRing resources[${i}].key must be 'object', 'owner' or a function, got ${JSON.stringify(key)}`,
        );
      }
      if (!d.namespaced && r.namespace) {
        throw new TypeError(
          `ShardRing resources[${i}]: ${d.resource} are cluster-scoped, but a namespace was given (${r.namespace})`,
        );
      }
      return { resource: d, key, namespace: r.namespace ?? '' };
    });
    const workers = options.sharderWorkers;
    if (workers !== undefined && !(Number.isInteger(workers) && workers > 0)) {
      throw new RangeError(
        `ShardRing sharderWorkers must be a positive integer, got ${String(workers)}`,
      );
    }
    this.#options = options;
    this.#shard = shardLabel(this.name);
    this.#drain = drainLabel(this.name);
  }

  /** The label naming an object's member, `shard.sharding.kubets.io/<ring>`. */
  get shardLabel(): string {
    return this.#shard;
  }

  /** The label of the drain handshake, `drain.sharding.kubets.io/<ring>`. */
  get drainLabel(): string {
    return this.#drain;
  }

  /**
   * The manager's cache options with every sharded resource cached only where its shard
   * label names this member, so cache memory and watch traffic fall with the number of
   * members. A label selector already set for the resource is kept and narrowed.
   */
  cacheOptions(base: CacheOptions = {}): CacheOptions {
    const mine = `${this.#shard}=${this.identity}`;
    const byObject: ByObject[] = [...(base.byObject ?? [])];
    for (const { resource, namespace } of this.#resources) {
      const at = byObject.findIndex((b) => sameResource(b.resource, resource));
      const existing = at >= 0 ? byObject[at] : undefined;
      const selector = existing?.labelSelector ?? base.defaultLabelSelector;
      const entry: ByObject = {
        ...existing,
        resource,
        labelSelector: selector ? `${selector},${mine}` : mine,
        ...(namespace ? { namespace } : {}),
      };
      if (at >= 0) byObject[at] = entry;
      else byObject.push(entry);
    }
    return { ...base, byObject };
  }

  /**
   * Makes `mgr`'s replica a member of the ring: adds the runnables that hold its shard
   * Lease and (unless `runSharder: false`) compete to run the sharder, a readiness check
   * `shard-<ring>` that fails while this replica is not a member, the drain handshake on
   * the sharded resources' informers, and, when the manager serves metrics, the ring's
   * `controller_sharding_*` series. Build the manager with {@link ShardRing.cacheOptions}
   * and without leader election: every replica runs its controllers, each on its own objects.
   *
   * @throws {Error} when called twice, or for a manager with `leaderElection`: only its
   *   leader would run the controllers, while a ring has every replica reconcile its share.
   */
  addTo(mgr: Manager): void {
    if (this.#resolved) throw new Error(`ShardRing ${this.name} was already added to a manager`);
    if (managerUsesLeaderElection(mgr)) {
      throw new Error(
        `ShardRing ${this.name} cannot be added to a manager with leaderElection: only the leader would reconcile, so the other members' objects would never be; sharding replaces leader election for the sharded controllers (the ring elects its own sharder): build the manager without leaderElection`,
      );
    }
    const o = this.#options;
    const clock = o.clock ?? mgr.clock ?? realClock;
    const logger = mgr.logger;
    const durations: ShardLeaseDurations = {
      leaseDurationMs: o.leaseDurationMs,
      renewDeadlineMs: o.renewDeadlineMs,
      retryPeriodMs: o.retryPeriodMs,
    };
    const membership = new ShardMembership({
      ...durations,
      ring: this.name,
      namespace: o.namespace,
      identity: this.identity,
      clientset: mgr.clientset,
      clock,
      logger,
      onAcquired: () => void this.#confirmTenure(),
      beforeRelease: () => this.#stop(),
    });
    this.#resolved = { mgr, membership, clock, logger };
    mgr.add({ name: `shard-member-${this.name}`, run: (signal) => membership.run(signal) });
    if (o.runSharder ?? true) {
      const sharder = new Sharder({
        ...durations,
        ring: this.name,
        namespace: o.namespace,
        identity: this.identity,
        clientset: mgr.clientset,
        resources: this.#resources,
        metrics: this.#metrics,
        virtualNodes: o.virtualNodes,
        workers: o.sharderWorkers,
        clock,
        logger,
      });
      this.#sharder = sharder;
      mgr.add({ name: `sharder-${this.name}`, run: (signal) => sharder.run(signal) });
    }
    if (o.assignOnCreate) this.#assignOnCreate(mgr, clock);
    mgr.addReadyzCheck(`shard-${this.name}`, () => {
      if (!membership.isMember()) {
        throw new Error(
          `not a member of shard ring ${this.name}: lease ${o.namespace}/${membership.leaseName} not held`,
        );
      }
    });
    this.#resources.forEach(({ resource }, index) => {
      const informer = mgr.informers.forResource(resource).informer();
      informer.addEventHandler(this.#drainHandler(index));
    });
    this.#metrics.assigned = () =>
      this.#resources.reduce(
        (n, { resource }) =>
          n +
          (this.#store(resource).list() as HasObjectMeta[]).filter((obj) => this.#assignedHere(obj))
            .length,
        0,
      );
    if (mgr.metricsRegistry !== undefined) {
      this.#metrics.register(
        loadPromClient().prom,
        mgr.metricsRegistry as PromClient.Registry,
        this.name,
        this.identity,
      );
    }
  }

  // A mutating webhook per sharded resource placing each new object on the ring as this
  // replica sees it. A view that differs from the sharder's costs a move, never an overlap:
  // nobody reconciles a new object before it is labelled, and a wrong label is drained.
  #assignOnCreate(mgr: Manager, clock: Clock): void {
    const o = this.#options;
    const view = new RingView({
      ring: this.name,
      namespace: o.namespace,
      clientset: mgr.clientset,
      clock,
      virtualNodes: o.virtualNodes,
    });
    mgr.add({ name: `shard-view-${this.name}`, run: (signal) => view.run(signal) });
    for (const entry of this.#resources) {
      const { group, version, resource } = entry.resource;
      webhookFor<HasObjectMeta>(mgr, entry.resource)
        .withDefaulter(
          {
            default: (obj, { request }) => {
              const md = obj.metadata ?? {};
              const namespace = md.namespace || request.namespace || '';
              if (entry.namespace && namespace !== entry.namespace) return;
              if (md.labels?.[this.#shard] !== undefined) return;
              const key = ringKeyOf({ metadata: { ...md, namespace } }, entry.key);
              // A name the server generates is not known yet: the sharder places the object.
              if (typeof entry.key !== 'function' && key.endsWith('/')) return;
              const member = view.ring().memberFor(key);
              if (member === undefined) return;
              // The label and the sharder's record of it, as the sharder writes them.
              obj.metadata = {
                ...md,
                labels: { ...md.labels, [this.#shard]: member },
                annotations: { ...md.annotations, [this.#shard]: member },
              };
            },
          },
          {
            operations: ['CREATE'],
            failurePolicy: 'Ignore',
            name: `${resource}.${this.name}.shard.sharding.kubets.io`,
            path: `/shard-${this.name}-${group || 'core'}-${version}-${resource}`,
          },
        )
        .complete();
    }
  }

  /**
   * Whether this replica is a member now: it holds its shard Lease, renewed in time. Finding
   * that it is not ends the tenure there and then: the reconciles in flight see their
   * `ctx.signal` abort.
   */
  isMember(): boolean {
    return this.#resolved?.membership.isMember() ?? false;
  }

  /** Whether this replica's sharder leads the ring now. */
  isSharder(): boolean {
    return this.#sharder?.isLeader() ?? false;
  }

  /** The ring's counters on this replica (also the `controller_sharding_*` metrics). */
  stats(): ShardStats {
    return this.#metrics.stats();
  }

  /**
   * Wraps the reconciler of a controller whose primary resource is sharded: a request is
   * reconciled only while this replica is a member, the object is assigned to it (its shard
   * label and the sharder's annotation both name this member) and not draining, and (once
   * per Lease tenure) a read from the server confirms that assignment. The reconcile's
   * `ctx.signal` also aborts when the tenure ends: at the renew deadline, or earlier at the
   * first membership check that finds it lapsed (after a frozen event loop). Pass it to every
   * client call; a reconcile that does not is not stopped. Requests refused because this
   * replica is not a member now come back after a retry period.
   *
   * @throws {TypeError} for a resource not named in the ring's `resources`.
   */
  reconciler<T extends ObjectWithMeta>(
    resource: ResourceDescriptor<T, unknown>,
    inner: Reconciler<T>,
  ): ReconcileFunc<T> {
    const index = this.#resources.findIndex((r) => sameResource(r.resource, resource));
    if (index < 0) {
      throw new TypeError(
        `ShardRing ${this.name} does not shard ${resource?.resource}: add it to resources`,
      );
    }
    const reconcile = typeof inner === 'function' ? inner : inner.reconcile.bind(inner);
    const retryLater = (): Result => ({
      requeueAfterMs: this.#options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    });
    return async (request, ctx) => {
      const resolved = this.#resolved;
      if (resolved === undefined) {
        throw new Error(`ShardRing ${this.name} was not added to a manager: call ring.addTo(mgr)`);
      }
      const { membership } = resolved;
      const tenure = membership.tenure();
      if (this.#stopping) return undefined;
      if (!membership.isMember() || tenure === undefined) return retryLater();
      if (!this.#isMine(ctx.cached())) return undefined;
      const key = `${index}\u0000${requestKey(request)}`;
      this.#startTenure(membership.tenures());
      if (!this.#confirmed.has(key)) {
        let live: HasObjectMeta;
        try {
          live = await this.#client(index, request.namespace).get(request.name, {
            signal: ctx.signal,
          });
        } catch (error) {
          if (isNotFound(error)) return undefined;
          throw error;
        }
        if (membership.tenure() !== tenure || !membership.isMember()) return retryLater();
        if (!this.#isMine(live)) return undefined;
        this.#confirmed.add(key);
      }
      // A drain may have arrived while the assignment was read.
      if (!this.#isMine(ctx.cached()) || this.#stopping) return undefined;
      this.#inFlight.add(key);
      try {
        return (await reconcile(request, {
          ...ctx,
          signal: AbortSignal.any([ctx.signal, tenure]),
        })) as Result | undefined;
      } finally {
        this.#inFlight.delete(key);
        this.#afterReconcile(index, key);
      }
    };
  }

  /** Assigned to this member by the sharder (label and record agree) and not draining. */
  #isMine(obj: HasObjectMeta | undefined): boolean {
    return this.#assignedHere(obj) && obj?.metadata?.labels?.[this.#drain] === undefined;
  }

  // A label alone may be someone else's edit; the sharder writes its record with it.
  #assignedHere(obj: HasObjectMeta | undefined): boolean {
    const md = obj?.metadata;
    return (
      md?.labels?.[this.#shard] === this.identity && md.annotations?.[this.#shard] === this.identity
    );
  }

  #client(index: number, namespace: string) {
    const { resource } = this.#resources[index] as {
      resource: AnyDescriptor;
    };
    return (this.#resolved as Resolved).mgr.clientset.resource(
      resource,
      resource.namespaced ? namespace : undefined,
    );
  }

  #store(resource: AnyDescriptor) {
    return (this.#resolved as Resolved).mgr.informers.forResource(resource).informer().getStore();
  }

  // Confirmations hold for one tenure: after a lapse the sharder may have moved anything.
  #startTenure(tenure: number): void {
    if (this.#confirmedTenure === tenure) return;
    this.#confirmedTenure = tenure;
    this.#confirmed.clear();
  }

  /** At the start of a tenure, one list per resource confirms what is this member's. */
  async #confirmTenure(): Promise<void> {
    const { membership, logger } = this.#resolved as Resolved;
    const tenure = membership.tenures();
    this.#startTenure(tenure);
    await Promise.all(
      this.#resources.map(async ({ resource, namespace }, index) => {
        try {
          const list = (await (this.#resolved as Resolved).mgr.clientset
            .resource(resource, namespace || undefined)
            .list({ labelSelector: `${this.#shard}=${this.identity}` })) as {
            items?: ObjectWithMeta[];
          };
          if (membership.tenures() !== tenure) return;
          for (const obj of list.items ?? []) {
            if (!this.#isMine(obj)) continue;
            const md = obj.metadata ?? {};
            this.#confirmed.add(
              `${index}\u0000${md.namespace ? `${md.namespace}/${md.name}` : md.name}`,
            );
          }
        } catch (error) {
          // Each request then confirms its own object.
          logger.debug('Listing the objects of a new shard tenure failed', {
            ring: this.name,
            error,
          });
        }
      }),
    );
  }

  #drainHandler(index: number): ResourceEventHandler<HasObjectMeta> {
    const check = (obj: HasObjectMeta): void => {
      // Every event is a moment to notice a lapsed tenure (after a frozen event loop the
      // buffered events may run before the renew-deadline timer does).
      (this.#resolved as Resolved).membership.isMember();
      // Only the member the sharder recorded may acknowledge: it is the one that may be
      // reconciling the object.
      if (!this.#assignedHere(obj)) return;
      if (obj.metadata?.labels?.[this.#drain] !== DRAIN_REQUESTED) return;
      const md = obj.metadata ?? {};
      const key = `${index}\u0000${md.namespace ? `${md.namespace}/${md.name}` : md.name}`;
      this.#confirmed.delete(key);
      if (!this.#inFlight.has(key)) void this.#acknowledge(index, key, obj);
    };
    return {
      onAdd: check,
      onUpdate: (_, obj) => check(obj),
      onDelete: (obj) => {
        const last = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        const md = last?.metadata ?? {};
        this.#confirmed.delete(
          `${index}\u0000${md.namespace ? `${md.namespace}/${md.name}` : md.name}`,
        );
      },
    };
  }

  #afterReconcile(index: number, key: string): void {
    if (this.#inFlight.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
    const { resource } = this.#resources[index] as {
      resource: AnyDescriptor;
    };
    const obj = this.#store(resource).getByKey(key.slice(key.indexOf('\u0000') + 1)) as
      | HasObjectMeta
      | undefined;
    const draining =
      this.#assignedHere(obj) && obj?.metadata?.labels?.[this.#drain] === DRAIN_REQUESTED;
    if (obj && draining && !this.#inFlight.has(key)) void this.#acknowledge(index, key, obj);
  }

  /**
   * Tells the sharder this member has let go of `obj`: no reconcile of it runs here, and
   * none starts (its drain label is set). Conditional on the version seen, so an ack never
   * lands on an object changed since; after a conflict the cache is looked at again.
   */
  async #acknowledge(index: number, key: string, obj: HasObjectMeta): Promise<void> {
    if (this.#acking.has(key)) return;
    this.#acking.add(key);
    const md = obj.metadata ?? {};
    try {
      await this.#client(index, md.namespace ?? '').patch(md.name ?? '', PatchType.MergePatch, {
        metadata: {
          resourceVersion: md.resourceVersion,
          labels: { [this.#drain]: DRAIN_ACKNOWLEDGED },
        },
      });
      this.#metrics.drains++;
    } catch (error) {
      if (isNotFound(error)) return;
      const { clock, logger } = this.#resolved as Resolved;
      // A conflict means the object changed since: its newer version may have arrived while
      // this ack was in flight (and was then skipped), so look at the cache again later.
      if (!isConflict(error)) {
        logger.error('Acknowledging a drain failed; retrying', { ring: this.name, error });
      }
      clock.setTimeout(
        () => this.#afterReconcile(index, key),
        this.#options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
      );
    } finally {
      this.#acking.delete(key);
    }
  }

  /** On shutdown: no new reconcile starts, and the Lease is released once none runs. */
  #stop(): Promise<void> {
    this.#stopping = true;
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}

function sameResource(
  a: ResourceDescriptor<unknown, unknown> | undefined,
  b: ResourceDescriptor<unknown, unknown>,
): boolean {
  return a?.group === b.group && a?.version === b.version && a?.resource === b.resource;
}
