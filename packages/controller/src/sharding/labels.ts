import type { HasObjectMeta } from '@kubets/apimachinery';
import { HashRing } from './ring.js';

/** The label on every shard Lease naming the ring it belongs to. */
export const RING_LABEL = 'sharding.kubets.io/ring';

/** The label on a sharded object naming the member it is assigned to (one key per ring). */
export function shardLabel(ring: string): string {
  return `shard.sharding.kubets.io/${ring}`;
}

/**
 * The label on a sharded object that is moving away from its member: `true` while the
 * member is asked to let go, `acked` once it has.
 */
export function drainLabel(ring: string): string {
  return `drain.sharding.kubets.io/${ring}`;
}

/** The value of the drain label asking the member to let go. */
export const DRAIN_REQUESTED = 'true';
/** The value of the drain label once the member has let go. */
export const DRAIN_ACKNOWLEDGED = 'acked';

/** What places an object on the ring: its own key, or its controller owner's. */
export type ShardKey = 'object' | 'owner' | ((obj: HasObjectMeta) => string);

/**
 * The ring key of `obj`: `namespace/name`, or for `'owner'` the `namespace/name` of its
 * controller owner (so an object lands with the object that owns it; without an owner, its
 * own key).
 */
export function ringKeyOf(obj: HasObjectMeta, key: ShardKey): string {
  const md = obj.metadata ?? {};
  const ns = md.namespace ?? '';
  if (typeof key === 'function') return key(obj);
  if (key === 'owner') {
    const owner = md.ownerReferences?.find((ref) => ref.controller === true);
    if (owner) return `${ns}/${owner.name}`;
  }
  return `${ns}/${md.name ?? ''}`;
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks that `value` can be a ring or member name: it becomes part of label keys, label
 * values and Lease names, so a DNS label (lowercase letters, digits, '-', at most 63).
 *
 * @throws {TypeError} naming `what` and the value.
 */
export function checkShardName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length > 63 || !dnsLabel.test(value)) {
    throw new TypeError(
      `${what} must be a DNS label (lowercase letters, digits and '-', at most 63 characters), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * The annotation on a member's shard Lease naming its current tenure: a fresh id written
 * with the write that acquires the Lease, so every tenure is told apart on the server (the
 * Lease's own fields do not change when a holder takes its own Lease again after a lapse).
 */
export function tenureAnnotation(ring: string): string {
  return `tenure.sharding.kubets.io/${ring}`;
}

/**
 * The annotation on a dead member's shard Lease holding the sharder's takeover record (JSON
 * of a {@link ShardTakeoverRecord}) until every object it took over was relabelled.
 */
export function takeoverAnnotation(ring: string): string {
  return `takeover.sharding.kubets.io/${ring}`;
}

/**
 * The sharder's decision about the objects of a member whose Lease expired: the tenure that
 * ended and the view of the ring taken over with — each live member and its tenure then. The
 * objects still labelled with the dead member belong, until relabelled, to their owner on
 * the ring of `view`, and only while that owner's tenure is still the one `view` names.
 */
export interface ShardTakeoverRecord {
  /** The tenure of the dead member that ended. */
  readonly tenure: string;
  /** The live members when the record was written, each with its tenure then. */
  readonly view: Readonly<Record<string, string>>;
  /**
   * Points per member of the ring the sharder placed the objects on: every survivor builds
   * the record's ring with it, so replicas configured differently (or running versions with
   * different defaults) still agree on each object's one owner.
   */
  readonly virtualNodes: number;
}

/**
 * Parses a takeover annotation; `undefined` for one that is not a record (a member then acts
 * on nothing of it, and the sharder replaces it by the usual moves).
 */
export function parseTakeoverRecord(raw: string | undefined): ShardTakeoverRecord | undefined {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const { tenure, view, virtualNodes } = (parsed ?? {}) as {
    tenure?: unknown;
    view?: unknown;
    virtualNodes?: unknown;
  };
  if (typeof tenure !== 'string' || tenure === '') return undefined;
  if (!Number.isInteger(virtualNodes) || (virtualNodes as number) < 1) return undefined;
  if (typeof view !== 'object' || view === null || Array.isArray(view)) return undefined;
  const members = Object.entries(view);
  if (!members.every(([m, t]) => m !== '' && typeof t === 'string' && t !== '')) return undefined;
  // Every survivor builds this ring: a record asking for a huge one would exhaust them all.
  if ((virtualNodes as number) * members.length > MAX_TAKEOVER_RING_POINTS) return undefined;
  return {
    tenure,
    view: Object.fromEntries(members) as Record<string, string>,
    virtualNodes: virtualNodes as number,
  };
}

/**
 * The most points a takeover record's ring may have (members times `virtualNodes`); a record
 * asking for more is no record. Far above any real ring: 1,000 members at 500 points each.
 */
export const MAX_TAKEOVER_RING_POINTS = 1_000_000;

/** The ring of a takeover record: its view's members, at the record's ring size. */
export function takeoverRing(record: ShardTakeoverRecord): HashRing {
  return new HashRing(Object.keys(record.view), { virtualNodes: record.virtualNodes });
}

/**
 * The annotation a survivor writes on its own shard Lease, with its renewals, once it has
 * reconciled its share of a takeover: the dead members' tenures (comma-separated) whose
 * records it is done with. The sharder relabels the objects of a record only when every
 * survivor is done (or a lease duration has passed), so the relabels do not take the API
 * server from the reconciles the record is there for.
 */
export function takeoverDoneAnnotation(ring: string): string {
  return `takeover-done.sharding.kubets.io/${ring}`;
}

/** The tenures a {@link takeoverDoneAnnotation} names. */
export function parseTakeoversDone(raw: string | undefined): ReadonlySet<string> {
  return new Set(raw ? raw.split(',').filter((tenure) => tenure !== '') : []);
}
