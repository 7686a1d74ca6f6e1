import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Clientset } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import { createTestNamespace, eventually, useEnvtest } from '@kubets/test-utils';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { afterEach, describe, expect, it } from 'vitest';

// Short durations so the test runs in seconds: the leader gives up at most 3 s after the start
// of its last successful renewal, a follower takes over no sooner than 4 s after it observed
// that renewal — so the two can never lead at the same time.
const LEASE_MS = 4_000;
const RENEW_MS = 3_000;
const RETRY_MS = 1_000;

const candidateScript = fileURLToPath(new URL('../test/candidate.ts', import.meta.url));

let clientset: Clientset;
let namespace: string;
/** A kube-apiserver this test started after killing envtest's. */

interface Candidate {
  id: string;
  child: ChildProcess;
  lines: string[];
  stderr: string[];
  leading: boolean;
  exited: boolean;
}

const candidates: Candidate[] = [];
/** Every moment (by output) two candidates said they were leading at once. */
const overlaps: string[] = [];

interface Observation {
  holder: string;
  renewTime: string | undefined;
  acquireTime: string | undefined;
  transitions: number;
}

const envtest = useEnvtest(
  async ({ kubeconfigPath: kubeconfig }) => {
    clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: -1, timeoutMs: 5_000 });
    namespace = await createTestNamespace(clientset.coreV1().namespaces(), 'le-e2e');
  },
  async () => {
    for (const c of candidates) await kill(c, 'SIGKILL');
  },
);

afterEach(async () => {
  await Promise.all(candidates.splice(0).map((c) => kill(c, 'SIGTERM')));
});

function startCandidate(leaseName: string, id: string): Candidate {
  const child = spawn(
    process.execPath,
    [
      '--no-warnings',
      candidateScript,
      envtest().kubeconfigPath,
      namespace,
      leaseName,
      id,
      String(LEASE_MS),
      String(RENEW_MS),
      String(RETRY_MS),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const c: Candidate = { id, child, lines: [], stderr: [], leading: false, exited: false };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    c.lines.push(line);
    if (line === `started leading ${id}`) {
      const others = candidates.filter((o) => o !== c && o.leading && !o.exited);
      if (others.length > 0) overlaps.push(`${id} started while ${others.map((o) => o.id)} led`);
      c.leading = true;
    } else if (line === `stopped leading ${id}`) {
      c.leading = false;
    }
  });
  createInterface({ input: child.stderr! }).on('line', (line) => c.stderr.push(line));
  child.once('exit', () => {
    c.exited = true;
    c.leading = false;
  });
  candidates.push(c);
  return c;
}

async function kill(c: Candidate, signal: NodeJS.Signals): Promise<void> {
  if (c.exited || c.child.exitCode !== null) return;
  const exited = new Promise((resolve) => c.child.once('exit', resolve));
  c.child.kill(signal);
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (!c.exited) {
    c.child.kill('SIGKILL');
    await exited;
  }
}

function diagnostics(): string {
  return candidates
    .map((c) => `--- ${c.id}\n${c.lines.join('\n')}\n${c.stderr.slice(-30).join('\n')}`)
    .join('\n');
}

function observation(lease: Lease): Observation {
  return {
    holder: lease.spec?.holderIdentity ?? '',
    renewTime: lease.spec?.renewTime,
    acquireTime: lease.spec?.acquireTime,
    transitions: lease.spec?.leaseTransitions ?? 0,
  };
}

