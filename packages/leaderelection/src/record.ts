import type { LeaseSpec } from 'kubernetes-types/coordination/v1.js';

/**
 * The state of an election as stored in the lock object — client-go's
 * `resourcelock.LeaderElectionRecord`. For a Lease it maps onto `spec`:
 * `holderIdentity`, `leaseDurationSeconds`, `acquireTime`, `renewTime`, `leaseTransitions`.
 *
 * The times are informational only: candidates never compare them with their own clock
 * (see {@link LeaderElector}); they are RFC 3339 strings with microseconds, as the API's
 * `MicroTime` (`2006-01-02T15:04:05.000000Z`).
 */
export interface LeaderElectionRecord {
  /** Who holds the lock; empty when nobody does (for example after a release). */
  holderIdentity: string;
  /** How long, in seconds, other candidates wait after the last observed change before taking over. */
  leaseDurationSeconds: number;
  /** When the current holder acquired the lock (`MicroTime`), if known. */
  acquireTime?: string | undefined;
  /** When the current holder last renewed the lock (`MicroTime`), if known. */
  renewTime?: string | undefined;
  /** How many times the lock changed hands. */
  leaderTransitions: number;
}

/**
 * Formats a time as the API's `MicroTime`: RFC 3339 in UTC with six fractional digits,
 * e.g. `2024-05-01T12:00:00.123000Z`. JavaScript dates carry milliseconds, so the last three
 * digits are always zero.
 */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/Z$/, '000Z');
}

/** A Lease's spec as a {@link LeaderElectionRecord} (client-go's `LeaseSpecToLeaderElectionRecord`). */
export function leaseSpecToRecord(spec: LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: spec?.acquireTime,
    renewTime: spec?.renewTime,
    leaderTransitions: spec?.leaseTransitions ?? 0,
  };
}

/** A {@link LeaderElectionRecord} as a Lease spec (client-go's `LeaderElectionRecordToLeaseSpec`). */
export function recordToLeaseSpec(record: LeaderElectionRecord): LeaseSpec {
  const spec: LeaseSpec = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaderTransitions,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = record.acquireTime;
  if (record.renewTime !== undefined) spec.renewTime = record.renewTime;
  return spec;
}

/**
 * A canonical serialization of a record (fixed key order), used to tell whether the record
 * changed between two reads — the counterpart of the raw bytes client-go compares.
 */
export function serializeRecord(record: LeaderElectionRecord): string {
  return JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    record.acquireTime ?? null,
    record.renewTime ?? null,
    record.leaderTransitions,
  ]);
}
