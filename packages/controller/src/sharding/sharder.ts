import {
  type Clock,
  type HasObjectMeta,
  isConflict,
  isNotFound,
  type Logger,
  type PartialObjectMetadata,
  realClock,
  silentLogger,
} from '@kubets/apimachinery';
import {
  isDeletedFinalStateUnknown,
  newFilteredListWatchFromClient,
  newFilteredMetadataListWatchFromClient,
  newSharedIndexInformer,
  type SharedIndexInformer,
  waitForCacheSync,
} from '@kubets/cache';
import type {
  Clientset,
  coordinationv1,
  ObjectWithMeta,
  ResourceDescriptor,
} from '@kubets/clientset';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '@kubets/leaderelection';
import { PatchType } from '@kubets/rest';
import { RateLimitingQueue } from '@kubets/workqueue';
import {
  DRAIN_REQUESTED,
  drainLabel,
  RING_LABEL,
  ringKeyOf,
  type ShardKey,
  shardLabel,
} from './labels.js';
import { LeaseHolder, type ShardLeaseDurations } from './membership.js';
import type { ShardMetrics } from './metrics.js';
import { HashRing } from './ring.js';

type Lease = coordinationv1.Lease;

/** @internal A descriptor any resource's fits, for calls that need no item type. */
export type AnyDescriptor = ResourceDescriptor<ObjectWithMeta, { items?: ObjectWithMeta[] }>;

/** @internal A sharded resource as the sharder handles it. */
export interface ShardedResourceEntry {
  resource: AnyDescriptor;
  key: ShardKey;
  /** Only this namespace's objects; `''` for all. */
  namespace: string;
}

/** @internal Settings of a {@link Sharder}. */
export interface SharderOptions extends ShardLeaseDurations {
  ring: string;
  namespace: string;
  identity: string;
  clientset: Clientset;
  resources: readonly ShardedResourceEntry[];
  metrics: ShardMetrics;
  virtualNodes?: number | undefined;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  /** How many objects the sharder writes at once. Default 4. */
  workers?: number | undefined;
}

/** A member's Lease as the sharder last saw it change. */
interface Observation {
  holder: string;
  resourceVersion: string;
  /** When this replica saw that version first, by its own clock. */
  observedAt: number;
  leaseDurationMs: number;
}

const separator = '\u0000';

/**
 * @internal The ring's sharder: of all replicas, the one holding the Lease `<ring>.sharder`
 * assigns every object of the sharded resources to a live member by consistent hashing,
 * as a label, and moves objects through the drain handshake when members come and go.
 */
export class Sharder {
  readonly leaseName: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #durations: Required<ShardLeaseDurations>;
  readonly #holder: LeaseHolder;

  constructor(options: SharderOptions) {
    this.leaseName = `${options.ring}.sharder`;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#durations = {
      leaseDurationMs: options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
      renewDeadlineMs: options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
      retryPeriodMs: options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    };
    this.#holder = new LeaseHolder({
      ...this.#durations,
      namespace: options.namespace,
      name: this.leaseName,
      identity: options.identity,
      clientset: options.clientset,
      description: `sharder ${options.ring}`,
      clock: this.#clock,
      logger: this.#logger,
      onAcquired: (leading) => new Assignment(options, this.#durations).run(leading),
      onLost: () => {
        options.metrics.ringMembers = 0;
      },
    });
  }

  /** Whether this replica's sharder leads now. */
  isLeader(): boolean {
    return this.#holder.isHeld();
  }

  /** Competes for the sharder's Lease until `signal` aborts, assigning while it leads. */
  run(signal: AbortSignal): Promise<void> {
    return this.#holder.run(signal);
  }
}

/** One tenure of the sharder: informers over the Leases and the objects, and a work queue. */
class Assignment {
  readonly #o: SharderOptions;
  readonly #d: Required<ShardLeaseDurations>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #shard: string;
  readonly #drain: string;
  readonly #observed = new Map<string, Observation>();
  /** The member each object was last seen assigned to by a valid label (or by our write). */
  readonly #lastOwner = new Map<string, string>();
  #ring: HashRing;
  readonly #objects: SharedIndexInformer<PartialObjectMetadata>[] = [];
  readonly #queue: RateLimitingQueue<string>;

