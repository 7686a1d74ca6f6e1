import type { HasObjectMeta } from '@kubets/apimachinery';

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
