import { describe, expect, it } from 'vitest';
import { HashRing, ringHash } from './ring.js';

const keys = Array.from({ length: 3000 }, (_, i) => `ns-${i % 7}/widget-${i}`);

function assign(ring: HashRing): Map<string, string | undefined> {
  return new Map(keys.map((k) => [k, ring.memberFor(k)]));
}

function shares(assignment: Map<string, string | undefined>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of assignment.values()) if (m) counts.set(m, (counts.get(m) ?? 0) + 1);
  return counts;
}

describe('ringHash', () => {
  // Pinned: replicas of different releases share one ring, so the hash must never change.
  it.each([
    ['', 2872998923],
    ['default/a', 2216773055],
    ['kube-system/coredns', 3521626734],
  ])('hashes %j to %d in every release', (text, expected) => {
    expect(ringHash(text)).toBe(expected);
  });

  it('tells apart keys that differ in one character', () => {
    expect(ringHash('default/a')).not.toBe(ringHash('default/b'));
  });
});

describe('HashRing', () => {
  it('has no owner for any key without members', () => {
    expect(new HashRing([]).memberFor('default/a')).toBeUndefined();
  });

  it('builds the same ring from the same members in any order, with duplicates dropped', () => {
    const a = new HashRing(['c', 'a', 'b']);
    const b = new HashRing(['b', 'c', 'a', 'a']);
    expect(a.members()).toEqual(['a', 'b', 'c']);
    expect(assign(a)).toEqual(assign(b));
  });

  it.each([
    { members: ['a'], tolerance: 0 },
    { members: ['a', 'b'], tolerance: 0.25 },
    { members: ['a', 'b', 'c'], tolerance: 0.25 },
    { members: ['shard-0', 'shard-1', 'shard-2', 'shard-3', 'shard-4'], tolerance: 0.25 },
  ])(
    'spreads 3,000 keys over $members within ±25 % of an equal share',
    ({ members, tolerance }) => {
      const counts = shares(assign(new HashRing(members)));
      const fair = keys.length / members.length;
      expect([...counts.keys()].sort()).toEqual(members);
      for (const [member, n] of counts) {
        expect(Math.abs(n - fair) / fair, `${member} holds ${n}`).toBeLessThanOrEqual(tolerance);
      }
    },
  );

  it.each([
    { name: 'a fourth member joins', before: ['a', 'b', 'c'], after: ['a', 'b', 'c', 'd'] },
    { name: 'a member leaves', before: ['a', 'b', 'c', 'd'], after: ['a', 'b', 'd'] },
    { name: 'one of two leaves', before: ['a', 'b'], after: ['b'] },
    { name: 'a second member joins', before: ['a'], after: ['a', 'b'] },
  ])('moves only the keys it must when $name', ({ before, after }) => {
    const old = assign(new HashRing(before));
    const now = assign(new HashRing(after));
    const joined = after.filter((m) => !before.includes(m));
    const left = before.filter((m) => !after.includes(m));
    let moved = 0;
    for (const [key, from] of old) {
      const to = now.get(key);
      if (from === to) continue;
      moved++;
      // A key moves only to a member that joined, or away from a member that left.
      expect(joined.includes(to as string) || left.includes(from as string), key).toBe(true);
    }
    // The fraction that moves is the share of the members that changed, within ±25 % of it.
    const changedShare =
      joined.length > 0 ? joined.length / after.length : left.length / before.length;
    const fraction = moved / keys.length;
    expect(fraction).toBeGreaterThan(changedShare * 0.75);
    expect(fraction).toBeLessThan(changedShare * 1.25);
  });

  it.each([
    [0, 'virtualNodes must be a positive integer, got 0'],
    [1.5, 'virtualNodes must be a positive integer, got 1.5'],
  ])('refuses virtualNodes %j', (virtualNodes, message) => {
    expect(() => new HashRing(['a'], { virtualNodes })).toThrow(message);
  });

  it('refuses an empty member name', () => {
    expect(() => new HashRing(['a', ''])).toThrow(
      'HashRing members must be non-empty strings, got ""',
    );
  });
});
