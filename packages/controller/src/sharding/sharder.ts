import {
  type Clock,
  type ClockTimer,
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
  DRAIN_ACKNOWLEDGED,
  DRAIN_REQUESTED,
  drainLabel,
  parseTakeoverRecord,
  ringKeyOf,
  type ShardKey,
  type ShardTakeoverRecord,
  shardLabel,
  takeoverAnnotation,
  takeoverRing,
} from './labels.js';
import { LeaseHolder, type ShardLeaseDurations } from './membership.js';
import type { ShardMetrics } from './metrics.js';
import { DEFAULT_VIRTUAL_NODES, type HashRing } from './ring.js';
import { RingView, type SeenTakeover } from './ring-view.js';

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
  /** How many objects the sharder writes at once. Default {@link DEFAULT_SHARDER_WORKERS}. */
  workers?: number | undefined;
}

const separator = '\u0000';

/**
 * @internal How many objects a sharder writes at once unless told otherwise: enough to keep
 * an API server busy when a departed member's objects all move at once (one write each).
 */
export const DEFAULT_SHARDER_WORKERS = 32;

/**
 * @internal The ring's sharder: of all replicas, the one holding the Lease `<ring>.sharder`
 * assigns every object of the sharded resources to a live member by consistent hashing,
 * as a label, and moves objects through the drain handshake when members come and go.
 */
export class Sharder {
  readonly leaseName: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #holder: LeaseHolder;