/** Polls the Lease every 100 ms, keeping each distinct record seen. */
function pollLease(leaseName: string): {
  seen: Observation[];
  errors: string[];
  stop: () => Promise<void>;
} {
  const seen: Observation[] = [];
  const errors: string[] = [];
  let stopped = false;
  const observe = (o: Observation): void => {
    const last = seen.at(-1);
    if (!last || last.renewTime !== o.renewTime || last.holder !== o.holder) seen.push(o);
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        const lease = await clientset
          .coordinationV1()
          .leases(namespace)
          .get(leaseName, { timeoutMs: 5_000 });
        observe(observation(lease));
      } catch (error) {
        // Not created yet, or the API server is down: keep polling.
        errors.push(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    seen,
    errors,
    /** Stops polling after one last read. */
    stop: async () => {
      stopped = true;
      await loop;
      const lease = await clientset.coordinationV1().leases(namespace).get(leaseName);
      observe(observation(lease));
    },
  };
}

/** The holders in order, consecutive repeats collapsed. */
function holderSequence(seen: Observation[]): string[] {
  const out: string[] = [];
  for (const o of seen) if (o.holder !== '' && out.at(-1) !== o.holder) out.push(o.holder);
  return out;
}

async function leaseHolder(leaseName: string): Promise<string | undefined> {
  try {
    const lease = await clientset.coordinationV1().leases(namespace).get(leaseName);
    return lease.spec?.holderIdentity;
  } catch {
    return undefined;
  }
}

/** Waits until exactly one candidate leads by its output and the Lease names it. */
async function waitForSingleLeader(leaseName: string, among: Candidate[]): Promise<Candidate> {
  let leader: Candidate | undefined;
  await eventually(
    async () => {
      const leading = among.filter((c) => c.leading);
      if (leading.length !== 1) return false;
      leader = leading[0];
      return (await leaseHolder(leaseName)) === leader?.id;
    },
    { timeoutMs: 60_000, what: 'one leader by output and by the Lease', intervalMs: 25 },
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${diagnostics()}`);
  });
  return leader!;
}

/**
 * Polls the Lease and starts two candidates for it; resolves once one of them leads (by its
 * output and by the Lease) and the other has observed that.
 */
async function electionBetween(leaseName: string, ids: [string, string]) {
  const poller = pollLease(leaseName);
  const pair = ids.map((id) => startCandidate(leaseName, id)) as [Candidate, Candidate];
  const leader = await waitForSingleLeader(leaseName, pair);
  const follower = leader === pair[0] ? pair[1] : pair[0];
  await eventually(() => follower.lines.includes(`new leader ${leader.id}`), {
    timeoutMs: 30_000,
    what: 'the follower to observe the leader',
    intervalMs: 25,
  });
  return { poller, pair, leader, follower };
}

describe('leader election between two processes on a real kube-apiserver', () => {
  it('elects exactly one leader; after SIGKILL the other takes over once the lease expired', async () => {
    const leaseName = 'sigkill';
    const { poller, leader, follower } = await electionBetween(leaseName, [
      'candidate-a',
      'candidate-b',
    ]);
    // Steady state for two lease durations as the leader lives them (renewals the poller saw,
    // one per retry period at most), not as a timer counts them: the follower keeps following.
    const renewalsSeen = (): number => poller.seen.filter((o) => o.holder === leader.id).length;
    const before = renewalsSeen();
    await eventually(() => renewalsSeen() - before >= (2 * LEASE_MS) / RETRY_MS, {
      timeoutMs: 120_000,
      what: 'two lease durations of renewals by the leader',
      intervalMs: 25,
    });
    expect(leader.leading).toBe(true);
    expect(follower.lines.filter((l) => l.startsWith('started leading'))).toEqual([]);
    expect(await leaseHolder(leaseName)).toBe(leader.id);

    await kill(leader, 'SIGKILL');
    const lastRenewByLeader = poller.seen.filter((o) => o.holder === leader.id).at(-1);
    const transitionsBefore = lastRenewByLeader?.transitions ?? 0;

    await eventually(() => follower.leading, {
      timeoutMs: 60_000,
      what: 'the follower to take over',
      intervalMs: 25,
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${diagnostics()}`);
    });
    await eventually(async () => (await leaseHolder(leaseName)) === follower.id, {
      timeoutMs: 10_000,
      what: 'the Lease',
      intervalMs: 25,
    });
    await poller.stop();

    const lease = await clientset.coordinationV1().leases(namespace).get(leaseName);
    expect(lease.spec).toMatchObject({
      holderIdentity: follower.id,
      leaseDurationSeconds: LEASE_MS / 1000,
      leaseTransitions: transitionsBefore + 1,
    });
    // The takeover happened no sooner than a full lease after the last renewal we saw (both
    // timestamps come from this machine's clock; 50 ms for rounding).
    const renewed = Date.parse(lastRenewByLeader?.renewTime ?? '');
    const acquired = Date.parse(lease.spec?.acquireTime ?? '');
    expect(acquired - renewed).toBeGreaterThanOrEqual(LEASE_MS - 50);
    expect(follower.lines).toContain(`new leader ${follower.id}`);

    // Never two leaders: the Lease went from one holder to the other exactly once...
    expect(holderSequence(poller.seen), JSON.stringify(poller.errors.slice(-5))).toEqual([
      leader.id,
      follower.id,
    ]);
    // ...and no process said it started leading while another one was.
    expect(overlaps).toEqual([]);
  });

  it('kube-apiserver frozen, then restarted: the leader stops when it cannot renew, leadership returns afterwards', async () => {
    const leaseName = 'restart';
    const { poller, pair, leader, follower } = await electionBetween(leaseName, [
      'candidate-c',
      'candidate-d',
    ]);
    const [c, d] = pair;

    // Freeze kube-apiserver: connections stay open and every request hangs, as behind a
    // blackholed network, for as long as the test needs — no race with how fast a restarted
    // server comes back (about 4 s here, longer than the 3 s renew deadline only sometimes).
    // The leader must give up within its renew deadline, and the follower must not take over
    // while nobody can write.
    process.kill(envtest().pids.kubeApiserver, 'SIGSTOP');
    try {
      await eventually(() => leader.lines.includes(`stopped leading ${leader.id}`), {
        timeoutMs: 30_000,
        what: 'the leader to stop leading',
        intervalMs: 25,
      }).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${diagnostics()}`);
      });
      expect(follower.lines).not.toContain(`started leading ${follower.id}`);
    } finally {
      // Then crash it while frozen and start it again (etcd keeps the data).
      await envtest().restartApiServer({ signal: 'SIGKILL' });
    }

    const next = await waitForSingleLeader(leaseName, [c, d]);
    await poller.stop();
    expect([c.id, d.id]).toContain(next.id);
    expect(overlaps).toEqual([]);
    // The record only ever changed hands between the two, one at a time.
    const holders = holderSequence(poller.seen);
    expect(holders[0]).toBe(leader.id);
    expect(holders.at(-1), JSON.stringify(poller.errors.slice(-5))).toBe(next.id);
    for (const h of holders) expect([c.id, d.id]).toContain(h);
  });
});