  constructor(options: SharderOptions, durations: Required<ShardLeaseDurations>) {
    this.#o = options;
    this.#d = durations;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#shard = shardLabel(options.ring);
    this.#drain = drainLabel(options.ring);
    this.#ring = new HashRing([], { virtualNodes: options.virtualNodes });
    this.#queue = new RateLimitingQueue<string>({
      clock: this.#clock,
      name: `sharder-${options.ring}`,
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    const o = this.#o;
    this.#logger.info('Leading the shard ring: assigning objects', { ring: o.ring });
    const leaseLw = newFilteredListWatchFromClient<Lease>(
      o.clientset.restClientFor({ group: 'coordination.k8s.io', version: 'v1' }),
      'leases',
      o.namespace,
      (options) => {
        options.labelSelector = `${RING_LABEL}=${o.ring}`;
      },
    );
    const leases = newSharedIndexInformer<Lease>(leaseLw, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
    });
    leases.addEventHandler({
      onAdd: (lease) => this.#observe(lease),
      onUpdate: (_, lease) => this.#observe(lease),
    });
    o.resources.forEach((entry, index) => {
      const gv = { group: entry.resource.group, version: entry.resource.version };
      const lw = newFilteredMetadataListWatchFromClient(
        o.clientset.restClientFor(gv),
        entry.resource.resource,
        entry.resource.namespaced ? entry.namespace : '',
        () => {},
      );
      const informer = newSharedIndexInformer<PartialObjectMetadata>(
        lw,
        `${entry.resource.resource} metadata`,
      );
      const enqueue = (obj: PartialObjectMetadata): void =>
        this.#queue.add(`${index}${separator}${objectKey(obj)}`);
      informer.addEventHandler({
        onAdd: enqueue,
        onUpdate: (_, obj) => enqueue(obj),
        onDelete: (obj) => {
          const last = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
          if (last) this.#lastOwner.delete(`${index}${separator}${objectKey(last)}`);
        },
      });
      this.#objects.push(informer);
    });
    const stopped = [leases.run(signal), ...this.#objects.map((i) => i.run(signal))];
    const stop = (): void => this.#queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const synced = await waitForCacheSync(
        signal,
        () => leases.hasSynced(),
        ...this.#objects.map((i) => () => i.hasSynced()),
      );
      if (!synced) return;
      this.#refreshRing();
      this.#enqueueAll();
      const ticker = this.#tick(signal);
      const workers = Array.from({ length: o.workers ?? 4 }, () => this.#worker(signal));
      await Promise.all([ticker, ...workers]);
    } finally {
      signal.removeEventListener('abort', stop);
      this.#queue.shutDown();
      await Promise.all(stopped);
    }
  }

  #observe(lease: Lease): void {
    const holder = lease.spec?.holderIdentity ?? '';
    const name = lease.metadata?.name ?? '';
    const resourceVersion = lease.metadata?.resourceVersion ?? '';
    const seen = this.#observed.get(name);
    if (seen?.resourceVersion === resourceVersion) return;
    this.#observed.set(name, {
      holder,
      resourceVersion,
      observedAt: this.#clock.now(),
      leaseDurationMs: (lease.spec?.leaseDurationSeconds ?? 0) * 1000,
    });
    this.#refreshRing();
  }

  /** Members whose Lease is held and was seen renewed within its duration. */
  #liveMembers(): string[] {
    const now = this.#clock.now();
    const live: string[] = [];
    for (const seen of this.#observed.values()) {
      if (seen.holder !== '' && now < seen.observedAt + seen.leaseDurationMs)
        live.push(seen.holder);
    }
    return live;
  }

  #observationOf(member: string): [string, Observation] | undefined {
    for (const entry of this.#observed) if (entry[1].holder === member) return entry;
    return undefined;
  }

  #refreshRing(): void {
    const live = this.#liveMembers().sort();
    this.#o.metrics.ringMembers = live.length;
    const current = this.#ring.members();
    if (live.length === current.length && live.every((m, i) => m === current[i])) return;
    this.#logger.info('Shard ring changed', { ring: this.#o.ring, members: live });
    this.#ring = new HashRing(live, { virtualNodes: this.#o.virtualNodes });
    this.#enqueueAll();
  }

  #enqueueAll(): void {
    this.#objects.forEach((informer, index) => {
      for (const key of informer.getStore().listKeys())
        this.#queue.add(`${index}${separator}${key}`);
    });
  }

  // Expiry is a matter of time passing, not of an event: look again every retry period.
  async #tick(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.#clock.sleep(this.#d.retryPeriodMs, signal);
      } catch {
        return;
      }
      this.#refreshRing();
    }
  }

  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const next = await this.#queue.get();
      if (next.shutdown) return;
      const key = next.item;
      try {
        if (!signal.aborted) await this.#assign(key, signal);
        this.#queue.forget(key);
      } catch (error) {
        if (!signal.aborted) {
          if (!isConflict(error)) {
            this.#logger.error('Assigning an object failed; retrying', {
              ring: this.#o.ring,
              key,
              error,
            });
          }
          this.#queue.addRateLimited(key);
        }
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /**
   * Brings one object's labels one step closer to its place on the ring: assigns it, asks
   * its member to drain it, or moves it once drained (or once its member's Lease expired).
   * Every write is conditional on the resourceVersion read, so a write based on what the
   * object no longer is fails with a Conflict and is retried on the new state.
   */
  async #assign(queueKey: string, signal: AbortSignal): Promise<void> {
    const at = queueKey.indexOf(separator);
    const index = Number(queueKey.slice(0, at));
    const entry = this.#o.resources[index] as ShardedResourceEntry;
    const informer = this.#objects[index] as SharedIndexInformer<PartialObjectMetadata>;
    const obj = informer.getStore().getByKey(queueKey.slice(at + 1));
    if (obj === undefined) return;
    const desired = this.#ring.memberFor(ringKeyOf(obj as HasObjectMeta, entry.key));
    if (desired === undefined) return;
    const labels = obj.metadata?.labels ?? {};
    const current = labels[this.#shard];
    const drain = labels[this.#drain];
    const live = new Set(this.#ring.members());

    if (current !== undefined && live.has(current)) {
      this.#lastOwner.set(queueKey, current);
      if (current === desired) {
        if (drain !== undefined) await this.#label(entry, obj, { [this.#drain]: null }, signal);
        return;
      }
      if (drain === undefined) {
        await this.#label(entry, obj, { [this.#drain]: DRAIN_REQUESTED }, signal);
        return;
      }
      // Still draining: the member's acknowledgement is a new event for this object.
      if (drain === DRAIN_REQUESTED) return;
      await this.#move(entry, obj, queueKey, desired, signal);
      return;
    }

    if (current !== undefined && this.#observationOf(current) !== undefined) {
      // A member whose Lease lapsed: it stopped at its renew deadline, before the expiry
      // seen here; a read of the Lease itself makes sure it was not renewed after all
      // (this replica's watch or event loop may lag).
      if (!(await this.#confirmedGone(current, signal))) return;
      await this.#move(entry, obj, queueKey, desired, signal);
      return;
    }

    // No label, or one naming no member: new, or edited by someone else. If a live member
    // held it last, it may be reconciling it right now: give it back, and let the usual
    // drain move it from there.
    const last = this.#lastOwner.get(queueKey);
    if (last !== undefined && last !== current && live.has(last)) {
      this.#logger.info('Restoring the shard label someone edited', {
        ring: this.#o.ring,
        key: queueKey.slice(at + 1),
        found: current ?? null,
        member: last,
      });
      await this.#label(entry, obj, { [this.#shard]: last }, signal);
      return;
    }
    await this.#move(entry, obj, queueKey, desired, signal);
  }

  async #move(
    entry: ShardedResourceEntry,
    obj: PartialObjectMetadata,
    queueKey: string,
    to: string,
    signal: AbortSignal,
  ): Promise<void> {
    await this.#label(entry, obj, { [this.#shard]: to, [this.#drain]: null }, signal);
    this.#lastOwner.set(queueKey, to);
    this.#o.metrics.moved(to);
  }

  async #label(
    entry: ShardedResourceEntry,
    obj: PartialObjectMetadata,
    labels: Record<string, string | null>,
    signal: AbortSignal,
  ): Promise<void> {
    const md = obj.metadata ?? {};
    const client = this.#o.clientset.resource(
      entry.resource,
      entry.resource.namespaced ? md.namespace : undefined,
    );
    await client.patch(
      md.name ?? '',
      PatchType.MergePatch,
      { metadata: { resourceVersion: md.resourceVersion, labels } },
      { signal },
    );
  }

  /**
   * Whether `member`'s Lease is gone for good: released, deleted, or unchanged on a fresh
   * read since it was seen a lease duration ago. A changed Lease is observed anew (and the
   * ring rebuilt with the member in it).
   */
  async #confirmedGone(member: string, signal: AbortSignal): Promise<boolean> {
    const found = this.#observationOf(member);
    if (found === undefined) return true;
    const [name, seen] = found;
    if (seen.holder === '') return true;
    let lease: Lease;
    try {
      lease = await this.#o.clientset
        .coordinationV1()
        .leases(this.#o.namespace)
        .get(name, { signal });
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
    if (lease.metadata?.resourceVersion !== seen.resourceVersion) {
      this.#observe(lease);
      return lease.spec?.holderIdentity !== member;
    }
    return this.#clock.now() >= seen.observedAt + seen.leaseDurationMs;
  }
}

function objectKey(obj: PartialObjectMetadata): string {
  const md = obj.metadata ?? {};
  return md.namespace ? `${md.namespace}/${md.name}` : (md.name ?? '');
}
