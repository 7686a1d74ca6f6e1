import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Clientset } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import { createTestNamespace, eventually, useEnvtest } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { HashRing, type ShardTakeover, takeoverRing } from '../index.js';

// The must-show of sharding: member processes over a real kube-apiserver, each auditing its
// reconciles to a file of its own. Every wait is on a condition (labels, audit lines, status
// files); the Lease timings only bound how soon things can happen.
const LEASE_MS = 8_000;
const RENEW_MS = 6_000;
const RETRY_MS = 1_000;
const OBJECTS = 3_000;
const SHARD = 'shard.sharding.kubets.io/e2e';
const DRAIN = 'drain.sharding.kubets.io/e2e';

const memberScript = fileURLToPath(new URL('../../test/shard-member.ts', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'kubets-shard-e2e-'));

let clientset: Clientset;
let namespace: string;

interface Member {
  id: string;
  child: ChildProcess;
  stderr: string[];
  exited: boolean;
}
const members = new Map<string, Member>();

const envtest = useEnvtest(
  async ({ kubeconfigPath: kubeconfig }) => {
    clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: -1, timeoutMs: 30_000 });
    namespace = await createTestNamespace(clientset.coreV1().namespaces(), 'shard-e2e');
  },
  async () => {
    // The members write their status files until they exit: the directory goes after them.
    await Promise.all(
      [...members.values()].map(async (m) => {
        if (m.exited) return;
        const exit = once(m.child, 'exit');
        m.child.kill('SIGCONT');
        m.child.kill('SIGKILL');
        await exit;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  },
);

function start(id: string): Member {
  const child = spawn(
    process.execPath,
    [
      '--no-warnings',
      memberScript,
      envtest().kubeconfigPath,
      namespace,
      id,
      dir,
      String(LEASE_MS),
      String(RENEW_MS),
      String(RETRY_MS),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const m: Member = { id, child, stderr: [], exited: false };
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) =>
    m.stderr.push(line),
  );
  child.once('exit', () => {
    m.exited = true;
  });
  members.set(id, m);
  return m;
}

interface Status {
  at: number;
  member: boolean;
  sharder: boolean;
  cached: number;
}
function status(id: string): Status | undefined {
  const file = path.join(dir, `${id}.status`);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Status;
}

interface Interval {
  member: string;
  start: number;
  end: number;
  assigned: string | undefined;
  /** The takeover record the reconcile ran under, as the member logged it. */
  takeover: ShardTakeover | undefined;
}
/**
 * Every member's reconciles by object in the order they started, from the audit files; one
 * still running ends at `openEnd`.
 */
function audits(openEnd = Number.POSITIVE_INFINITY): Map<string, Interval[]> {
  const byKey = new Map<string, Interval[]>();
  for (const id of members.keys()) {
    const file = path.join(dir, `${id}.audit`);
    if (!existsSync(file)) continue;
    const open = new Map<string, Interval>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const [what, key, value] = line.split(' ');
      if (key === undefined || value === undefined) continue;
      if (what === 'start') {
        const interval: Interval = {
          member: id,
          start: Number(value),
          end: openEnd,
          assigned: undefined,
          takeover: undefined,
        };
        open.set(key, interval);
        byKey.set(key, [...(byKey.get(key) ?? []), interval]);
      } else if (what === 'takeover') {
        const interval = open.get(key);
        if (interval)
          interval.takeover = JSON.parse(line.slice(line.indexOf('{'))) as ShardTakeover;
      } else if (what === 'assigned') {
        const interval = open.get(key) as Interval | undefined;
        if (interval) (interval as { assigned: string | undefined }).assigned = value;
      } else if (what === 'end') {
        const interval = open.get(key);
        if (interval) interval.end = Number(value);
        open.delete(key);
      }
    }
  }
  for (const intervals of byKey.values()) intervals.sort((a, b) => a.start - b.start);
  return byKey;
}

/** Reconciles of one object by two members whose times overlap. */
function overlaps(byKey: Map<string, Interval[]>): string[] {
  const found: string[] = [];
  for (const [key, intervals] of byKey) {
    for (let i = 1; i < intervals.length; i++) {
      const cur = intervals[i] as Interval;
      for (const p of intervals.slice(0, i)) {
        if (p.member !== cur.member && p.end > cur.start) {
          found.push(`${key}: ${p.member} and ${cur.member}`);
        }
      }
    }
  }
  return found;
}

/**
 * Reconciles that started while the server assigned the object to another member — but for
 * one under a takeover record of that member which names the reconciling member's tenure
 * and places the object on it by the record's view.
 */
function misplaced(byKey: Map<string, Interval[]>): string[] {
  const found: string[] = [];
  for (const [key, intervals] of byKey) {
    for (const i of intervals) {
      if (i.assigned === undefined || i.assigned === i.member) continue;
      const t = i.takeover;
      if (
        t !== undefined &&
        t.member === i.assigned &&
        t.record.view[i.member] === t.tenure &&
        takeoverRing(t.record).memberFor(key) === i.member
      ) {
        continue;
      }
      found.push(
        `${key}: ${i.member} reconciled it while assigned to ${i.assigned}${t ? ` (under ${JSON.stringify(t)})` : ''}`,
      );
    }
  }
  return found;
}

async function labels(): Promise<Map<string, Record<string, string>>> {
  const list = await clientset.coreV1().configMaps(namespace).list();
  return new Map(
    (list.items ?? [])
      .filter((cm) => cm.metadata?.name?.startsWith('obj-'))
      .map((cm) => [`${namespace}/${cm.metadata?.name}`, cm.metadata?.labels ?? {}]),
  );
}

/** Every object labelled with its place on the ring of `ids`, none draining. */
async function settledOn(ids: string[]): Promise<Map<string, Record<string, string>>> {
  const ring = new HashRing(ids);
  const l = await labels();
  expect(l.size).toBe(OBJECTS);
  for (const [key, labelsOf] of l) {
    expect(labelsOf[SHARD], key).toBe(ring.memberFor(key));
    expect(labelsOf[DRAIN], key).toBeUndefined();
  }
  return l;
}

/** Each object's last reconcile started after `since` and was by the member it is labelled with. */
function reconciledByOwners(l: Map<string, Record<string, string>>, since = 0): void {
  const byKey = audits();
  for (const [key, labelsOf] of l) {
    const last = byKey.get(key)?.at(-1);
    expect(last?.member, key).toBe(labelsOf[SHARD]);
    expect(last?.start ?? 0, key).toBeGreaterThan(since);
  }
}

/**
 * Watches the objects from now on and notes, for each, when an event first showed it
 * labelled away from `from`: when the sharder's relabel writes became visible.
 */
async function watchRelabels(
  from: string,
): Promise<{ movedAt: Map<string, number>; stop(): void }> {
  const cms = clientset.coreV1().configMaps(namespace);
  const list = await cms.list({ limit: 1 });
  const stream = await cms.watch({ resourceVersion: list.metadata?.resourceVersion });
  const movedAt = new Map<string, number>();
  void (async () => {
    for await (const event of stream) {
      if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
      const md = event.object.metadata;
      const label = md?.labels?.[SHARD];
      const key = `${namespace}/${md?.name}`;
      if (label !== undefined && label !== from && !movedAt.has(key)) movedAt.set(key, Date.now());
    }
  })().catch(() => {});
  return { movedAt, stop: () => stream.stop() };
}

/**
 * Resolves as soon as a watch shows `member` renewing its shard Lease: a kill then leaves the
 * Lease a whole duration to run, the slowest takeover the issue's line allows for.
 */
async function nextRenewal(member: string): Promise<void> {
  const leases = clientset.coordinationV1().leases(namespace);
  const name = `e2e-${member}`;
  const seen = await leases.get(name);
  const stream = await leases.watch({
    fieldSelector: `metadata.name=${name}`,
    resourceVersion: seen.metadata?.resourceVersion,
  });
  try {
    for await (const event of stream) {
      if (event.type === 'MODIFIED' && event.object.spec?.renewTime !== seen.spec?.renewTime) {
        return;
      }
    }
  } finally {
    stream.stop();
  }
}

/** When a member's log first said `message` (with `detail` in its fields) after `since`. */
function loggedAt(
  message: string,
  detail: (fields: string) => boolean,
  since: number,
): number | undefined {
  let first: number | undefined;
  for (const m of members.values()) {
    for (const line of m.stderr) {
      const at = Date.parse(line.slice(0, line.indexOf(' ')));
      const i = line.indexOf(message);
      if (i < 0 || !(at >= since) || !detail(line.slice(i + message.length))) continue;
      if (first === undefined || at < first) first = at;
    }
  }
  return first;
}

/**
 * How long each step of a takeover after `kill -9` took, from the kill: the victim's last
 * Lease renewal (its wall clock, this machine's), the sharder seeing the Lease expire, its
 * takeover record written on the Lease, the first survivor starting on it, the first and last
 * relabel seen by a watch, and of each of the victim's objects the first reconcile by a
 * survivor: when the first of those started and the last ended.
 */
async function takeoverBreakdown(
  victim: string,
  killedAt: number,
  lost: string[],
  movedAt: Map<string, number>,
): Promise<string> {
  const lease = await clientset.coordinationV1().leases(namespace).get(`e2e-${victim}`);
  const renewed = Date.parse(String(lease.spec?.renewTime ?? ''));
  const dead = loggedAt('Shard ring changed', (f) => !f.includes(`"${victim}"`), killedAt);
  const recorded = loggedAt(
    'Wrote a takeover record',
    (f) => f.includes(`"member":"${victim}"`),
    killedAt,
  );
  const seen = loggedAt(
    'Reconciling the objects of a departed member under a takeover record',
    (f) => f.includes(`"member":"${victim}"`),
    killedAt,
  );
  const moves = lost.map((k) => movedAt.get(k)).filter((t) => t !== undefined);
  const byKey = audits(killedAt);
  const taken = lost
    .map((k) => byKey.get(k)?.find((i) => i.member !== victim && i.start > killedAt))
    .filter((i) => i !== undefined);
  const underRecord = taken.filter((i) => i.takeover !== undefined).length;
  const after = (t: number | undefined) =>
    t === undefined ? '?' : `${Math.round(t - killedAt)} ms`;
  return [
    `last renewal ${after(renewed)}`,
    `sharder sees it expired ${after(dead)}`,
    `takeover record written ${after(recorded)}`,
    `first survivor acts on it ${after(seen)}`,
    `relabels seen ${moves.length}/${lost.length}: first ${after(Math.min(...moves))}, last ${after(Math.max(...moves))}`,
    `each reconciled by a survivor ${taken.length}/${lost.length} (${underRecord} under the record, before their relabel): first start ${after(Math.min(...taken.map((i) => i.start)))}, last end ${after(Math.max(...taken.map((i) => i.end)))}`,
  ].join('; ');
}

function diagnostics(): string {
  return [...members.values()]
    .map((m) => `--- ${m.id}\n${m.stderr.slice(-20).join('\n')}`)
    .join('\n');
}

const wait = { timeoutMs: 240_000, intervalMs: 250 };

describe('sharding e2e', () => {
  it('three members share 3,000 objects; one joins, one is killed, one is frozen: never two at once', async () => {
    const names = Array.from({ length: OBJECTS }, (_, i) => `obj-${i}`);
    for (let i = 0; i < names.length; i += 100) {
      await Promise.all(
        names
          .slice(i, i + 100)
          .map((name) => clientset.coreV1().configMaps(namespace).create({ metadata: { name } })),
      );
    }
    try {
      // Three members: every object reconciled by its member, each caching only its share.
      for (const id of ['a', 'b', 'c']) start(id);
      await eventually(async () => reconciledByOwners(await settledOn(['a', 'b', 'c'])), {
        ...wait,
        what: 'three members to reconcile every object',
      });
      const three = await labels();
      for (const id of ['a', 'b', 'c']) {
        const own = [...three.values()].filter((l) => l[SHARD] === id).length;
        expect(Math.abs(own - OBJECTS / 3) / (OBJECTS / 3), id).toBeLessThanOrEqual(0.25);
        await eventually(() => expect(status(id)?.cached).toBe(own), { what: `${id}'s cache` });
      }
      expect(overlaps(audits())).toEqual([]);

      // A fourth joins: it takes about a quarter, and only those objects move.
      const joinedAt = Date.now();
      start('d');
      await eventually(async () => reconciledByOwners(await settledOn(['a', 'b', 'c', 'd']), 0), {
        ...wait,
        what: 'd to take its share',
      });
      const four = await labels();
      const moved = [...four].filter(([key, l]) => three.get(key)?.[SHARD] !== l[SHARD]);
      expect(moved.every(([, l]) => l[SHARD] === 'd')).toBe(true);
      expect(Math.abs(moved.length - OBJECTS / 4) / (OBJECTS / 4)).toBeLessThanOrEqual(0.25);
      const afterJoin = audits();
      for (const [key] of moved) {
        expect(afterJoin.get(key)?.at(-1)?.start ?? 0, key).toBeGreaterThan(joinedAt);
      }
      expect(overlaps(audits())).toEqual([]);

      // kill -9 of a member that is not the sharder, right after it renewed its Lease: its
      // objects go to the others.
      const victim = ['a', 'b', 'c', 'd'].find((id) => !status(id)?.sharder) as string;
      const lostKeys = [...four].filter(([, l]) => l[SHARD] === victim).map(([key]) => key);
      const relabels = await watchRelabels(victim);
      await nextRenewal(victim);
      const killedAt = Date.now();
      members.get(victim)?.child.kill('SIGKILL');
      const rest = ['a', 'b', 'c', 'd'].filter((id) => id !== victim);
      // Waiting on the watch first keeps the test's own lists of every object off the API
      // server while the takeover it times runs.
      await eventually(() => expect(lostKeys.filter((k) => !relabels.movedAt.has(k))).toEqual([]), {
        ...wait,
        what: `the objects of ${victim} to be relabelled`,
      });
      await eventually(
        async () => {
          const l = await settledOn(rest);
          const lost = new Map([...l].filter(([key]) => four.get(key)?.[SHARD] === victim));
          reconciledByOwners(lost, killedAt);
        },
        { ...wait, what: `the objects of ${victim} to be reconciled by the others` },
      );
      const takeover = Date.now() - killedAt;
      relabels.stop();
      // Reported, not asserted: how long the takeover took depends on the machine.
      process.stdout.write(
        `sharding e2e: ${victim}'s ${lostKeys.length} objects relabelled and reconciled by the others, as the test saw it, ${takeover} ms after kill -9 (Lease ${LEASE_MS} ms, renew period ${RETRY_MS} ms); from the kill: ${await takeoverBreakdown(victim, killedAt, lostKeys, relabels.movedAt)}\n`,
      );
      // A killed member's reconcile in flight never ended: open until the kill.
      expect(overlaps(audits(killedAt))).toEqual([]);

      // SIGSTOP of another member that is not the sharder: it stops being assigned objects,
      // and when thawed reconciles nothing it lost. Frozen while idle: a member frozen inside
      // a reconcile is the case no lease-based scheme fences (docs/sharding.md), and after a
      // takeover the survivors reconcile again each object whose relabel reaches their cache
      // before they reconciled it under the record; the freeze waits until no reconcile has
      // been open, nor started, for a second.
      const frozen = rest.find((id) => !status(id)?.sharder) as string;
      let reconciles = -1;
      await eventually(
        () => {
          const byKey = audits();
          const all = [...byKey.values()].flat();
          const open = all.filter((i) => i.member !== victim && i.end === Number.POSITIVE_INFINITY);
          const quiet = open.length === 0 && all.length === reconciles;
          reconciles = all.length;
          expect(quiet).toBe(true);
        },
        { ...wait, intervalMs: 1_000, what: 'the members to be idle' },
      );
      const beforeFreeze = await labels();
      const frozenAt = Date.now();
      members.get(frozen)?.child.kill('SIGSTOP');
      const left = rest.filter((id) => id !== frozen);
      await eventually(
        async () => {
          const l = await settledOn(left);
          const lost = new Map([...l].filter(([key]) => beforeFreeze.get(key)?.[SHARD] === frozen));
          reconciledByOwners(lost, frozenAt);
        },
        { ...wait, what: `the objects of frozen ${frozen} to be reconciled by the others` },
      );
      members.get(frozen)?.child.kill('SIGCONT');
      await eventually(async () => reconciledByOwners(await settledOn(rest)), {
        ...wait,
        what: `thawed ${frozen} to rejoin and take its share back`,
      });
      const all = audits(killedAt);
      expect(misplaced(all)).toEqual([]);
      expect(overlaps(all)).toEqual([]);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${diagnostics()}`, { cause: error });
    }
  }, 900_000);
});
