import { type Clock, type ClockTimer, isNotFound } from '@kubets/apimachinery';
import {
  newFilteredListWatchFromClient,
  newSharedIndexInformer,
  type SharedIndexInformer,
} from '@kubets/cache';
import type { Clientset, coordinationv1 } from '@kubets/clientset';
import {
  parseTakeoverRecord,
  parseTakeoversDone,
  RING_LABEL,
  type ShardTakeoverRecord,
  takeoverAnnotation,
  takeoverDoneAnnotation,
  tenureAnnotation,
} from './labels.js';
import { HashRing } from './ring.js';

type Lease = coordinationv1.Lease;

/** A member's Lease as this replica last saw it change. */
interface Observation {
  holder: string;
  /** The Lease's spec (holder, times, duration) and tenure: what changes with a renewal. */
  renewal: string;
  /** Of the latest version seen, renewed or not (a takeover record changes only metadata). */
  resourceVersion: string;
  /** When this replica saw that renewal first, by its own clock. */
  observedAt: number;
  leaseDurationMs: number;
  /** The tenure the Lease names (its tenure annotation). */
  tenure: string | undefined;
  /** The takeover annotation, as written. */
  record: string | undefined;
  /** The takeovers whose share the member reported reconciled (its done annotation). */
  done: ReadonlySet<string>;
}

/** A takeover record on a member's Lease, as a replica sees it. */
export interface SeenTakeover {
  /** The dead member whose Lease carries it. */
  member: string;
  /** The annotation as written. */
  raw: string;
  /** The record; undefined for an annotation that is none. */
  record: ShardTakeoverRecord | undefined;
}

/** @internal Settings of a {@link RingView}. */
export interface RingViewOptions {
  ring: string;
  namespace: string;
  clientset: Clientset;
  clock: Clock;
  virtualNodes?: number | undefined;
  /** Called with the new ring whenever its members change. */
  onChange?: ((ring: HashRing) => void) | undefined;
  /** Called after every change of a Lease seen (a renewal, a takeover record written or removed). */
  onLease?: (() => void) | undefined;
}

/**
 * @internal The live members of a ring as this replica sees them, from a watch of the
 * ring's Leases: a member is live while its Lease has a holder and was seen to change within
 * its `leaseDurationSeconds`, timed by this replica's clock from when it saw the change —
 * never by comparing the Lease's `renewTime` with the local clock. A member whose Lease
 * carries a takeover record is on no ring until the record is removed: its objects belong to
 * the record's view until then.
 */
export class RingView {
  readonly #o: RingViewOptions;
  readonly #observed = new Map<string, Observation>();
  readonly #leases: SharedIndexInformer<Lease>;
  /** Reads of a Lease in flight, by name, shared by every caller that asks meanwhile. */
  readonly #reads = new Map<string, Promise<Lease | undefined>>();
  #ring: HashRing;
  /** Fires when the next live member's Lease expires; armed only while running. */
  #expiry: ClockTimer | undefined;
  #running = false;

