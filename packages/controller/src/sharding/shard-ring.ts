import {
  type Clock,
  type HasObjectMeta,
  isConflict,
  isNotFound,
  jsonEqual,
  type Logger,
  realClock,
} from '@kubets/apimachinery';
import {
  isDeletedFinalStateUnknown,
  newFilteredListWatchFromClient,
  newSharedIndexInformer,
  type ResourceEventHandler,
  type SharedIndexInformer,
  waitForCacheSync,
} from '@kubets/cache';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import { DEFAULT_RETRY_PERIOD_MS } from '@kubets/leaderelection';
import { PatchType } from '@kubets/rest';
import type * as PromClient from 'prom-client';
import type { ByObject, CacheOptions } from '../cache-options.js';
import type { EventSource } from '../channel-source.js';
import { type Manager, managerUsesLeaderElection } from '../manager.js';
import type { GenericEvent } from '../predicates.js';
import { loadPromClient } from '../prom-client.js';
import {
  type ReconcileFunc,
  type Reconciler,
  type Result,
  reconcilerSources,
} from '../reconciler.js';
import { type ReconcileRequest, requestKey } from '../request.js';
import { webhookFor } from '../webhooks.js';
import {
  checkShardName,
  DRAIN_ACKNOWLEDGED,
  DRAIN_REQUESTED,
  drainLabel,
  MAX_TAKEOVER_RING_POINTS,
  ringKeyOf,
  type ShardKey,
  type ShardTakeoverRecord,
  shardLabel,
  takeoverDoneAnnotation,
  takeoverRing,
} from './labels.js';
import { type ShardLeaseDurations, ShardMembership } from './membership.js';
import { ShardMetrics, type ShardStats } from './metrics.js';
import type { HashRing } from './ring.js';
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
  /**
   * Points per member on the consistent-hash ring (default 500, `DEFAULT_VIRTUAL_NODES`).
   * The sharder's setting decides where objects go; a takeover record names it, so every
   * survivor uses the sharder's ring whatever its own setting. At most
   * `MAX_TAKEOVER_RING_POINTS`.
   */
  virtualNodes?: number | undefined;
  /**
   * Whether this replica competes to run the ring's sharder (default true). At least one
   * replica must, or nothing is assigned.
   */
  runSharder?: boolean | undefined;
  /**
   * How many objects the sharder labels at once (default 32). The relabels of a dead
   * member's objects wait until every survivor has reported its share reconciled (or a
   * lease duration has passed): the survivors already reconcile those objects by the
   * takeover record, and each relabel would take the API server from them. The sharder's
   * writes also go through the manager's client rate limit (`qps`, `burst` of its REST
   * config).
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
  readonly view: RingView;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The takeover a reconcile runs under: the objects of a dead member, still labelled with its
 * name, that the sharder's record gave to this member (see `docs/sharding.md`).
 */
export interface ShardTakeover {
  /** The dead member whose objects were taken over. */
  readonly member: string;
  /** The record: the dead member's tenure that ended and the view it was taken over with. */
  readonly record: ShardTakeoverRecord;
  /** This member's tenure, the one the record's view names for it. */
  readonly tenure: string;
}

