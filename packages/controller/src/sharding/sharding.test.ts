import { FakeClock } from '@kubets/apimachinery/testing';
import { coreV1Resources } from '@kubets/clientset';
import { ChaosProxy, eventually } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../../test/server.js';
import { shardedManager } from '../../test/sharded-manager.js';
import {
  controller,
  HashRing,
  type Manager,
  type ShardRing,
  type ShardRingOptions,
  type ShardTakeover,
  takeoverAnnotation,
  takeoverDoneAnnotation,
  takeoverRing,
} from '../index.js';

const shared = useSharedApiServer();
const configMaps = coreV1Resources.configMaps;

// Generous Leases against the fake clock, which the tests move 200 ms per event-loop turn:
// a renewal in flight over loopback never sees its deadline pass unless a test means it to.
const leases = { leaseDurationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 1_000 };

/** Who reconciles what: every start and end, and any start while another member is inside. */
class Audit {
  readonly inside = new Map<string, string>();
  readonly reconciled = new Map<string, string[]>();
  readonly overlaps: string[] = [];
  /**
   * Reconciles of an object the server did not assign to the reconciling member, but for
   * one under a takeover record of the object's member that names the reconciling member's
   * tenure and places the object on it.
   */
  readonly misplaced: string[] = [];
  /** Reconciles under a takeover record: `key: member under the record of <dead member>`. */
  readonly takenOver: string[] = [];

  /** Checks what the server assigned at a reconcile's start against who reconciles. */
  assigned(
    key: string,
    member: string,
    assigned: string | undefined,
    t: ShardTakeover | undefined,
  ): void {
    if (assigned === member) return;
    const owner = t && takeoverRing(t.record).memberFor(key);
    if (
      t !== undefined &&
      t.member === assigned &&
      owner === member &&
      t.record.view[member] === t.tenure
    ) {
      this.takenOver.push(`${key}: ${member} under the record of ${assigned}`);
      return;
    }
    this.misplaced.push(
      `${key}: ${member}, assigned ${assigned}${t ? ` (takeover ${JSON.stringify(t)})` : ''}`,
    );
  }

  start(key: string, member: string): void {
    const other = this.inside.get(key);
    if (other !== undefined)
      this.overlaps.push(`${key}: ${member} started while ${other} was inside`);
    this.inside.set(key, member);
    this.reconciled.set(key, [...(this.reconciled.get(key) ?? []), member]);
  }

  end(key: string): void {
    this.inside.delete(key);
  }

  lastReconciler(key: string): string | undefined {
    return this.reconciled.get(key)?.at(-1);
  }
}

interface Member {
  identity: string;
  ring: ShardRing;
  mgr: Manager;
  stop(): Promise<void>;
}

const running = new Set<Member>();
afterEach(async () => {
  await Promise.all([...running].map((m) => m.stop()));
  running.clear();
});

/**
 * A fake clock whose `now()` can jump ahead without firing any timer: how time looks to an
 * event loop that was frozen (SIGSTOP, a long pause) in the moment it runs again.
 */
class FrozenLoopClock extends FakeClock {
  frozenMs = 0;
  override now(): number {
    return super.now() + this.frozenMs;
  }
}

