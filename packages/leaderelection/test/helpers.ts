import type { Clock } from '@kubets/apimachinery';
import type { FakeClock } from '@kubets/apimachinery/testing';
import { flush, statusError } from '@kubets/test-utils';
import type { LockCallOptions, LockRecord, ResourceLock } from '../src/lock.js';
import { type LeaderElectionRecord, serializeRecord } from '../src/record.js';

/** One successful write to the fake store. */
export interface StoreWrite {
  op: 'create' | 'update';
  by: string;
  at: number;
  record: LeaderElectionRecord;
  resourceVersion: number;
}

/** What a fault hook decides for one call: proceed, fail with an error, or never answer. */
export type FakeFault = undefined | Error | 'hang';

/**
 * The server side of {@link FakeLock}: one record with a resourceVersion, conditional updates
 * (409 Conflict on a stale version), a log of writes stamped with the clock's time, and a
 * fault hook per call.
 */
export class FakeLockStore {
  record: LeaderElectionRecord | undefined;
  resourceVersion = 0;
  readonly writes: StoreWrite[] = [];
  conflicts = 0;
  fault: (op: 'get' | 'create' | 'update', identity: string) => FakeFault = () => undefined;

  constructor(readonly clock: Clock) {}

  /** Writes the record as some other party would (e.g. a candidate in another process). */
  put(record: LeaderElectionRecord, by = 'external'): void {
    this.record = { ...record };
    this.resourceVersion++;
    this.writes.push({
      op: 'update',
      by,
      at: this.clock.now(),
      record: { ...record },
      resourceVersion: this.resourceVersion,
    });
  }

  /** Holders over time, collapsed: each entry is a holder that differed from the previous one. */
  holders(): string[] {
    const out: string[] = [];
    for (const w of this.writes)
      if (out.at(-1) !== w.record.holderIdentity) out.push(w.record.holderIdentity);
    return out;
  }
}

function hang(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** A {@link ResourceLock} over a {@link FakeLockStore}, with LeaseLock's optimistic concurrency. */
export class FakeLock implements ResourceLock {
  #version: number | undefined;
  readonly events: string[] = [];

  constructor(
    readonly store: FakeLockStore,
    readonly id: string,
  ) {}

  async #check(op: 'get' | 'create' | 'update', options: LockCallOptions): Promise<void> {
    await Promise.resolve();
    const fault = this.store.fault(op, this.id);
    if (fault === 'hang') await hang(options.signal);
    if (fault instanceof Error) throw fault;
    if (options.signal?.aborted) throw options.signal.reason;
  }

  async get(options: LockCallOptions = {}): Promise<LockRecord> {
    await this.#check('get', options);
    const record = this.store.record;
    if (!record) throw statusError(404, 'NotFound', 'leases "lock" not found');
    this.#version = this.store.resourceVersion;
    return { record: { ...record }, raw: serializeRecord(record) };
  }

  async create(record: LeaderElectionRecord, options: LockCallOptions = {}): Promise<void> {
    await this.#check('create', options);
    if (this.store.record) throw statusError(409, 'AlreadyExists', 'leases "lock" already exists');
    this.store.put(record, this.id);
    this.store.writes.at(-1)!.op = 'create';
    this.#version = this.store.resourceVersion;
  }

  async update(record: LeaderElectionRecord, options: LockCallOptions = {}): Promise<void> {
    if (this.#version === undefined)
      throw new Error('lock not initialized, call get or create first');
    await this.#check('update', options);
    if (this.#version !== this.store.resourceVersion) {
      this.store.conflicts++;
      throw statusError(
        409,
        'Conflict',
        'Operation cannot be fulfilled on leases.coordination.k8s.io "lock": the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    this.store.put(record, this.id);
    this.#version = this.store.resourceVersion;
  }

  recordEvent(message: string): void {
    this.events.push(`${this.id} ${message}`);
  }

  identity(): string {
    return this.id;
  }

  describe(): string {
    return 'default/lock';
  }
}

/** Moves a fake clock forward in small steps, letting the code under test react in between. */
export async function advance(clock: FakeClock, ms: number, stepMs = 50): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    clock.step(Math.min(stepMs, ms - done));
    await flush(5);
  }
}

/** Advances until `predicate` holds, failing after `limitMs` of fake time. Returns the time it took. */
export async function advanceUntil(
  clock: FakeClock,
  predicate: () => boolean,
  limitMs: number,
  stepMs = 50,
): Promise<number> {
  const start = clock.now();
  await flush(5);
  while (!predicate()) {
    if (clock.now() - start > limitMs) {
      throw new Error(`condition not met within ${limitMs} ms of fake time`);
    }
    clock.step(stepMs);
    await flush(5);
  }
  return clock.now() - start;
}
