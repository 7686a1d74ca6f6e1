import type { Clientset, CreateOptions, GetOptions, UpdateOptions } from '@kubets/clientset';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import {
  type LeaderElectionRecord,
  leaseSpecToRecord,
  recordToLeaseSpec,
  serializeRecord,
} from './record.js';

/** Options of every lock call: an abort signal and a per-request timeout. */
export interface LockCallOptions {
  /** Aborts the request. */
  signal?: AbortSignal | undefined;
  /** Gives up on the request after this many milliseconds. */
  timeoutMs?: number | undefined;
}

/** What {@link ResourceLock.get} returns: the record and its canonical serialization. */
export interface LockRecord {
  /** The leader election record as stored on the lock object. */
  record: LeaderElectionRecord;
  /**
   * The record serialized in a canonical form. Two reads with equal `raw` saw the same record;
   * the elector uses it to notice change (client-go compares the raw bytes the same way).
   */
  raw: string;
}

/**
 * A lock over some object of the API server, as client-go's `resourcelock.Interface`.
 * {@link LeaseLock} is the implementation for `coordination.k8s.io/v1` Leases; tests and
 * other stores can provide their own.
 *
 * Implementations must make `update` conditional on the object being unchanged since the
 * last `get`/`create`/`update` (optimistic concurrency), so that two candidates racing for an
 * expired lock cannot both succeed.
 */
export interface ResourceLock {
  /**
   * Reads the record. Rejects with the server's NotFound error (`isNotFound` from
   * `@kubets/apimachinery` is true) when the lock object does not exist.
   */
  get(options?: LockCallOptions): Promise<LockRecord>;
  /** Creates the lock object holding `record`; rejects (AlreadyExists) if it exists. */
  create(record: LeaderElectionRecord, options?: LockCallOptions): Promise<void>;
  /**
   * Replaces the record, conditional on the object not having changed since this lock last
   * read or wrote it; rejects with a Conflict error otherwise.
   */
  update(record: LeaderElectionRecord, options?: LockCallOptions): Promise<void>;
  /** Records an Event about the lock object (`"<identity> <message>"`); never throws. */
  recordEvent(message: string): void;
  /** This candidate's identity, the `holderIdentity` it writes. */
  identity(): string;
  /** A human-readable description of the lock, e.g. `kube-system/my-controller`. */
  describe(): string;
}

/** The object an Event about the lock is recorded on. */
export interface LockEventSubject {
  /** `apiVersion` of the lock object, e.g. `coordination.k8s.io/v1`. */
  apiVersion: string;
  /** Kind of the lock object, e.g. `Lease`. */
  kind: string;
  /** Metadata of the lock object; the Event is attached to it by name, namespace and UID. */
  metadata: ObjectMeta;
}

/**
 * Where {@link LeaseLock} records `became leader` / `stopped leading` Events. An
 * `EventRecorder` from `@kubets/record` fits.
 */
export interface LeaderElectionEventRecorder {
  /**
   * Records an Event of `type` with a CamelCase `reason` and a human-readable `message` about
   * `obj`.
   */
  event(obj: LockEventSubject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** The Lease operations {@link LeaseLock} needs; `clientset.coordinationV1().leases(ns)` has them. */
export interface LeaseClient {
  /** Reads the Lease; rejects with a NotFound `StatusError` when it does not exist yet. */
  get(name: string, options?: GetOptions): Promise<Lease>;
  /** Creates the Lease; rejects with AlreadyExists when another candidate was faster. */
  create(lease: Lease, options?: CreateOptions): Promise<Lease>;
  /** Replaces the Lease; rejects with Conflict when its resourceVersion is stale. */
  update(lease: Lease, options?: UpdateOptions): Promise<Lease>;
}

/** Options of {@link LeaseLock}. */
export interface LeaseLockOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** A clientset, or a Lease client for `namespace` (e.g. `clientset.coordinationV1().leases(ns)`). */
  client: Clientset | LeaseClient;
  /** This candidate's identity, unique among the candidates (typically the hostname plus a UUID). */
  identity: string;
  /** Records an Event on the Lease when this candidate becomes or stops being leader. */
  eventRecorder?: LeaderElectionEventRecorder | undefined;
  /** Labels set on the Lease when this candidate creates or updates it. */
  labels?: Readonly<Record<string, string>> | undefined;
}

function isClientset(client: Clientset | LeaseClient): client is Clientset {
  return typeof (client as Partial<Clientset>).coordinationV1 === 'function';
}

/**
 * A {@link ResourceLock} over a `coordination.k8s.io/v1` Lease — client-go's
 * `resourcelock.LeaseLock`. It remembers the Lease it last read or wrote; `update` sends that
 * object's `resourceVersion`, so the server refuses (409 Conflict) an update based on a stale
 * read and at most one of two racing candidates wins.
 */
export class LeaseLock implements ResourceLock {
  /** Namespace of the Lease. */
  readonly namespace: string;
  /** Name of the Lease. */
  readonly name: string;
  readonly #client: LeaseClient;
  readonly #identity: string;
  readonly #recorder: LeaderElectionEventRecorder | undefined;
  readonly #labels: Readonly<Record<string, string>> | undefined;
  #lease: Lease | undefined;

  constructor(options: LeaseLockOptions) {
    this.namespace = options.namespace;
    this.name = options.name;
    this.#client = isClientset(options.client)
      ? options.client.coordinationV1().leases(options.namespace)
      : options.client;
    this.#identity = options.identity;
    this.#recorder = options.eventRecorder;
    this.#labels = options.labels;
  }

  async get(options: LockCallOptions = {}): Promise<LockRecord> {
    const lease = await this.#client.get(this.name, callOptions(options));
    this.#lease = lease;
    const record = leaseSpecToRecord(lease.spec);
    return { record, raw: serializeRecord(record) };
  }

  async create(record: LeaderElectionRecord, options: LockCallOptions = {}): Promise<void> {
    const metadata: ObjectMeta = { name: this.name, namespace: this.namespace };
    if (this.#labels) metadata.labels = { ...this.#labels };
    this.#lease = await this.#client.create(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata,
        spec: recordToLeaseSpec(record),
      },
      callOptions(options),
    );
  }

  async update(record: LeaderElectionRecord, options: LockCallOptions = {}): Promise<void> {
    const current = this.#lease;
    if (!current) {
      throw new Error(
        `leaderelection: lease ${this.describe()} not initialized, call get or create first`,
      );
    }
    const metadata: ObjectMeta = { ...current.metadata };
    if (this.#labels) metadata.labels = { ...metadata.labels, ...this.#labels };
    this.#lease = await this.#client.update(
      {
        ...current,
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata,
        spec: { ...current.spec, ...recordToLeaseSpec(record) },
      },
      callOptions(options),
    );
  }

  recordEvent(message: string): void {
    if (!this.#recorder) return;
    const metadata: ObjectMeta = this.#lease?.metadata ?? {
      name: this.name,
      namespace: this.namespace,
    };
    try {
      this.#recorder.event(
        { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata },
        'Normal',
        'LeaderElection',
        `${this.#identity} ${message}`,
      );
    } catch {
      // Events are best effort; a failing recorder must not disturb the election.
    }
  }

  identity(): string {
    return this.#identity;
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }
}

function callOptions(options: LockCallOptions): GetOptions {
  const out: GetOptions = {};
  if (options.signal) out.signal = options.signal;
  if (options.timeoutMs !== undefined) out.timeoutMs = options.timeoutMs;
  return out;
}
