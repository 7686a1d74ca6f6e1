import { randomUUID } from 'node:crypto';
import { type Clock, type Logger, realClock, silentLogger } from '@kubets/apimachinery';
import type { Clientset, coordinationv1 } from '@kubets/clientset';
import { LeaderElector, type LeaseClient, LeaseLock } from '@kubets/leaderelection';
import { RING_LABEL, takeoverAnnotation, tenureAnnotation } from './labels.js';

type Lease = coordinationv1.Lease;

/** The Lease timings of a ring's members and of its sharder, as leader election's. */
export interface ShardLeaseDurations {
  /** How long a Lease counts as held without renewal (default 15 s). */
  leaseDurationMs?: number | undefined;
  /**
   * How long the holder keeps trying to renew before it stops acting (default 10 s); below
   * `leaseDurationMs`, so a member that cannot renew stops before its Lease expires.
   */
  renewDeadlineMs?: number | undefined;
  /** Time between renewals (default 2 s). */
  retryPeriodMs?: number | undefined;
}

/** @internal Settings of a {@link ShardMembership}. */
export interface ShardMembershipOptions extends ShardLeaseDurations {
  ring: string;
  namespace: string;
  identity: string;
  clientset: Clientset;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  /** Called each time the Lease is acquired (again), with the signal of that tenure. */
  onAcquired?: ((tenure: AbortSignal) => void) | undefined;
  /** Awaited on shutdown before the Lease is released: the reconciles in flight finishing. */
  beforeRelease?: (() => Promise<void>) | undefined;
  /** Called when the takeover record on this member's own Lease was seen removed. */
  onRecordCleared?: (() => void) | undefined;
  /** Annotations to write with every write of the Lease (see {@link LeaseHolderOptions}). */
  annotations?: (() => Readonly<Record<string, string | undefined>>) | undefined;
}

/** @internal What a {@link LeaseHolder} holds and how. */
export interface LeaseHolderOptions extends ShardLeaseDurations {
  namespace: string;
  name: string;
  identity: string;
  clientset: Clientset;
  labels?: Readonly<Record<string, string>> | undefined;
  /** Names the election in log fields. */
  description: string;
  clock: Clock;
  logger: Logger;
  /** Called with each tenure's signal when the Lease was acquired. */
  onAcquired(tenure: AbortSignal): void | Promise<void>;
  /** Called when a tenure ended. */
  onLost?(): void;
  /**
   * Writes a fresh id to this annotation with every write of each tenure (so the write that
   * acquires the Lease names the new tenure on the server).
   */
  tenureAnnotation?: string | undefined;
  /**
   * Annotations to write with every write of the Lease, as they are at that moment: a
   * string sets one, `undefined` removes it. What a holder tells the others rides on its
   * renewals, at no write of its own.
   */
  annotations?: (() => Readonly<Record<string, string | undefined>>) | undefined;
  /** Called with the Lease as each answer of the server shows it (newest request first wins). */
  onSeen?(lease: Lease): void;
}

/**
 * @internal Holds one Lease through a {@link LeaderElector} for as long as it runs: acquires
 * it, renews it, gives it up past the renew deadline and then tries again, and releases it
 * when stopped. Both a member's Lease and the sharder's are held this way.
 */
export class LeaseHolder {
  readonly #o: LeaseHolderOptions;
  #elector: LeaderElector | undefined;
  #tenureId: string | undefined;
  /** Requests sent so far, and the latest whose answer was passed to `onSeen`. */
  #sent = 0;
  #seenUpTo = 0;

  constructor(options: LeaseHolderOptions) {
    this.#o = options;
  }

  /** Held, and renewed within the renew deadline by the clock now. */
  isHeld(): boolean {
    return this.#elector?.isLeader() ?? false;
  }

  /** The id of the tenure being acquired or held (with `tenureAnnotation`). */
  tenureId(): string | undefined {
    return this.#tenureId;
  }

  /** Holds the Lease (again after each lapse) until `signal` aborts, then releases it. */
  async run(signal: AbortSignal): Promise<void> {
    const o = this.#o;
    while (!signal.aborted) {
      // One elector holds the Lease for at most one tenure: a fresh id for each.
      const tenureId = randomUUID();
      this.#tenureId = tenureId;
      const elector = new LeaderElector({
        lock: new LeaseLock({
          namespace: o.namespace,
          name: o.name,
          client: this.#leases(tenureId),
          identity: o.identity,
          labels: o.labels,
        }),
        leaseDurationMs: o.leaseDurationMs,
        renewDeadlineMs: o.renewDeadlineMs,
        retryPeriodMs: o.retryPeriodMs,
        releaseOnCancel: true,
        name: o.description,
        clock: o.clock,
        logger: o.logger,
        callbacks: {
          onStartedLeading: (tenure) => o.onAcquired(tenure),
          onStoppedLeading: () => o.onLost?.(),
        },
      });
      this.#elector = elector;
      await elector.run(signal);
    }
  }