/** `workers`: each member's reconciles at once. */
function world(namespace: string, clock: FakeClock = new FakeClock(), workers = 1) {
  const audit = new Audit();
  /** The `ctx.signal` of each object's last reconcile. */
  const signals = new Map<string, AbortSignal>();
  /** Reconciles in flight of the slow keys, held until released. */
  const held = new Map<string, () => void>();
  const slow = new Set<string>();

  function member(
    identity: string,
    host = shared.server.host,
    ringOptions: Omit<Partial<ShardRingOptions>, 'clock'> = {},
  ): Member {
    const { ring, mgr } = shardedManager(
      host,
      namespace,
      { ...leases, ...ringOptions, identity, clock },
      {},
    );
    controller(mgr)
      .for(configMaps)
      .withOptions({ maxConcurrentReconciles: workers })
      .complete(
        ring.reconciler(configMaps, async (req, ctx) => {
          const key = `${req.namespace}/${req.name}`;
          audit.start(key, identity);
          signals.set(key, ctx.signal);
          const takeover = ring.takeoverOf(configMaps, req);
          const live = await shared.clientset.coreV1().configMaps(namespace).get(req.name);
          const assigned = live.metadata?.labels?.['shard.sharding.kubets.io/cms'];
          audit.assigned(key, identity, assigned, takeover);
          if (slow.has(key)) {
            // Releasing the key releases every reconcile of it still held.
            const earlier = held.get(key);
            await new Promise<void>((resolve) =>
              held.set(key, () => {
                earlier?.();
                resolve();
              }),
            );
          }
          audit.end(key);
        }),
      );
    const abort = new AbortController();
    const done = mgr.start(abort.signal);
    const m: Member = {
      identity,
      ring,
      mgr,
      stop: async () => {
        running.delete(m);
        abort.abort();
        await done.catch(() => {});
      },
    };
    running.add(m);
    return m;
  }

  /** Moves the fake clock on until `condition` holds, one step per event-loop turn. */
  async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
    await eventually(
      async () => {
        if (await condition()) return true;
        await clock.advance(200);
        return false;
      },
      { what, timeoutMs: 50_000, intervalMs: 2 },
    );
  }

  const client = () => shared.clientset.coreV1().configMaps(namespace);
  async function labels(): Promise<Map<string, Record<string, string>>> {
    const list = await client().list();
    return new Map(
      (list.items ?? []).map((cm) => [
        `${namespace}/${cm.metadata?.name}`,
        cm.metadata?.labels ?? {},
      ]),
    );
  }
  async function create(n: number): Promise<string[]> {
    const names = Array.from({ length: n }, (_, i) => `cm-${i}`);
    await Promise.all(names.map((name) => client().create({ metadata: { name } })));
    return names.map((name) => `${namespace}/${name}`);
  }
  /** Every object labelled as the ring of `members` places it, and not draining. */
  async function settledOn(members: string[]): Promise<boolean> {
    const ring = new HashRing(members);
    for (const [key, l] of await labels()) {
      if (l['shard.sharding.kubets.io/cms'] !== ring.memberFor(key)) return false;
      if (l['drain.sharding.kubets.io/cms'] !== undefined) return false;
    }
    return true;
  }
  /** Each of `keys` was last reconciled by the member it is labelled with. */
  async function reconciledByOwners(keys: string[]): Promise<boolean> {
    const l = await labels();
    return keys.every(
      (k) => audit.lastReconciler(k) === l.get(k)?.['shard.sharding.kubets.io/cms'],
    );
  }
  /**
   * Members a (leading the sharder), b through `bHost` and c; resolves once every one of
   * `keys` is assigned and reconciled by its member, with b and the keys that are b's.
   */
  async function abcWithB(
    bHost: string,
    keys: string[],
    cOptions: Omit<Partial<ShardRingOptions>, 'clock'> = {},
  ): Promise<{ b: Member; lost: string[] }> {
    const a = member('a');
    await until(() => a.ring.isSharder(), 'a to lead the sharder');
    const b = member('b', bHost);
    member('c', shared.server.host, cOptions);
    await until(() => settledOn(['a', 'b', 'c']), 'every object assigned');
    // By its owner: an object reconciled by a before it moved to b is reconciled by b later.
    await until(() => reconciledByOwners(keys), 'every object reconciled by its member');
    return { b, lost: keys.filter((k) => new HashRing(['a', 'b', 'c']).memberFor(k) === 'b') };
  }
  return {
    namespace,
    clock,
    audit,
    member,
    abcWithB,
    until,
    labels,
    create,
    settledOn,
    reconciledByOwners,
    client,
    held,
    slow,
    signals,
  };
}

/**
 * After a test with faults and proxies: the faults reset, the held reconciles released (a
 * member stops once its reconciles have ended), every member stopped, the proxies closed.
 */
async function cleanUp(
  w: ReturnType<typeof world>,
  ...proxies: { close(): Promise<void> }[]
): Promise<void> {
  shared.server.faults.reset();
  w.slow.clear();
  for (const release of w.held.values()) release();
  await Promise.all([...running].map((m) => m.stop()));
  running.clear();
  for (const proxy of proxies) await proxy.close();
}