  constructor(options: SharderOptions) {
    this.leaseName = `${options.ring}.sharder`;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    const durations: Required<ShardLeaseDurations> = {
      leaseDurationMs: options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
      renewDeadlineMs: options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
      retryPeriodMs: options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    };
    this.#holder = new LeaseHolder({
      ...durations,
      namespace: options.namespace,
      name: this.leaseName,
      identity: options.identity,
      clientset: options.clientset,
      description: `sharder ${options.ring}`,
      clock: this.#clock,
      logger: this.#logger,
      onAcquired: (leading) => new Assignment(options).run(leading),
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
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #shard: string;
  readonly #drain: string;
  /** The member each object was last seen assigned to by a valid label (or by our write). */
  readonly #lastOwner = new Map<string, string>();
  /** Departed members whose Lease a read from the server showed expired (logged once). */
  readonly #confirmedGone = new Set<string>();
  readonly #view: RingView;
  readonly #objects: SharedIndexInformer<PartialObjectMetadata>[] = [];
  readonly #queue: RateLimitingQueue<string>;
  readonly #takeover: string;
  /** Takeover records this sharder wrote, until it removed them (its watch may lag). */
  readonly #written = new Map<string, SeenTakeover>();
  /** Writes of a takeover record in flight, by dead member, shared by its objects. */
  readonly #recording = new Map<string, Promise<SeenTakeover>>();
  /** Members whose record is being checked for removal, and those to check once more after. */
  readonly #checking = new Set<string>();
  readonly #recheck = new Set<string>();
  /**
   * `member\0tenure` of the takeovers this sharder finished (record removed): a late event
   * still showing such an object with the member starts no second one.
   */
  readonly #finished = new Set<string>();
  #signal: AbortSignal | undefined;
  /** The relabels of each takeover record, by dead member: held until its survivors are done. */
  readonly #relabels = new Map<string, RecordRelabels>();

  constructor(options: SharderOptions) {
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#shard = shardLabel(options.ring);
    this.#drain = drainLabel(options.ring);
    this.#takeover = takeoverAnnotation(options.ring);
    this.#view = new RingView({
      ring: options.ring,
      namespace: options.namespace,
      clientset: options.clientset,
      clock: this.#clock,
      virtualNodes: options.virtualNodes,
      onChange: (ring) => {
        for (const member of ring.members()) this.#confirmedGone.delete(member);
        this.#o.metrics.ringMembers = ring.members().length;
        this.#logger.info('Shard ring changed', { ring: this.#o.ring, members: ring.members() });
        this.#enqueueAll();
      },
      onLease: () => {
        for (const { member } of this.#view.takeovers()) this.#checkRecord(member);
        for (const [member, relabels] of this.#relabels) this.#releaseIfDone(member, relabels);
      },
    });
    this.#queue = new RateLimitingQueue<string>({
      clock: this.#clock,
      name: `sharder-${options.ring}`,
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    const o = this.#o;
    this.#signal = signal;
    this.#logger.info('Leading the shard ring: assigning objects', { ring: o.ring });
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
      // An object leaving a member under a takeover record may be the last one it waited for.
      const left = (obj: PartialObjectMetadata | undefined): void => {
        const member = obj?.metadata?.labels?.[this.#shard];
        if (member !== undefined && this.#takeoverFor(member) !== undefined) {
          this.#checkRecord(member);
        }
      };
      informer.addEventHandler({
        onAdd: enqueue,
        onUpdate: (old, obj) => {
          enqueue(obj);
          if (old.metadata?.labels?.[this.#shard] !== obj.metadata?.labels?.[this.#shard]) {
            left(old);
          }
        },
        onDelete: (obj) => {
          const last = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
          if (last) this.#lastOwner.delete(`${index}${separator}${objectKey(last)}`);
          left(last);
        },
      });
      this.#objects.push(informer);
    });
    const stopped = [this.#view.run(signal), ...this.#objects.map((i) => i.run(signal))];
    const stop = (): void => this.#queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const synced = await waitForCacheSync(
        signal,
        () => this.#view.hasSynced(),
        ...this.#objects.map((i) => () => i.hasSynced()),
      );
      if (!synced) return;
      this.#view.refresh();
      this.#o.metrics.ringMembers = this.#view.ring().members().length;
      this.#enqueueAll();
      // A record left by an earlier sharder whose objects were all relabelled already.
      for (const { member } of this.#view.takeovers()) this.#checkRecord(member);
      await Promise.all(
        Array.from({ length: o.workers ?? DEFAULT_SHARDER_WORKERS }, () => this.#worker(signal)),
      );
    } finally {
      signal.removeEventListener('abort', stop);
      this.#queue.shutDown();
      for (const relabels of this.#relabels.values()) relabels.deadline?.cancel();
      await Promise.all(stopped);
    }
  }

  #enqueueAll(): void {
    this.#objects.forEach((informer, index) => {
      for (const key of informer.getStore().listKeys())
        this.#queue.add(`${index}${separator}${key}`);
    });
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
   *
   * The member an object is assigned to is recorded twice, in the shard label (which the
   * members' caches select on) and in the shard annotation (which only the sharder writes,
   * together with the label). A member reconciles an object only where both name it, so a
   * label someone else edited makes nobody start a reconcile: the member it named may still
   * be finishing one, and gets the object back before any move, through the usual drain.
   */
  async #assign(queueKey: string, signal: AbortSignal): Promise<void> {
    const at = queueKey.indexOf(separator);
    const index = Number(queueKey.slice(0, at));
    const entry = this.#o.resources[index] as ShardedResourceEntry;
    const informer = this.#objects[index] as SharedIndexInformer<PartialObjectMetadata>;
    const obj = informer.getStore().getByKey(queueKey.slice(at + 1));
    if (obj === undefined) return;
    const ring = this.#view.ring();
    const desired = ring.memberFor(ringKeyOf(obj as HasObjectMeta, entry.key));
    if (desired === undefined) return;
    const current = obj.metadata?.labels?.[this.#shard];
    const recorded = obj.metadata?.annotations?.[this.#shard];
    const drain = obj.metadata?.labels?.[this.#drain];
    const live = new Set(ring.members());
    // Who may be reconciling the object now: the member the sharder assigned it to, by its
    // record, or (the record removed) the member it was last seen with.
    const holder = recorded ?? this.#lastOwner.get(queueKey) ?? current;
    if (holder === undefined) {
      await this.#move(entry, obj, queueKey, desired, signal);
      return;
    }
    this.#lastOwner.set(queueKey, holder);

    if (current !== holder || recorded !== holder) {
      // Edited or removed by someone else (or labelled without the sharder at creation).
      // A holder that acknowledged a drain has let go; one that is live otherwise gets the
      // object back, and the usual drain moves it from there.
      if (live.has(holder) && drain !== DRAIN_ACKNOWLEDGED) {
        this.#logger.info('Restoring the shard assignment someone edited', {
          ring: this.#o.ring,
          key: queueKey.slice(at + 1),
          found: current ?? null,
          member: holder,
        });
        await this.#label(entry, obj, { [this.#shard]: holder }, signal, {
          [this.#shard]: holder,
        });
        return;
      }
      if (!live.has(holder)) {
        await this.#moveFromDeparted(entry, obj, queueKey, holder, desired, signal);
        return;
      }
      await this.#move(entry, obj, queueKey, desired, signal);
      return;
    }

    if (live.has(holder)) {
      if (holder === desired) {
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
    await this.#moveFromDeparted(entry, obj, queueKey, holder, desired, signal);
  }

  /**
   * Moves an object away from `holder`, which is on no ring now (its Lease expired, was
   * released, or carries a takeover record). A Lease that expired and names a tenure gets a
   * takeover record first — one write for all of the member's objects, conditional on the
   * version seen to expire — and the object goes where the record's view places it, where a
   * survivor may already be reconciling it. Without a record (a Lease released, or naming no
   * tenure) the ordinary move: once a read confirms the Lease expired, to `desired`.
   */
  async #moveFromDeparted(
    entry: ShardedResourceEntry,
    obj: PartialObjectMetadata,
    queueKey: string,
    holder: string,
    desired: string,
    signal: AbortSignal,
  ): Promise<void> {
    let takeover = this.#takeoverFor(holder);
    const expired = this.#view.expiredLease(holder);
    if (
      takeover === undefined &&
      expired !== undefined &&
      !this.#finished.has(`${holder}${separator}${expired.tenure}`)
    ) {
      takeover = await this.#recordTakeover(holder, signal);
    }
    if (takeover === undefined) {
      if (!(await this.#gone(holder, signal))) return;
      await this.#move(entry, obj, queueKey, desired, signal);
      return;
    }
    const record = takeover.record;
    if (record === undefined) {
      // Not a record (someone else's annotation): nobody acts on it; remove it, then move.
      await this.#removeRecord(holder, takeover.raw, signal);
      if (!(await this.#gone(holder, signal))) return;
      await this.#move(entry, obj, queueKey, desired, signal);
      return;
    }
    const relabels = this.#relabelsOf(holder, takeover.raw, record);
    const owner = relabels.ring.memberFor(ringKeyOf(obj as HasObjectMeta, entry.key));
    if (owner !== undefined && !this.#view.ring().members().includes(owner)) {
      // The record's owner of the object is on no ring any more: it may have been
      // reconciling the object under the record, so it must be gone before anyone else gets it.
      const ownerTakeover = this.#takeoverFor(owner);
      if (ownerTakeover?.record === undefined && !(await this.#gone(owner, signal))) return;
      await this.#move(entry, obj, queueKey, desired, signal);
      return;
    }
    if (!relabels.released) {
      relabels.waiting.add(queueKey);
      return;
    }
    await this.#move(entry, obj, queueKey, owner ?? desired, signal);
  }

  /**
   * The relabels of `member`'s objects under its takeover record `raw`. They are held back
   * until every survivor the record names has reported, on its Lease, that it reconciled its
   * share, or has left that tenure, or a lease duration has passed: the survivors already
   * reconcile those objects by the record, and each relabel would take the API server from
   * their reconciles.
   */
  #relabelsOf(member: string, raw: string, record: ShardTakeoverRecord): RecordRelabels {
    const earlier = this.#relabels.get(member);
    if (earlier?.raw === raw) return earlier;
    earlier?.deadline?.cancel();
    const fresh: RecordRelabels = {
      raw,
      record,
      ring: takeoverRing(record),
      released: false,
      waiting: new Set(),
      deadline: undefined,
    };
    fresh.deadline = this.#clock.setTimeout(
      () => this.#release(fresh),
      this.#o.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
    );
    this.#relabels.set(member, fresh);
    this.#releaseIfDone(member, fresh);
    return fresh;
  }

  #releaseIfDone(member: string, relabels: RecordRelabels): void {
    if (relabels.released) return;
    if (this.#takeoverFor(member)?.raw !== relabels.raw) {
      this.#relabels.delete(member);
      relabels.deadline?.cancel();
      return;
    }
    const { record } = relabels;
    const done = Object.entries(record.view).every(
      ([survivor, tenure]) =>
        this.#view.liveTenure(survivor) !== tenure ||
        this.#view.takeoversDoneBy(survivor).has(record.tenure),
    );
    if (done) this.#release(relabels);
  }

  #release(relabels: RecordRelabels): void {
    if (relabels.released) return;
    relabels.released = true;
    relabels.deadline?.cancel();
    for (const key of relabels.waiting) this.#queue.add(key);
    relabels.waiting.clear();
  }

  #takeoverFor(member: string): SeenTakeover | undefined {
    return this.#view.takeoverOf(member) ?? this.#written.get(member);
  }

  /**
   * Writes the takeover record on `member`'s expired Lease: its tenure that ended and the
   * view of the ring now, each live member with its tenure. Conditional on the version this
   * replica saw expire (a Conflict means the member renewed, or another sharder wrote): the
   * write itself confirms the expiry on the server, as a read would.
   */
  #recordTakeover(member: string, signal: AbortSignal): Promise<SeenTakeover> {
    let pending = this.#recording.get(member);
    if (pending === undefined) {
      pending = this.#writeRecord(member, signal).finally(() => this.#recording.delete(member));
      this.#recording.set(member, pending);
    }
    return pending;
  }

  async #writeRecord(member: string, signal: AbortSignal): Promise<SeenTakeover> {
    const lease = this.#view.expiredLease(member);
    if (lease === undefined || lease.record !== undefined) {
      throw new Error(`shard ring ${this.#o.ring}: the Lease of ${member} changed; look again`);
    }
    const view: Record<string, string> = {};
    for (const m of this.#view.ring().members()) {
      const tenure = this.#view.liveTenure(m);
      if (tenure !== undefined) view[m] = tenure;
    }
    const record: ShardTakeoverRecord = {
      tenure: lease.tenure,
      view,
      virtualNodes: this.#o.virtualNodes ?? DEFAULT_VIRTUAL_NODES,
    };
    const raw = JSON.stringify(record);
    await this.#o.clientset
      .coordinationV1()
      .leases(this.#o.namespace)
      .patch(
        lease.name,
        PatchType.MergePatch,
        {
          metadata: {
            resourceVersion: lease.resourceVersion,
            annotations: { [this.#takeover]: raw },
          },
        },
        { signal },
      );
    const seen = { member, raw, record };
    this.#written.set(member, seen);
    this.#confirmedGone.add(member);
    this.#logger.info(
      'Wrote a takeover record: the survivors reconcile the objects of a departed member',
      {
        ring: this.#o.ring,
        member,
        view: Object.keys(view),
      },
    );
    return seen;
  }

  /** Removes `member`'s takeover record once no object on the server is labelled with it. */
  #checkRecord(member: string): void {
    if (this.#signal === undefined || this.#signal.aborted) return;
    if (this.#checking.has(member)) {
      this.#recheck.add(member);
      return;
    }
    if (!this.#objects.every((i) => i.hasSynced())) return;
    const labelled = (informer: SharedIndexInformer<PartialObjectMetadata>): boolean =>
      informer
        .getStore()
        .list()
        .some((obj) => obj.metadata?.labels?.[this.#shard] === member);
    if (this.#objects.some(labelled)) return;
    const signal = this.#signal;
    this.#checking.add(member);
    void this.#removeIfDone(member, signal)
      .catch((error: unknown) => {
        if (signal.aborted) return;
        if (!isConflict(error)) {
          this.#logger.error('Removing a takeover record failed; retrying', {
            ring: this.#o.ring,
            member,
            error,
          });
        }
        this.#clock.setTimeout(
          () => this.#checkRecord(member),
          this.#o.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
        );
      })
      .finally(() => {
        this.#checking.delete(member);
        if (this.#recheck.delete(member)) this.#checkRecord(member);
      });
  }

  async #removeIfDone(member: string, signal: AbortSignal): Promise<void> {
    const takeover = this.#takeoverFor(member);
    if (takeover === undefined) return;
    // The server's word, not this replica's watch: survivors act on what is labelled there.
    for (const [index, entry] of this.#o.resources.entries()) {
      const list = await this.#o.clientset
        .resource(
          entry.resource,
          entry.resource.namespaced ? entry.namespace || undefined : undefined,
        )
        .list({ labelSelector: `${this.#shard}=${member}`, signal });
      const left = list.items ?? [];
      if (left.length > 0) {
        for (const obj of left) this.#queue.add(`${index}${separator}${objectKey(obj)}`);
        return;
      }
    }
    await this.#removeRecord(member, takeover.raw, signal);
  }

  /**
   * Removes the takeover annotation `raw` from `member`'s Lease, conditional on the version
   * read showing exactly it (a late removal never takes away a newer record).
   */
  async #removeRecord(member: string, raw: string, signal: AbortSignal): Promise<void> {
    const leases = this.#o.clientset.coordinationV1().leases(this.#o.namespace);
    const name = `${this.#o.ring}-${member}`;
    let lease: coordinationv1.Lease;
    try {
      lease = await leases.get(name, { signal });
    } catch (error) {
      if (isNotFound(error)) {
        this.#written.delete(member);
        return;
      }
      throw error;
    }
    if (lease.metadata?.annotations?.[this.#takeover] === raw) {
      const tenure = parseTakeoverRecord(raw)?.tenure;
      if (tenure !== undefined) this.#finished.add(`${member}${separator}${tenure}`);
      await leases.patch(
        name,
        PatchType.MergePatch,
        {
          metadata: {
            resourceVersion: lease.metadata?.resourceVersion,
            annotations: { [this.#takeover]: null },
          },
        },
        { signal },
      );
      this.#logger.info('Removed a takeover record: every object it took over was relabelled', {
        ring: this.#o.ring,
        member,
      });
    }
    if (this.#written.get(member)?.raw === raw) this.#written.delete(member);
  }

  /**
   * Whether `member`, not live in this replica's view, may be treated as having let go of
   * its objects: it was never seen holding a Lease of the ring, or a read of its Lease from
   * the server confirms it expired. It stopped at its renew deadline, before the expiry seen
   * here; the read makes sure it was not renewed after all (this replica's watch or event
   * loop may lag).
   */
  async #gone(member: string, signal: AbortSignal): Promise<boolean> {
    if (!this.#view.knows(member)) return true;
    if (!(await this.#view.confirmedGone(member, signal))) return false;
    if (!this.#confirmedGone.has(member)) {
      this.#confirmedGone.add(member);
      this.#logger.info(
        'The Lease of a departed member is expired on the server; moving its objects',
        {
          ring: this.#o.ring,
          member,
        },
      );
    }
    return true;
  }

  async #move(
    entry: ShardedResourceEntry,
    obj: PartialObjectMetadata,
    queueKey: string,
    to: string,
    signal: AbortSignal,
  ): Promise<void> {
    await this.#label(entry, obj, { [this.#shard]: to, [this.#drain]: null }, signal, {
      [this.#shard]: to,
    });
    this.#lastOwner.set(queueKey, to);
    this.#o.metrics.moved(to);
  }

  async #label(
    entry: ShardedResourceEntry,
    obj: PartialObjectMetadata,
    labels: Record<string, string | null>,
    signal: AbortSignal,
    annotations?: Record<string, string>,
  ): Promise<void> {
    const md = obj.metadata ?? {};
    const client = this.#o.clientset.resource(
      entry.resource,
      entry.resource.namespaced ? md.namespace : undefined,
    );
    await client.patch(
      md.name ?? '',
      PatchType.MergePatch,
      {
        metadata: {
          resourceVersion: md.resourceVersion,
          labels,
          ...(annotations ? { annotations } : {}),
        },
      },
      { signal },
    );
  }
}

/** The relabels of one takeover record's objects, and whether they may start. */
interface RecordRelabels {
  readonly raw: string;
  readonly record: ShardTakeoverRecord;
  /** The record's ring, on which each object's owner is looked up. */
  readonly ring: HashRing;
  released: boolean;
  /** Objects that came up while held, queued again when released. */
  readonly waiting: Set<string>;
  /** Releases them a lease duration after the record was first seen. */
  deadline: ClockTimer | undefined;
}

function objectKey(obj: HasObjectMeta): string {
  const md = obj.metadata ?? {};
  return md.namespace ? `${md.namespace}/${md.name}` : (md.name ?? '');
}