  // The Lease client of one tenure's elector: every write names the tenure, and every answer
  // is shown to `onSeen` unless a request sent later was answered already (an abandoned
  // request may be answered late, with what the Lease was before).
  #leases(tenureId: string): LeaseClient {
    const o = this.#o;
    const leases = o.clientset.coordinationV1().leases(o.namespace);
    const annotation = o.tenureAnnotation;
    if (annotation === undefined && o.annotations === undefined && o.onSeen === undefined) {
      return leases;
    }
    const named = (lease: Lease): Lease => {
      if (annotation === undefined && o.annotations === undefined) return lease;
      const annotations: Record<string, string> = { ...lease.metadata?.annotations };
      for (const [key, value] of Object.entries(o.annotations?.() ?? {})) {
        if (value === undefined) delete annotations[key];
        else annotations[key] = value;
      }
      if (annotation !== undefined) annotations[annotation] = tenureId;
      return { ...lease, metadata: { ...lease.metadata, annotations } };
    };
    const seen = async (request: Promise<Lease>): Promise<Lease> => {
      const order = ++this.#sent;
      const lease = await request;
      if (order > this.#seenUpTo) {
        this.#seenUpTo = order;
        o.onSeen?.(lease);
      }
      return lease;
    };
    return {
      get: (name, options) => seen(leases.get(name, options)),
      create: (lease, options) => seen(leases.create(named(lease), options)),
      update: (lease, options) => seen(leases.update(named(lease), options)),
    };
  }
}

/**
 * @internal One replica's membership of a ring: it holds the Lease `<ring>-<identity>`,
 * labelled with the ring's name, renewed by a {@link LeaderElector} of which it is the only
 * candidate — so it renews, and stops counting itself a member past the renew deadline,
 * exactly as a leader does. A tenure that ended (the Lease not renewed in time) is followed
 * by a new one as soon as the Lease can be written again; each tenure has its own signal.
 */
export class ShardMembership {
  readonly leaseName: string;
  readonly #options: ShardMembershipOptions;
  readonly #holder: LeaseHolder;
  #tenure: AbortController | undefined;
  #tenures = 0;
  /** The takeover annotation on this member's own Lease, as its latest answer showed it. */
  #ownRecord: string | undefined;
  #recordsCleared = 0;

  constructor(options: ShardMembershipOptions) {
    this.#options = options;
    this.leaseName = `${options.ring}-${options.identity}`;
    const logger = options.logger ?? silentLogger;
    const fields = { ring: options.ring, identity: options.identity };
    this.#holder = new LeaseHolder({
      ...options,
      name: this.leaseName,
      labels: { [RING_LABEL]: options.ring },
      description: `shard ${options.ring}`,
      clock: options.clock ?? realClock,
      logger,
      tenureAnnotation: tenureAnnotation(options.ring),
      onSeen: (lease) => {
        const record = lease.metadata?.annotations?.[takeoverAnnotation(options.ring)];
        const cleared = this.#ownRecord !== undefined && record === undefined;
        this.#ownRecord = record;
        if (cleared) {
          this.#recordsCleared++;
          logger.info("The takeover record on this member's Lease was removed", fields);
          options.onRecordCleared?.();
        }
      },
      onAcquired: (leading) => {
        this.#tenures++;
        const tenure = new AbortController();
        this.#tenure = tenure;
        const end = (): void => tenure.abort(leading.reason);
        if (leading.aborted) end();
        else leading.addEventListener('abort', end, { once: true });
        logger.info('Joined the shard ring', fields);
        options.onAcquired?.(tenure.signal);
      },
      onLost: () => {
        this.#tenure = undefined;
        logger.info('Not a member of the shard ring until the Lease is held again', fields);
      },
    });
  }

  /**
   * True while this replica holds its Lease and renewed it within the renew deadline —
   * checked against the clock, so false at once after a frozen or starved event loop. A
   * check that finds the tenure lapsed also ends it (aborts its signal) there and then,
   * before the renew-deadline timer has had a chance to run.
   */
  isMember(): boolean {
    if (this.#holder.isHeld()) return true;
    const tenure = this.#tenure;
    if (tenure !== undefined && !tenure.signal.aborted) {
      tenure.abort(
        new DOMException(
          `shard ring ${this.#options.ring}: lease ${this.#options.namespace}/${this.leaseName} not renewed within the renew deadline`,
          'AbortError',
        ),
      );
    }
    return false;
  }

  /** The signal of the current tenure (aborted when it ends); undefined outside one. */
  tenure(): AbortSignal | undefined {
    return this.#tenure?.signal;
  }

  /** How many times the Lease was acquired so far: each tenure's number. */
  tenures(): number {
    return this.#tenures;
  }

  /** The id of the current tenure as the Lease names it on the server; undefined outside one. */
  tenureId(): string | undefined {
    return this.#tenure === undefined ? undefined : this.#holder.tenureId();
  }

  /**
   * Whether this member's own Lease carries a takeover record: the sharder took its objects
   * over from an earlier tenure and has not relabelled them all yet. Known from the answer to
   * the write that acquired the tenure on, so never missed at the start of one.
   */
  hasTakeoverRecord(): boolean {
    return this.#ownRecord !== undefined;
  }

  /**
   * Counts tenures and the takeover records seen removed from this member's Lease: what the
   * member confirmed from the server before a change of it may have been taken away since.
   */
  epoch(): string {
    return `${this.#tenures}.${this.#recordsCleared}`;
  }

  /** Holds the Lease until `signal` aborts, acquiring it again after every lapse. */
  async run(signal: AbortSignal): Promise<void> {
    // The election ends once the reconciles in flight have finished, so the Lease is given
    // up only when nothing of this member runs any more.
    const election = new AbortController();
    const end = (): void => {
      void (this.#options.beforeRelease?.() ?? Promise.resolve()).finally(() => election.abort());
    };
    if (signal.aborted) end();
    else signal.addEventListener('abort', end, { once: true });
    try {
      await this.#holder.run(election.signal);
    } finally {
      signal.removeEventListener('abort', end);
    }
  }
}