describe('ShardRing', () => {
  it('assigns every object to one member, which alone caches and reconciles it', async () => {
    const ns = await shared.createNamespace('shard-assign');
    const w = world(ns);
    const keys = await w.create(90);
    const members = ['a', 'b', 'c'].map((id) => w.member(id));
    await w.until(() => members.every((m) => m.ring.isMember()), 'members to join');
    await w.until(() => w.settledOn(['a', 'b', 'c']), 'every object assigned');
    await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
    expect(w.audit.overlaps).toEqual([]);
    expect(w.audit.misplaced).toEqual([]);
    const l = await w.labels();
    for (const m of members) {
      const cached = m.mgr.informers.forResource(configMaps).informer().getStore().list();
      const own = keys.filter((k) => l.get(k)?.['shard.sharding.kubets.io/cms'] === m.identity);
      expect(cached.map((cm) => `${ns}/${cm.metadata?.name}`).sort()).toEqual(own.sort());
      expect(m.ring.stats().assigned).toBe(own.length);
      // Each member reconciled only its own.
      for (const [key, who] of w.audit.reconciled) {
        if (who.includes(m.identity)) expect(own).toContain(key);
      }
    }
    expect(members.filter((m) => m.ring.isSharder())).toHaveLength(1);
    const sharder = members.find((m) => m.ring.isSharder()) as Member;
    expect(sharder.ring.stats().ringMembers).toBe(3);
    expect(Object.values(sharder.ring.stats().moves).reduce((a, b) => a + b, 0)).toBe(90);
  });

  it('moves to a joining member only the objects the ring gives it, each through a drain', async () => {
    const ns = await shared.createNamespace('shard-join');
    const w = world(ns);
    const keys = await w.create(60);
    const members = ['a', 'b', 'c'].map((id) => w.member(id));
    await w.until(() => w.settledOn(['a', 'b', 'c']), 'every object assigned');
    await w.until(
      () => keys.every((k) => w.audit.lastReconciler(k) !== undefined),
      'all reconciled',
    );
    const before = await w.labels();
    // One object of a member that must move keeps its reconcile in flight across the join.
    const four = new HashRing(['a', 'b', 'c', 'd']);
    const moving = keys.filter((k) => four.memberFor(k) === 'd');
    const busy = moving[0] as string;
    w.slow.add(busy);
    await w.client().patch(busy.split('/')[1] as string, 'application/merge-patch+json', {
      metadata: { annotations: { touched: 'yes' } },
    });
    await w.until(() => w.held.has(busy), 'the slow reconcile to start');

    const d = w.member('d');
    await w.until(() => d.ring.isMember(), 'd to join');
    // The busy object is asked to drain, and stays with its member while its reconcile runs.
    await w.until(
      async () => (await w.labels()).get(busy)?.['drain.sharding.kubets.io/cms'] === 'true',
      'the busy object to be asked to drain',
    );
    await w.clock.advance(5_000);
    expect((await w.labels()).get(busy)?.['shard.sharding.kubets.io/cms']).toBe(
      before.get(busy)?.['shard.sharding.kubets.io/cms'],
    );
    w.slow.delete(busy);
    w.held.get(busy)?.();
    await w.until(() => w.settledOn(['a', 'b', 'c', 'd']), 'the ring of four');
    await w.until(
      () => moving.every((k) => w.audit.lastReconciler(k) === 'd'),
      'd reconciles its share',
    );

    const after = await w.labels();
    const moved = keys.filter(
      (k) =>
        before.get(k)?.['shard.sharding.kubets.io/cms'] !==
        after.get(k)?.['shard.sharding.kubets.io/cms'],
    );
    expect(moved.sort()).toEqual(moving.sort());
    expect(moved.length).toBeGreaterThan(0);
    expect(w.audit.overlaps).toEqual([]);
    expect(w.audit.misplaced).toEqual([]);
    const drains = members.reduce((n, m) => n + m.ring.stats().drains, 0);
    expect(drains).toBe(moving.length);
  });

  it('reassigns the objects of a member that left, once it released its Lease', async () => {
    const ns = await shared.createNamespace('shard-leave');
    const w = world(ns);
    const keys = await w.create(40);
    const members = ['a', 'b', 'c'].map((id) => w.member(id));
    await w.until(() => w.settledOn(['a', 'b', 'c']), 'every object assigned');
    const leaving = members.find((m) => !m.ring.isSharder()) as Member;
    await leaving.stop();
    const rest = ['a', 'b', 'c'].filter((id) => id !== leaving.identity);
    await w.until(() => w.settledOn(rest), 'the ring without the member that left');
    await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
    expect(w.audit.overlaps).toEqual([]);
    expect(w.audit.misplaced).toEqual([]);
  });

  it('gives an object whose label someone removed or garbled back to its member', async () => {
    const ns = await shared.createNamespace('shard-tamper');
    const w = world(ns);
    const [first, second] = await w.create(2);
    ['a', 'b'].map((id) => w.member(id));
    await w.until(() => w.settledOn(['a', 'b']), 'both objects assigned');
    // The edits come after the members' first reconciles: one that starts before its
    // member's cache shows an edit still runs, and the audit would read the edited label.
    await w.until(() => w.reconciledByOwners([first, second] as string[]), 'both reconciled');
    const owner = (await w.labels()).get(first as string)?.['shard.sharding.kubets.io/cms'];
    const name = (key: string) => key.split('/')[1] as string;
    await w.client().patch(name(first as string), 'application/merge-patch+json', {
      metadata: { labels: { 'shard.sharding.kubets.io/cms': null } },
    });
    await w.client().patch(name(second as string), 'application/merge-patch+json', {
      metadata: { labels: { 'shard.sharding.kubets.io/cms': 'nobody' } },
    });
    await w.until(() => w.settledOn(['a', 'b']), 'both objects back with their members');
    expect((await w.labels()).get(first as string)?.['shard.sharding.kubets.io/cms']).toBe(owner);
    expect(w.audit.overlaps).toEqual([]);
    expect(w.audit.misplaced).toEqual([]);
  });

  it('a label someone edited to another live member starts no reconcile there; the object goes back, then moves only through a drain', async () => {
    const ns = await shared.createNamespace('shard-relabel');
    const w = world(ns);
    const keys = await w.create(30);
    const proxy = await ChaosProxy.start(shared.server.host);
    try {
      // The sharder's replica talks through a proxy, so it can be kept from seeing the edit
      // while the member named by the edited label sees it.
      const s = w.member('s', proxy.url('http:'));
      await w.until(() => s.ring.isSharder(), 's to lead the sharder');
      const members = ['a', 'b'].map((id) => w.member(id, undefined, { runSharder: false }));
      await w.until(() => w.settledOn(['a', 'b', 's']), 'every object assigned');
      await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
      const three = new HashRing(['a', 'b', 's']);
      const [busy, idle] = keys.filter((k) => three.memberFor(k) === 'a') as [string, string];
      const ofB = keys.find((k) => three.memberFor(k) === 'b') as string;
      const name = (key: string) => key.split('/')[1] as string;
      const touch = (key: string, value: string) =>
        w.client().patch(name(key), 'application/merge-patch+json', {
          metadata: { annotations: { touched: value } },
        });
      // a is inside busy when its label is changed to b's name.
      w.slow.add(busy);
      await touch(busy, 'yes');
      await w.until(() => w.held.has(busy), 'the slow reconcile to start');

      proxy.hold(true);
      proxy.blackhole();
      for (const key of [busy, idle]) {
        await w.client().patch(name(key), 'application/merge-patch+json', {
          metadata: { labels: { 'shard.sharding.kubets.io/cms': 'b' } },
        });
      }
      // b handles its requests one at a time, in the order its watch showed them: once it
      // reconciled ofB, touched after the edits, it has dealt with busy and idle too.
      const ofBBefore = w.audit.reconciled.get(ofB)?.length ?? 0;
      await touch(ofB, 'after the edits');
      await w.until(
        () => w.audit.overlaps.length > 0 || (w.audit.reconciled.get(ofB)?.length ?? 0) > ofBBefore,
        'b to deal with the edited objects',
      );
      expect(w.audit.overlaps).toEqual([]);
      for (const key of [busy, idle]) expect(w.audit.reconciled.get(key)).not.toContain('b');

      // The sharder sees the edits: both objects go back to a, as the ring places them.
      proxy.hold(false);
      proxy.reset();
      await w.until(() => w.settledOn(['a', 'b', 's']), 'both objects back with a');
      expect(w.audit.inside.get(busy)).toBe('a');
      w.slow.delete(busy);
      w.held.get(busy)?.();
      await w.until(() => !w.audit.inside.has(busy), 'the slow reconcile to end');
      const before = new Map([busy, idle].map((k) => [k, w.audit.reconciled.get(k)?.length ?? 0]));
      for (const key of [busy, idle]) await touch(key, 'again');
      await w.until(
        () =>
          [busy, idle].every(
            (k) => (w.audit.reconciled.get(k)?.length ?? 0) > (before.get(k) ?? 0),
          ),
        'a to reconcile both again',
      );
      for (const key of [busy, idle]) expect(w.audit.reconciled.get(key)).not.toContain('b');
      await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);
      expect(members.every((m) => m.ring.isMember())).toBe(true);
    } finally {
      await cleanUp(w, proxy);
    }
  }, 120_000);

  it("a reconcile in flight sees ctx.signal abort when its member's tenure lapses, at the first check after a frozen event loop", async () => {
    const ns = await shared.createNamespace('shard-fence');
    const clock = new FrozenLoopClock();
    const w = world(ns, clock);
    const [key] = await w.create(1);
    const name = (key as string).split('/')[1] as string;
    const a = w.member('a');
    await w.until(() => w.reconciledByOwners([key as string]), 'the object reconciled');

    // Frozen mid-reconcile: time passed the renew deadline, and no timer has run yet.
    w.slow.add(key as string);
    await w.client().patch(name, 'application/merge-patch+json', {
      metadata: { annotations: { touched: 'yes' } },
    });
    await w.until(() => w.held.has(key as string), 'the slow reconcile to start');
    const inFlight = w.signals.get(key as string) as AbortSignal;
    expect(inFlight.aborted).toBe(false);
    clock.frozenMs += leases.renewDeadlineMs + 1;
    expect(inFlight.aborted).toBe(false);
    // The first check of membership (here the ring's own; also each reconcile's start and
    // each event of the sharded informers) ends the tenure and aborts the signal.
    expect(a.ring.isMember()).toBe(false);
    expect(inFlight.aborted).toBe(true);
    expect(String(inFlight.reason)).toContain('not renewed within the renew deadline');
    w.slow.delete(key as string);
    w.held.get(key as string)?.();

    // A new tenure; a reconcile in flight when the renew deadline passes by the timer.
    await w.until(() => a.ring.isMember(), 'a member again');
    w.slow.add(key as string);
    await w.client().patch(name, 'application/merge-patch+json', {
      metadata: { annotations: { touched: 'again' } },
    });
    await w.until(
      () => w.held.has(key as string) && w.signals.get(key as string) !== inFlight,
      'the next slow reconcile to start',
    );
    const next = w.signals.get(key as string) as AbortSignal;
    expect(next.aborted).toBe(false);
    clock.step(leases.renewDeadlineMs + 1);
    expect(next.aborted).toBe(true);
    w.slow.delete(key as string);
    w.held.get(key as string)?.();
    expect(w.audit.overlaps).toEqual([]);
  });

  it('takes the objects of a partitioned member once its Lease expired; thawed, it does not reconcile them', async () => {
    const ns = await shared.createNamespace('shard-partition');
    const w = world(ns);
    const keys = await w.create(40);
    const proxy = await ChaosProxy.start(shared.server.host);
    try {
      const { b: frozen, lost } = await w.abcWithB(proxy.url('http:'), keys);
      const reconciledBefore = w.audit.reconciled.get(lost[0] as string)?.length ?? 0;

      proxy.hold(true);
      proxy.blackhole();
      await w.until(() => !frozen.ring.isMember(), 'b to stop counting itself a member');
      await w.until(() => w.settledOn(['a', 'c']), "b's objects to move to a and c");
      await w.until(
        () => lost.every((k) => w.audit.lastReconciler(k) !== 'b'),
        "b's objects reconciled by a and c",
      );
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);

      // Thawed: b's cache still says the objects are its own until its watch catches up, but
      // it reconciles none of them (a new tenure confirms every assignment on the server).
      proxy.hold(false);
      proxy.reset();
      await w.until(() => frozen.ring.isMember(), 'b to hold its Lease again');
      await w.until(() => w.settledOn(['a', 'b', 'c']), 'b to get its share back');
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);
      expect(w.audit.reconciled.get(lost[0] as string)?.length).toBeGreaterThan(reconciledBefore);
    } finally {
      await cleanUp(w, proxy);
    }
  }, 120_000);

  /** The takeover annotation on member `id`'s Lease, if any. */
  async function takeoverRecordOn(ns: string, id: string): Promise<string | undefined> {
    const lease = await shared.clientset.coordinationV1().leases(ns).get(`cms-${id}`);
    return lease.metadata?.annotations?.[takeoverAnnotation('cms')];
  }

  /** The sharder's relabels of `ns`'s ConfigMaps fail (and so do acks): PATCH answers 503. */
  function failConfigMapPatches(ns: string): void {
    shared.server.faults.respondWith(503, {
      times: Number.POSITIVE_INFINITY,
      match: (r) => r.method === 'PATCH' && r.path.includes(`/namespaces/${ns}/configmaps/`),
    });
  }

  /**
   * Members a (the sharder), b and c with two workers each and 30 objects, all reconciled by
   * their members; `cutOffB()` freezes b's connection to the server. Cleans up after `body`.
   */
  async function withThreeMembers(
    name: string,
    body: (w: ReturnType<typeof world>, lost: string[], cutOffB: () => void) => Promise<void>,
    cOptions: Omit<Partial<ShardRingOptions>, 'clock'> = {},
  ): Promise<void> {
    const ns = await shared.createNamespace(name);
    // A second worker on each member: a held reconcile must not keep the others waiting.
    const w = world(ns, new FakeClock(), 2);
    const keys = await w.create(30);
    const proxy = await ChaosProxy.start(shared.server.host);
    try {
      const { lost } = await w.abcWithB(proxy.url('http:'), keys, cOptions);
      await body(w, lost, () => {
        proxy.hold(true);
        proxy.blackhole();
      });
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);
    } finally {
      await cleanUp(w, proxy);
    }
  }

  it("survivors reconcile a dead member's objects under one takeover record before any relabel; thawed mid-relabel, it reconciles none of them", async () => {
    const ns = await shared.createNamespace('shard-takeover');
    const w = world(ns);
    const keys = await w.create(40);
    const proxy = await ChaosProxy.start(shared.server.host);
    try {
      const { b: frozen, lost } = await w.abcWithB(proxy.url('http:'), keys);
      const byB = (k: string) => (w.audit.reconciled.get(k) ?? []).filter((m) => m === 'b').length;
      const reconciledByB = new Map(lost.map((k) => [k, byB(k)]));

      // From here the sharder cannot relabel anything: only its one Lease write moves b's objects.
      failConfigMapPatches(ns);
      proxy.hold(true);
      proxy.blackhole();
      await w.until(() => !frozen.ring.isMember(), 'b to stop counting itself a member');
      await w.until(
        async () => (await takeoverRecordOn(ns, 'b')) !== undefined,
        "the takeover record on b's Lease",
      );
      const view = new HashRing(['a', 'c']);
      await w.until(
        () => lost.every((k) => w.audit.lastReconciler(k) === view.memberFor(k)),
        "b's objects reconciled by their owners on the record's ring",
      );
      const labelled = await w.labels();
      for (const k of lost) expect(labelled.get(k)?.['shard.sharding.kubets.io/cms'], k).toBe('b');
      expect(w.audit.takenOver.length).toBeGreaterThanOrEqual(lost.length);
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);

      // Thawed while its objects are still labelled with its name: b holds its Lease again,
      // sees the record in the answer to that write, and reconciles none of them, not even
      // when they change (its cache shows them as its own); the survivors do.
      proxy.hold(false);
      proxy.reset();
      await w.until(() => frozen.ring.isMember(), 'b to hold its Lease again');
      const touched = lost.slice(0, 3);
      const before = new Map(touched.map((k) => [k, w.audit.reconciled.get(k)?.length ?? 0]));
      for (const k of touched) {
        const cm = await w.client().get(k.split('/')[1] as string);
        await w.client().update({
          ...cm,
          metadata: {
            ...cm.metadata,
            annotations: { ...cm.metadata?.annotations, touched: 'thawed' },
          },
        });
      }
      await w.until(
        () => touched.every((k) => (w.audit.reconciled.get(k)?.length ?? 0) > (before.get(k) ?? 0)),
        'the touched objects reconciled again',
      );
      await w.clock.advance(5_000);
      for (const k of lost) expect(byB(k), k).toBe(reconciledByB.get(k));
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);

      // The relabels go through; the record is removed once none is left, and b gets its
      // share back through the usual drain.
      shared.server.faults.reset();
      await w.until(
        async () => (await takeoverRecordOn(ns, 'b')) === undefined,
        'the takeover record removed',
      );
      await w.until(() => w.settledOn(['a', 'b', 'c']), 'b to get its share back');
      await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);
    } finally {
      await cleanUp(w, proxy);
    }
  }, 120_000);

  it('a survivor reconciles an object once under the record, not again at its relabel, unless it changed since', async () => {
    await withThreeMembers('shard-takeover-once', async (w, lost, cutOffB) => {
      const ns = w.namespace;
      const before = new Map(lost.map((k) => [k, w.audit.reconciled.get(k)?.length ?? 0]));
      const since = (k: string) => (w.audit.reconciled.get(k) ?? []).slice(before.get(k));
      const view = new HashRing(['a', 'c']);
      const changed = lost[0] as string;
      w.slow.add(changed);

      failConfigMapPatches(ns);
      cutOffB();
      await w.until(
        () =>
          lost.every(
            (k) =>
              (since(k).length === 1 && w.audit.inside.get(k) === undefined) ||
              (k === changed && w.held.has(k)),
          ),
        "b's objects reconciled under the record",
      );
      // Changed while its reconcile under the record runs, and relabelled before it ends.
      const cm = await w.client().get(changed.split('/')[1] as string);
      await w.client().update({
        ...cm,
        metadata: { ...cm.metadata, annotations: { ...cm.metadata?.annotations, touched: 'yes' } },
      });
      shared.server.faults.reset();
      await w.until(() => w.settledOn(['a', 'c']), 'the relabels');
      w.slow.delete(changed);
      w.held.get(changed)?.();
      await w.until(
        async () => (await takeoverRecordOn(ns, 'b')) === undefined,
        'the takeover record removed',
      );
      await w.until(() => since(changed).length >= 2, 'the changed object reconciled again');
      await w.clock.advance(5_000);
      for (const k of lost) {
        if (k === changed) continue;
        expect(since(k), k).toEqual([view.memberFor(k)]);
      }
      expect(since(changed).every((m) => m === view.memberFor(changed))).toBe(true);
    });
  }, 120_000);

  /** The takeovers member `id` reported its share of done, on its Lease. */
  async function takeoversDoneBy(ns: string, id: string): Promise<string | undefined> {
    const lease = await shared.clientset.coordinationV1().leases(ns).get(`cms-${id}`);
    return lease.metadata?.annotations?.[takeoverDoneAnnotation('cms')];
  }

  it("the sharder relabels a dead member's objects once every survivor reported its share reconciled, or a lease duration after the record", async () => {
    await withThreeMembers('shard-takeover-gate', async (w, lost, cutOffB) => {
      const ns = w.namespace;
      const view = new HashRing(['a', 'c']);
      const stuck = lost.find((k) => view.memberFor(k) === 'c') as string;
      w.slow.add(stuck);
      cutOffB();
      await w.until(
        async () => (await takeoverRecordOn(ns, 'b')) !== undefined,
        "the takeover record on b's Lease",
      );
      const recordSeenAt = w.clock.now();
      const deadTenure = JSON.parse((await takeoverRecordOn(ns, 'b')) as string).tenure as string;
      const underRecord = (k: string) => w.audit.takenOver.some((t) => t.startsWith(`${k}:`));
      await eventually(() => lost.every(underRecord) && w.held.has(stuck), {
        what: "b's objects reconciled under the record, c's reconcile of one held",
        timeoutMs: 30_000,
      });
      // a renews with its report; c, inside the held reconcile, has none to give.
      await w.until(async () => (await takeoversDoneBy(ns, 'a')) === deadTenure, "a's report");
      await w.clock.advance(2_000);
      expect(w.clock.now() - recordSeenAt).toBeLessThan(leases.leaseDurationMs / 2);
      expect(await takeoversDoneBy(ns, 'c')).toBeUndefined();
      const labels = await w.labels();
      expect(lost.filter((k) => labels.get(k)?.['shard.sharding.kubets.io/cms'] !== 'b')).toEqual(
        [],
      );

      // A lease duration after the record, the relabels go on without c's report.
      await w.until(() => w.settledOn(['a', 'c']), 'the relabels');
      expect(w.clock.now() - recordSeenAt).toBeGreaterThanOrEqual(leases.leaseDurationMs - 1_000);
      w.slow.delete(stuck);
      w.held.get(stuck)?.();
      await w.until(
        async () => (await takeoverRecordOn(ns, 'b')) === undefined,
        'the takeover record removed',
      );
    });
  }, 120_000);

  it("with every survivor done, the relabels start without waiting out the lease duration; a survivor configured with another ring size takes over by the sharder's", async () => {
    // The audit checks each reconcile under the record against the record's ring.
    const cOptions = { virtualNodes: 3 };
    await withThreeMembers(
      'shard-takeover-reported',
      async (w, lost, cutOffB) => {
        const ns = w.namespace;
        cutOffB();
        await w.until(
          async () => (await takeoverRecordOn(ns, 'b')) !== undefined,
          "the takeover record on b's Lease",
        );
        const recordSeenAt = w.clock.now();
        await w.until(() => w.settledOn(['a', 'c']), 'the relabels');
        expect(w.clock.now() - recordSeenAt).toBeLessThan(leases.leaseDurationMs / 2);
        const underRecord = (k: string) => w.audit.takenOver.some((t) => t.startsWith(`${k}:`));
        expect(lost.filter((k) => !underRecord(k))).toEqual([]);
      },
      cOptions,
    );
  }, 120_000);

  it('a sharder that fails mid-takeover is followed by one that continues by the same record', async () => {
    const ns = await shared.createNamespace('shard-takeover-sharder');
    const w = world(ns);
    const keys = await w.create(40);
    const toS = await ChaosProxy.start(shared.server.host);
    const toB = await ChaosProxy.start(shared.server.host);
    try {
      const s = w.member('s', toS.url('http:'));
      await w.until(() => s.ring.isSharder(), 's to lead the sharder');
      const others = ['a', 'c'].map((id) => w.member(id));
      const b = w.member('b', toB.url('http:'), { runSharder: false });
      await w.until(() => w.settledOn(['a', 'b', 'c', 's']), 'every object assigned');
      await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
      const lostByB = keys.filter((k) => new HashRing(['a', 'b', 'c', 's']).memberFor(k) === 'b');

      failConfigMapPatches(ns);
      toB.hold(true);
      toB.blackhole();
      await w.until(() => !b.ring.isMember(), 'b to stop counting itself a member');
      await w.until(
        async () => (await takeoverRecordOn(ns, 'b')) !== undefined,
        "the takeover record on b's Lease",
      );
      const record = (await takeoverRecordOn(ns, 'b')) as string;
      expect(Object.keys(JSON.parse(record).view).sort()).toEqual(['a', 'c', 's']);
      const view = new HashRing(['a', 'c', 's']);
      await w.until(
        () => lostByB.every((k) => w.audit.lastReconciler(k) === view.memberFor(k)),
        "b's objects reconciled under the record",
      );

      // The sharder is cut off before it relabelled anything; another one takes over.
      toS.hold(true);
      toS.blackhole();
      shared.server.faults.reset();
      await w.until(() => others.some((m) => m.ring.isSharder()), 'another sharder to lead');
      // The next sharder keeps the record it found until it has relabelled b's objects.
      const otherRecords: string[] = [];
      await w.until(async () => {
        const onB = await takeoverRecordOn(ns, 'b');
        if (onB !== undefined && onB !== record) otherRecords.push(onB);
        return onB === undefined && (await w.settledOn(['a', 'c']));
      }, "b's and s's objects relabelled, b's record removed");
      expect(otherRecords).toEqual([]);
      await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);
    } finally {
      await cleanUp(w, toS, toB);
    }
  }, 120_000);

  it('a new sharder continues from the labels a partitioned sharder left, moving only what it must', async () => {
    const ns = await shared.createNamespace('shard-sharder-gone');
    const w = world(ns);
    const keys = await w.create(40);
    const proxy = await ChaosProxy.start(shared.server.host);
    try {
      const first = w.member('a', proxy.url('http:'));
      await w.until(() => first.ring.isSharder(), 'a to lead the sharder');
      const others = ['b', 'c'].map((id) => w.member(id));
      await w.until(() => w.settledOn(['a', 'b', 'c']), 'every object assigned');
      const before = await w.labels();

      proxy.hold(true);
      proxy.blackhole();
      await w.until(() => others.some((m) => m.ring.isSharder()), 'another sharder to lead');
      await w.until(() => w.settledOn(['b', 'c']), "a's objects to move to b and c");
      await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
      const after = await w.labels();
      for (const key of keys) {
        const was = before.get(key)?.['shard.sharding.kubets.io/cms'];
        // Objects of b and c stayed where they were; only a's moved.
        if (was !== 'a') expect(after.get(key)?.['shard.sharding.kubets.io/cms'], key).toBe(was);
      }
      expect(w.audit.overlaps).toEqual([]);
      expect(w.audit.misplaced).toEqual([]);
    } finally {
      await cleanUp(w, proxy);
    }
  }, 120_000);

  it.each([
    ['past the renew deadline', 25_000],
    ['past the Lease duration', 45_000],
  ])('a clock jump %s lets no two members act on one object', async (_, jumpMs) => {
    const ns = await shared.createNamespace(`shard-jump-${jumpMs}`);
    const w = world(ns);
    const keys = await w.create(30);
    const members = ['a', 'b', 'c'].map((id) => w.member(id));
    await w.until(() => w.settledOn(['a', 'b', 'c']), 'every object assigned');
    await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
    const before = new Map(keys.map((k) => [k, w.audit.reconciled.get(k)?.length ?? 0]));
    // Every timer due in the jump fires at once, as after a frozen or starved event loop.
    w.clock.step(jumpMs);
    expect(members.some((m) => m.ring.isMember())).toBe(false);
    // Every object changes, so every member has work the moment it is a member again.
    await Promise.all(
      keys.map((key) =>
        w.client().patch(key.split('/')[1] as string, 'application/merge-patch+json', {
          metadata: { annotations: { jumped: String(jumpMs) } },
        }),
      ),
    );
    await w.until(() => members.every((m) => m.ring.isMember()), 'the members to be members again');
    await w.until(() => w.settledOn(['a', 'b', 'c']), 'every object assigned');
    await w.until(
      () => keys.every((k) => (w.audit.reconciled.get(k)?.length ?? 0) > (before.get(k) ?? 0)),
      'every object reconciled after the jump',
    );
    await w.until(() => w.reconciledByOwners(keys), 'every object reconciled by its member');
    expect(w.audit.overlaps).toEqual([]);
    expect(w.audit.misplaced).toEqual([]);
  });
});