/** A takeover record this member acts on in its current tenure. */
interface ActiveTakeover extends ShardTakeover {
  readonly raw: string;
  readonly epoch: string;
  readonly ring: HashRing;
  /**
   * Keys whose drain this member acknowledged since the takeover began: never taken over
   * again under it (its informer may lag behind the move that followed).
   */
  readonly released: Set<string>;
  /** The dead member's objects by sharded resource (only those a controller watches). */
  readonly informers: (SharedIndexInformer<HasObjectMeta> | undefined)[];
  readonly stop: AbortController;
  /** Objects handed to the controllers under it whose request has not been handled yet. */
  readonly pending: Set<string>;
  /** Whether every informer listed the dead member's objects. */
  synced: boolean;
  /**
   * Whether every object of the first list was handled (reconciled, or found not to be
   * this member's): reported on this member's Lease, so the sharder may relabel.
   */
  done: boolean;
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
  /**
   * The object each reconcile under a takeover record started from, kept when it asked for
   * nothing more: the sharder's relabel of that object to this member needs no second one.
   */
  readonly #reconciledUnderRecord = new Map<string, HasObjectMeta>();
  readonly #acking = new Set<string>();
  /** Who listens for the takeover events of each sharded resource. */
  readonly #takeoverListeners: Set<(event: GenericEvent<HasObjectMeta>) => void>[];
  readonly #takeovers = new Map<string, ActiveTakeover>();
  /** The takeover each reconcile in flight under a record runs under. */
  readonly #takenInFlight = new Map<string, ShardTakeover>();
  #running: AbortSignal | undefined;
  #confirmedTenure = '';
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
    const points = options.virtualNodes;
    if (
      points !== undefined &&
      !(Number.isInteger(points) && points > 0 && points <= MAX_TAKEOVER_RING_POINTS)
    ) {
      throw new RangeError(
        `ShardRing virtualNodes must be a positive integer of at most ${MAX_TAKEOVER_RING_POINTS}, got ${String(points)}`,
      );
    }
    this.#options = options;
    this.#shard = shardLabel(this.name);
    this.#drain = drainLabel(this.name);
    this.#takeoverListeners = this.#resources.map(() => new Set());
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
      onAcquired: (tenure) => {
        void this.#confirmTenure();
        this.#syncTakeovers();
        tenure.addEventListener('abort', () => this.#syncTakeovers(), { once: true });
      },
      onRecordCleared: () => void this.#confirmTenure(),
      beforeRelease: () => this.#stop(),
      annotations: () => ({ [takeoverDoneAnnotation(this.name)]: this.#takeoversDone() }),
    });
    // Every replica watches the ring's Leases: for the takeover records naming it, and for the
    // live members (the assignOnCreate webhook).
    const view = new RingView({
      ring: this.name,
      namespace: o.namespace,
      clientset: mgr.clientset,
      clock,
      virtualNodes: o.virtualNodes,
      onLease: () => this.#syncTakeovers(),
    });
    this.#resolved = { mgr, membership, view, clock, logger };
    mgr.add({ name: `shard-member-${this.name}`, run: (signal) => membership.run(signal) });
    mgr.add({
      name: `shard-view-${this.name}`,
      run: async (signal) => {
        this.#running = signal;
        signal.addEventListener('abort', () => this.#syncTakeovers(), { once: true });
        await view.run(signal);
      },
    });
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
    if (o.assignOnCreate) this.#assignOnCreate(mgr, view);
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
  #assignOnCreate(mgr: Manager, view: RingView): void {
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
   * The takeover events of a sharded resource, for the controller that reconciles it. A
   * controller built (`complete`) with {@link ShardRing.reconciler} watches them already;
   * a controller made without the builder watches them itself with `enqueueRequestForObject`.
   * When a member dies, the sharder writes one takeover record naming the live members and
   * their tenures; while it names this member's current tenure, the dead member's objects
   * that the record's ring places here come through this source (before the sharder has
   * relabelled them) and {@link ShardRing.reconciler} reconciles them. Without it they are
   * reconciled once relabelled, one write each later.
   *
   * @throws {TypeError} for a resource not named in the ring's `resources`.
   */
  takeovers<T extends ObjectWithMeta>(resource: ResourceDescriptor<T, unknown>): EventSource<T> {
    const index = this.#indexOf(resource);
    const listeners = this.#takeoverListeners[index] as Set<
      (event: GenericEvent<HasObjectMeta>) => void
    >;
    return {
      subscribe: (listener) => {
        const l = listener as (event: GenericEvent<HasObjectMeta>) => void;
        listeners.add(l);
        this.#syncTakeovers();
        return () => {
          listeners.delete(l);
        };
      },
    };
  }

  /**
   * The takeover record under which this member's reconcile of `request` in flight runs, or
   * undefined for a reconcile of an object assigned to it by its labels (or none in flight).
   */
  takeoverOf(
    resource: ResourceDescriptor<ObjectWithMeta, unknown>,
    request: ReconcileRequest,
  ): ShardTakeover | undefined {
    return this.#takenInFlight.get(`${this.#indexOf(resource)}\u0000${requestKey(request)}`);
  }

  #indexOf(resource: ResourceDescriptor<ObjectWithMeta, unknown>): number {
    const index = this.#resources.findIndex((r) => sameResource(r.resource, resource));
    if (index < 0) {
      throw new TypeError(
        `ShardRing ${this.name} does not shard ${resource?.resource}: add it to resources`,
      );
    }
    return index;
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
    const index = this.#indexOf(resource as ResourceDescriptor<ObjectWithMeta, unknown>);
    const reconcile = typeof inner === 'function' ? inner : inner.reconcile.bind(inner);
    const retryLater = (): Result => ({
      requeueAfterMs: this.#options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    });
    const wrapped: ReconcileFunc<T> = async (request, ctx) => {
      try {
        return await guarded(request, ctx);
      } finally {
        this.#handledUnderTakeovers(`${index}\u0000${requestKey(request)}`);
      }
    };
    const guarded = async (
      request: ReconcileRequest,
      ctx: Parameters<ReconcileFunc<T>>[1],
    ): Promise<Result | undefined> => {
      const resolved = this.#resolved;
      if (resolved === undefined) {
        throw new Error(`ShardRing ${this.name} was not added to a manager: call ring.addTo(mgr)`);
      }
      const { membership } = resolved;
      const tenure = membership.tenure();
      if (this.#stopping) return undefined;
      if (!membership.isMember() || tenure === undefined) return retryLater();
      // The sharder took this member's objects over from an earlier tenure and is still
      // relabelling them: nothing labelled here can be trusted to be its own yet.
      if (membership.hasTakeoverRecord()) return retryLater();
      const key = `${index}\u0000${requestKey(request)}`;
      this.#startTenure(membership.epoch());
      const cached = ctx.cached();
      let taken: ActiveTakeover | undefined;
      if (!this.#isMine(cached)) {
        // A dead member's object that a takeover record gave to this member: known only to
        // the takeover's informer, which listed it after the record was written.
        if (cached !== undefined) return undefined;
        taken = this.#takenOver(index, key);
        if (taken === undefined) return undefined;
      } else if (this.#relabelOfReconciled(key, cached)) {
        return undefined;
      } else if (!this.#confirmed.has(key)) {
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
      // A drain (or a relabel) may have arrived while the assignment was read.
      if (this.#stopping) return undefined;
      if (
        taken === undefined ? !this.#isMine(ctx.cached()) : this.#takenOver(index, key) !== taken
      ) {
        return undefined;
      }
      this.#inFlight.add(key);
      if (taken !== undefined) {
        this.#takenInFlight.set(key, {
          member: taken.member,
          record: taken.record,
          tenure: taken.tenure,
        });
      }
      const store = taken?.informers[index]?.getStore();
      const objectKey = requestKey(request);
      const startedFrom = store?.getByKey(objectKey) as HasObjectMeta | undefined;
      try {
        const result = (await reconcile(request, {
          ...ctx,
          // The dead member's object is in the takeover's cache until it is relabelled here.
          cached: () => ctx.cached() ?? (store?.getByKey(objectKey) as T | undefined),
          signal: AbortSignal.any([ctx.signal, tenure]),
        })) as Result | undefined;
        if (startedFrom !== undefined && !result?.requeue && !(result?.requeueAfterMs ?? 0)) {
          this.#reconciledUnderRecord.set(key, startedFrom);
        }
        return result;
      } finally {
        this.#inFlight.delete(key);
        this.#takenInFlight.delete(key);
        this.#afterReconcile(index, key);
      }
    };
    // The controller built with it watches the takeovers too (see `complete` of the builder).
    return Object.assign(wrapped, { [reconcilerSources]: [this.takeovers(resource)] });
  }

  /**
   * The takeover under which this member may reconcile the object `key` now: a record in
   * force names this member's current tenure; the takeover's informer shows the object with
   * the dead member in both its label and the sharder's annotation, not draining; and the
   * record's ring places its key here. Never an object whose drain this member acknowledged
   * since the takeover began (its takeover informer may lag behind the move that followed).
   */
  #takenOver(index: number, key: string): ActiveTakeover | undefined {
    const { membership, view } = this.#resolved as Resolved;
    const tenureId = membership.tenureId();
    const entry = this.#resources[index] as ShardedResourceEntry;
    for (const t of this.#takeovers.values()) {
      if (t.tenure !== tenureId || t.epoch !== membership.epoch()) continue;
      if (t.released.has(key)) continue;
      if (view.takeoverOf(t.member)?.raw !== t.raw) continue;
      const obj = t.informers[index]?.getStore().getByKey(key.slice(key.indexOf('\u0000') + 1));
      const md = obj?.metadata;
      if (md?.labels?.[this.#shard] !== t.member || md.annotations?.[this.#shard] !== t.member) {
        continue;
      }
      if (md.labels[this.#drain] !== undefined) continue;
      if (t.ring.memberFor(ringKeyOf(obj as HasObjectMeta, entry.key)) !== this.identity) continue;
      return t;
    }
    return undefined;
  }

  /**
   * Starts an informer of a dead member's objects for each takeover record that names this
   * member's current tenure (and a controller listens for), and stops those whose record was
   * removed or whose tenure ended.
   */
  #syncTakeovers(): void {
    const resolved = this.#resolved;
    if (resolved === undefined) return;
    const { membership, view, mgr } = resolved;
    const running = this.#running;
    const current = membership.tenure();
    const tenureId = current === undefined || current.aborted ? undefined : membership.tenureId();
    const epoch = membership.epoch();
    const wanted = new Map<string, { raw: string; record: ShardTakeoverRecord }>();
    if (running !== undefined && !running.aborted && tenureId !== undefined && !this.#stopping) {
      for (const t of view.takeovers()) {
        if (
          t.record !== undefined &&
          t.member !== this.identity &&
          t.record.view[this.identity] === tenureId
        ) {
          wanted.set(t.member, { raw: t.raw, record: t.record });
        }
      }
    }
    for (const [member, t] of this.#takeovers) {
      const still = wanted.get(member);
      if (still?.raw === t.raw && t.tenure === tenureId && t.epoch === epoch) continue;
      t.stop.abort();
      this.#takeovers.delete(member);
    }
    if (running === undefined || tenureId === undefined) return;
    for (const [member, { raw, record }] of wanted) {
      if (this.#takeovers.has(member)) continue;
      const stop = new AbortController();
      const signal = AbortSignal.any([running, stop.signal]);
      const active: ActiveTakeover = {
        member,
        record,
        raw,
        tenure: tenureId,
        epoch,
        ring: takeoverRing(record),
        released: new Set(),
        informers: [],
        stop,
        pending: new Set(),
        synced: false,
        done: false,
      };
      for (const [index, entry] of this.#resources.entries()) {
        const listeners = this.#takeoverListeners[index] as Set<
          (event: GenericEvent<HasObjectMeta>) => void
        >;
        if (listeners.size === 0) {
          active.informers.push(undefined);
          continue;
        }
        const { group, version, resource, kind } = entry.resource;
        const informer = newSharedIndexInformer<HasObjectMeta>(
          newFilteredListWatchFromClient<HasObjectMeta>(
            mgr.clientset.restClientFor({ group, version }),
            resource,
            entry.resource.namespaced ? entry.namespace : '',
            (list) => {
              list.labelSelector = `${this.#shard}=${member}`;
            },
          ),
          { apiVersion: group ? `${group}/${version}` : version, kind },
        );
        const keyOf = (obj: HasObjectMeta): string => {
          const md = obj.metadata ?? {};
          return `${index}\u0000${md.namespace ? `${md.namespace}/${md.name}` : md.name}`;
        };
        const emit = (obj: HasObjectMeta): void => {
          const key = keyOf(obj);
          if (this.#takenOver(index, key) === undefined) return;
          // Seen here as the dead member's, in this tenure, by a record whose view places it
          // on this member: the sharder relabels it only to this member now, and moves it on
          // from here only after this member acknowledges a drain (which drops the
          // confirmation) or after this tenure ends. No read needs to confirm that relabel.
          this.#startTenure(membership.epoch());
          this.#confirmed.add(key);
          if (!active.done) active.pending.add(key);
          for (const listener of listeners) listener({ object: obj });
        };
        informer.addEventHandler({
          onAdd: emit,
          onUpdate: (_, obj) => emit(obj),
          onDelete: (obj) => {
            const last = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
            if (last !== undefined) this.#handledUnder(active, keyOf(last));
          },
        });
        informer.run(signal).catch((error: unknown) => {
          resolved.logger.error('The informer of a takeover failed', { ring: this.name, error });
        });
        active.informers.push(informer);
      }
      const listing = active.informers.flatMap((i) => (i ? [() => i.hasSynced()] : []));
      void waitForCacheSync(signal, ...listing).then((synced) => {
        if (!synced) return;
        active.synced = true;
        this.#handledUnder(active, undefined);
      });
      this.#takeovers.set(member, active);
      resolved.logger.info('Reconciling the objects of a departed member under a takeover record', {
        ring: this.name,
        member,
      });
    }
  }

  /** The dead members' tenures whose takeover this member is done with in this tenure. */
  #takeoversDone(): string | undefined {
    const tenureId = (this.#resolved as Resolved).membership.tenureId();
    const done: string[] = [];
    for (const t of this.#takeovers.values()) {
      if (t.done && t.tenure === tenureId) done.push(t.record.tenure);
    }
    return done.length > 0 ? done.join(',') : undefined;
  }

  #handledUnderTakeovers(key: string): void {
    for (const t of this.#takeovers.values()) this.#handledUnder(t, key);
  }

  /** `key`'s request was handled (or its object left): the takeover may be done now. */
  #handledUnder(t: ActiveTakeover, key: string | undefined): void {
    if (key !== undefined) t.pending.delete(key);
    if (t.done || !t.synced || t.pending.size > 0) return;
    t.done = true;
    (this.#resolved as Resolved).logger.info(
      "Reconciled this member's share of a takeover; the sharder may relabel it",
      { ring: this.name, member: t.member },
    );
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
  // So do they until a takeover record on this member's own Lease is removed.
  #startTenure(epoch: string): void {
    if (this.#confirmedTenure === epoch) return;
    this.#confirmedTenure = epoch;
    this.#confirmed.clear();
    this.#reconciledUnderRecord.clear();
  }

  /**
   * Whether `cached`, this member's own object now, is the sharder's relabel of one this
   * member reconciled under a takeover record in this tenure and that has not changed since
   * but for its assignment: that reconcile covered it. Asked once per such object.
   */
  #relabelOfReconciled(key: string, cached: HasObjectMeta | undefined): boolean {
    const reconciled = this.#reconciledUnderRecord.get(key);
    if (reconciled === undefined || cached === undefined) return false;
    this.#reconciledUnderRecord.delete(key);
    return jsonEqual(this.#withoutAssignment(reconciled), this.#withoutAssignment(cached));
  }

  /** The object but for what the ring and the server write when it moves. */
  #withoutAssignment(obj: HasObjectMeta): unknown {
    const md = obj.metadata ?? {};
    const labels = { ...md.labels, [this.#shard]: undefined, [this.#drain]: undefined };
    const annotations = { ...md.annotations, [this.#shard]: undefined };
    const some = (o: Record<string, unknown>) =>
      Object.values(o).some((v) => v !== undefined) ? o : undefined;
    return {
      ...obj,
      metadata: {
        ...md,
        resourceVersion: undefined,
        managedFields: undefined,
        labels: some(labels),
        annotations: some(annotations),
      },
    };
  }

  /** At the start of a tenure, one list per resource confirms what is this member's. */
  async #confirmTenure(): Promise<void> {
    const { membership, logger } = this.#resolved as Resolved;
    const tenure = membership.epoch();
    this.#startTenure(tenure);
    await Promise.all(
      this.#resources.map(async ({ resource, namespace }, index) => {
        try {
          const list = (await (this.#resolved as Resolved).mgr.clientset
            .resource(resource, namespace || undefined)
            .list({ labelSelector: `${this.#shard}=${this.identity}` })) as {
            items?: ObjectWithMeta[];
          };
          if (membership.epoch() !== tenure) return;
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
      this.#reconciledUnderRecord.delete(key);
      if (!this.#inFlight.has(key)) void this.#acknowledge(index, key, obj);
    };
    return {
      onAdd: check,
      onUpdate: (_, obj) => check(obj),
      onDelete: (obj) => {
        const last = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        const md = last?.metadata ?? {};
        const key = `${index}\u0000${md.namespace ? `${md.namespace}/${md.name}` : md.name}`;
        this.#confirmed.delete(key);
        this.#reconciledUnderRecord.delete(key);
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
    for (const t of this.#takeovers.values()) t.released.add(key);
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
    this.#syncTakeovers();
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