  constructor(options: RingViewOptions) {
    this.#o = options;
    this.#ring = new HashRing([], { virtualNodes: options.virtualNodes });
    this.#leases = newSharedIndexInformer<Lease>(
      newFilteredListWatchFromClient<Lease>(
        options.clientset.restClientFor({ group: 'coordination.k8s.io', version: 'v1' }),
        'leases',
        options.namespace,
        (list) => {
          list.labelSelector = `${RING_LABEL}=${options.ring}`;
        },
      ),
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
    );
    this.#leases.addEventHandler({
      onAdd: (lease) => this.#observe(lease),
      onUpdate: (_, lease) => this.#observe(lease),
    });
  }

  /** The ring of the members live now. */
  ring(): HashRing {
    return this.#ring;
  }

  /** Whether the Leases were listed. */
  hasSynced(): boolean {
    return this.#leases.hasSynced();
  }

  /**
   * Watches the Leases until `signal` aborts. Expiry is a matter of time passing, not of an
   * event: a timer fires at the moment the first live member's Lease expires.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    this.#running = true;
    const stop = (): void => {
      this.#running = false;
      this.#expiry?.cancel();
      this.#expiry = undefined;
    };
    signal.addEventListener('abort', stop, { once: true });
    this.refresh();
    try {
      await this.#leases.run(signal);
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
    }
  }

  /** Rebuilds the ring when its live members changed, and times the next expiry. */
  refresh(): void {
    const now = this.#o.clock.now();
    const live: string[] = [];
    let nextExpiry = Number.POSITIVE_INFINITY;
    for (const seen of this.#observed.values()) {
      const expiry = seen.observedAt + seen.leaseDurationMs;
      if (seen.holder !== '' && now < expiry) {
        nextExpiry = Math.min(nextExpiry, expiry);
        if (seen.record === undefined) live.push(seen.holder);
      }
    }
    this.#armExpiry(nextExpiry - now);
    live.sort();
    const current = this.#ring.members();
    if (live.length === current.length && live.every((m, i) => m === current[i])) return;
    this.#ring = new HashRing(live, { virtualNodes: this.#o.virtualNodes });
    this.#o.onChange?.(this.#ring);
  }

  // A timer that fires a little early (timers have millisecond granularity) finds the
  // member still live and arms again for what is left.
  #armExpiry(inMs: number): void {
    this.#expiry?.cancel();
    this.#expiry = undefined;
    if (!this.#running || !Number.isFinite(inMs)) return;
    this.#expiry = this.#o.clock.setTimeout(() => this.refresh(), inMs);
  }

  /** The tenure `member`'s Lease names, if it is live now. */
  liveTenure(member: string): string | undefined {
    const seen = this.#observationOf(member)?.[1];
    if (seen === undefined || this.#o.clock.now() >= seen.observedAt + seen.leaseDurationMs) {
      return undefined;
    }
    return seen.tenure;
  }

  /**
   * The dead members' tenures whose takeover `member` reported, on its Lease, that it has
   * reconciled its share of.
   */
  takeoversDoneBy(member: string): ReadonlySet<string> {
    return this.#observationOf(member)?.[1].done ?? new Set();
  }

  /** The takeover record on `member`'s Lease, if any. */
  takeoverOf(member: string): SeenTakeover | undefined {
    const seen = this.#observationOf(member)?.[1];
    if (seen?.record === undefined) return undefined;
    return { member, raw: seen.record, record: parseTakeoverRecord(seen.record) };
  }

  /** Every takeover record on the ring's Leases. */
  takeovers(): SeenTakeover[] {
    const found: SeenTakeover[] = [];
    for (const seen of this.#observed.values()) {
      if (seen.record !== undefined && seen.holder !== '') {
        found.push({
          member: seen.holder,
          raw: seen.record,
          record: parseTakeoverRecord(seen.record),
        });
      }
    }
    return found;
  }

  /**
   * `member`'s Lease if it is unchanged since this replica saw it a lease duration ago and
   * names a tenure: what a takeover record may be written on, conditional on that version.
   */
  expiredLease(
    member: string,
  ):
    | { name: string; resourceVersion: string; tenure: string; record: string | undefined }
    | undefined {
    const found = this.#observationOf(member);
    if (found === undefined) return undefined;
    const [name, seen] = found;
    if (seen.tenure === undefined) return undefined;
    if (this.#o.clock.now() < seen.observedAt + seen.leaseDurationMs) return undefined;
    return {
      name,
      resourceVersion: seen.resourceVersion,
      tenure: seen.tenure,
      record: seen.record,
    };
  }

  /** Whether a Lease of the ring was ever seen held by `member`. */
  knows(member: string): boolean {
    return this.#observationOf(member) !== undefined;
  }

  /**
   * Whether `member`'s Lease is gone for good: deleted, or unchanged on a fresh read since
   * it was seen a lease duration ago. A changed Lease is observed anew (and the ring rebuilt
   * with the member in it), so a lagging watch or a starved event loop never passes a live
   * member for a dead one.
   */
  async confirmedGone(member: string, signal: AbortSignal): Promise<boolean> {
    const found = this.#observationOf(member);
    if (found === undefined) return true;
    const [name, seen] = found;
    const lease = await this.#read(name, signal);
    if (lease === undefined) return true;
    if (this.#renewalOf(lease) !== seen.renewal) {
      this.#observe(lease);
      return lease.spec?.holderIdentity !== member;
    }
    return this.#o.clock.now() >= seen.observedAt + seen.leaseDurationMs;
  }

  /**
   * Reads the Lease `name` (undefined when there is none). Callers asking while a read is in
   * flight share it: moving a departed member's objects asks once per object, and an answer
   * a round trip old is as good as a new one for what {@link confirmedGone} decides.
   */
  #read(name: string, signal: AbortSignal): Promise<Lease | undefined> {
    let pending = this.#reads.get(name);
    if (pending === undefined) {
      pending = this.#o.clientset
        .coordinationV1()
        .leases(this.#o.namespace)
        .get(name, { signal })
        .catch((error: unknown) => {
          if (isNotFound(error)) return undefined;
          throw error;
        })
        .finally(() => this.#reads.delete(name));
      this.#reads.set(name, pending);
    }
    return pending;
  }

  #observationOf(member: string): [string, Observation] | undefined {
    for (const entry of this.#observed) if (entry[1].holder === member) return entry;
    return undefined;
  }

  #renewalOf(lease: Lease): string {
    const spec = lease.spec ?? {};
    return JSON.stringify([
      spec.holderIdentity ?? '',
      spec.renewTime ?? null,
      spec.acquireTime ?? null,
      spec.leaseTransitions ?? 0,
      spec.leaseDurationSeconds ?? 0,
      lease.metadata?.annotations?.[tenureAnnotation(this.#o.ring)] ?? null,
    ]);
  }

  // Only a renewal restarts the expiry clock: a takeover record written on an expired Lease,
  // or removed from it, changes its metadata, not whether its holder is alive.
  #observe(lease: Lease): void {
    const name = lease.metadata?.name ?? '';
    const resourceVersion = lease.metadata?.resourceVersion ?? '';
    const earlier = this.#observed.get(name);
    if (earlier?.resourceVersion === resourceVersion) return;
    const renewal = this.#renewalOf(lease);
    const annotations = lease.metadata?.annotations;
    this.#observed.set(name, {
      holder: lease.spec?.holderIdentity ?? '',
      renewal,
      resourceVersion,
      observedAt: earlier?.renewal === renewal ? earlier.observedAt : this.#o.clock.now(),
      leaseDurationMs: (lease.spec?.leaseDurationSeconds ?? 0) * 1000,
      tenure: annotations?.[tenureAnnotation(this.#o.ring)],
      record: annotations?.[takeoverAnnotation(this.#o.ring)],
      done: parseTakeoversDone(annotations?.[takeoverDoneAnnotation(this.#o.ring)]),
    });
    this.refresh();
    this.#o.onLease?.();
  }
}
