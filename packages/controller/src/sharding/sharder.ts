import {
  type Clock,
  type HasObjectMeta,
  isConflict,
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
import type { Clientset, ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
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
  ringKeyOf,
  type ShardKey,
  shardLabel,
} from './labels.js';
import { LeaseHolder, type ShardLeaseDurations } from './membership.js';
import type { ShardMetrics } from './metrics.js';
import { RingView } from './ring-view.js';

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

  constructor(options: SharderOptions) {
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#shard = shardLabel(options.ring);
    this.#drain = drainLabel(options.ring);
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
    });
    this.#queue = new RateLimitingQueue<string>({
      clock: this.#clock,
      name: `sharder-${options.ring}`,
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    const o = this.#o;
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
      await Promise.all(
        Array.from({ length: o.workers ?? DEFAULT_SHARDER_WORKERS }, () => this.#worker(signal)),
      );
    } finally {
      signal.removeEventListener('abort', stop);
      this.#queue.shutDown();
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
      if (!live.has(holder) && !(await this.#gone(holder, signal))) return;
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
    if (!(await this.#gone(holder, signal))) return;
    await this.#move(entry, obj, queueKey, desired, signal);
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

function objectKey(obj: PartialObjectMetadata): string {
  const md = obj.metadata ?? {};
  return md.namespace ? `${md.namespace}/${md.name}` : (md.name ?? '');
}
