// --leader-elect against envtest's real kube-apiserver: two controller processes (node
// src/main.ts, as a user runs them) compete for a Lease; exactly one runs the informer and the
// workers. The leader killed with SIGKILL is replaced once its lease expired, and the new
// leader reconciles; a leader stopped with SIGTERM releases the Lease, so the follower takes
// over without waiting for it to expire; a leader whose Lease is taken exits 255.
//
// Short durations (lease 4 s, renew deadline 3 s, retry period 1 s) keep it fast; every
// assertion is an eventual condition with a generous deadline, never a measured time.

import { fileURLToPath } from 'node:url';
import { Clientset } from '@kubets/clientset';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { loadConfig, PatchType } from '@kubets/rest';
import { type AppProcess, klogLine, kubectl, startApp } from '@kubets-apps/shared/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crddemoV1 } from './generated/index.ts';

const appDir = new URL('..', import.meta.url);
const crdFile = fileURLToPath(new URL('crd/mydemo.yaml', appDir));

/** The leader-election flags of every replica here, but the Lease's name. */
const fastElection = [
  '--leader-elect',
  '--leader-elect-resource-namespace',
  'default',
  '--leader-elect-lease-duration',
  '4s',
  '--leader-elect-renew-deadline',
  '3s',
  '--leader-elect-retry-period',
  '1s',
];

const announced = klogLine(
  'leaderelection.ts',
  'leader election: identity (\\S+), Lease default/[-a-z]+, lease duration .*',
);
const acquired = (lease: string): RegExp =>
  klogLine('leaderelection.ts', `successfully acquired lease default/${lease}`);
const released = (lease: string): RegExp =>
  klogLine('leaderelection.ts', `released lease default/${lease}`);
const newLeader = (identity: string): RegExp =>
  klogLine('leaderelection.ts', `new leader elected: ${identity.replace(/\./g, '\\.')}`);
const setUp = klogLine('controller.ts', 'Setting up mydemo event handlers');
const startedWorkers = klogLine('controller.ts', 'Started workers');
const shuttingDown = klogLine('controller.ts', 'Shutting down workers');
const synced = (name: string): RegExp =>
  klogLine('controller.ts', `Successfully synced 'default/${name}'`);
const tryProcess = /\[DemoCRD\] Try to process mydemo/;

interface Replica {
  readonly app: AppProcess;
  /** Its leader-election identity, from its startup line. */
  readonly identity: string;
}

/** Polls `check` every 200 ms until it returns a value other than `undefined`. */
async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('crd-controller --leader-elect against a real kube-apiserver', () => {
  let env: Envtest;
  let clientset: Clientset;
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    env = await startEnvtest();
    clientset = new Clientset({
      ...loadConfig({ kubeconfig: env.kubeconfigPath }),
      qps: -1,
      timeoutMs: 5_000,
    });
    await kubectl(env.kubeconfigPath, ['apply', '-f', crdFile]);
    // The new kind is served a moment after the CRD is created.
    await eventually('the Mydemo resource to be served', async () => {
      await crddemoV1.mydemosClient(clientset, 'default').list();
      return true;
    });
  });

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.stop('SIGKILL')));
  });

  afterAll(async () => {
    await env?.stop();
  });

  async function startReplica(lease: string, election = fastElection): Promise<Replica> {
    const app = startApp(appDir, [
      '--kubeconfig',
      env.kubeconfigPath,
      ...election,
      '--leader-elect-resource-name',
      lease,
    ]);
    apps.push(app);
    const line = await app.waitFor(announced);
    const identity = announced.exec(line)?.[1];
    if (identity === undefined) throw new Error(`no identity in ${line}`);
    return { app, identity };
  }

  async function leaseOf(name: string) {
    return clientset.coordinationV1().leases('default').get(name);
  }

  async function createMydemo(name: string): Promise<void> {
    await crddemoV1.mydemosClient(clientset, 'default').create({
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
      metadata: { name },
      spec: { ip: '127.0.0.1', port: 8080 },
    });
  }

  /**
   * Waits until one of `replicas` holds the Lease (by the Lease and by its log) and the others
   * have seen it as the new leader; returns [leader, ...followers].
   */
  async function electedAmong(lease: string, replicas: Replica[]): Promise<Replica[]> {
    const holder = await eventually(`a holder of Lease ${lease}`, async () => {
      const identity = (await leaseOf(lease)).spec?.holderIdentity;
      return replicas.find((r) => r.identity === identity);
    });
    await holder.app.waitFor(acquired(lease));
    const followers = replicas.filter((r) => r !== holder);
    for (const follower of followers) await follower.app.waitFor(newLeader(holder.identity));
    return [holder, ...followers];
  }

  it('runs the controller in exactly one of two replicas; after SIGKILL of the leader the other takes over and reconciles', async () => {
    const lease = 'crd-controller-failover';
    const [leader, follower] = await electedAmong(
      lease,
      await Promise.all([startReplica(lease), startReplica(lease)]),
    );
    if (!leader || !follower) throw new Error('two replicas expected');
    await leader.app.waitFor(startedWorkers);

    // Only the leader reconciles.
    await createMydemo('before-failover');
    await leader.app.waitFor(synced('before-failover'));
    expect((await leaseOf(lease)).spec?.holderIdentity).toBe(leader.identity);
    expect(follower.app.output.count(acquired(lease))).toBe(0);
    expect(follower.app.output.count(setUp)).toBe(0); // no informer, no workers
    expect(follower.app.output.count(tryProcess)).toBe(0);
    expect(leader.app.output.count(acquired(lease))).toBe(1);
    const transitions = (await leaseOf(lease)).spec?.leaseTransitions ?? 0;

    // SIGKILL: no release. The follower takes over once the lease it last saw renewed expired.
    expect(await leader.app.stop('SIGKILL')).toBeNull();
    const tookOver = follower.app.output.indexOf(
      await follower.app.waitFor(acquired(lease), { timeoutMs: 60_000 }),
    );
    const taken = await leaseOf(lease);
    expect(taken.spec?.holderIdentity).toBe(follower.identity);
    expect(taken.spec?.leaseTransitions).toBe(transitions + 1);

    // The new leader starts its informer (its list brings the existing object) and reconciles
    // what is created now.
    await follower.app.waitFor(startedWorkers);
    await follower.app.waitFor(synced('before-failover'));
    await createMydemo('after-failover');
    await follower.app.waitFor(synced('after-failover'));
    // (Before, two replicas racing to create the Lease may log the loser's AlreadyExists.)
    expect(follower.app.output.count(/^E/, tookOver)).toBe(0);

    // SIGTERM of the last replica: the workers stop, then the Lease is released — empty
    // holder, 1 s lease — and the process exits 0.
    const since = follower.app.output.mark();
    expect(await follower.app.stop('SIGTERM')).toBe(0);
    const out = follower.app.output;
    expect(out.indexOf(shuttingDown, since)).toBeGreaterThanOrEqual(0);
    expect(out.indexOf(released(lease), since)).toBeGreaterThan(out.indexOf(shuttingDown, since));
    const free = await leaseOf(lease);
    expect(free.spec?.holderIdentity ?? '').toBe('');
    expect(free.spec?.leaseDurationSeconds).toBe(1);
  });

  it('hands over at once when the leader is stopped with SIGTERM: the Lease is released, not left to expire', async () => {
    // A 60 s lease: had the Lease not been released, the follower could not take over for a
    // minute; the deadline below is half of that.
    const lease = 'crd-controller-handover';
    const election = [...fastElection];
    election[election.indexOf('4s')] = '60s';
    const [leader, follower] = await electedAmong(
      lease,
      await Promise.all([startReplica(lease, election), startReplica(lease, election)]),
    );
    if (!leader || !follower) throw new Error('two replicas expected');
    await leader.app.waitFor(startedWorkers);

    expect(await leader.app.stop('SIGTERM')).toBe(0);
    const out = leader.app.output;
    expect(out.indexOf(released(lease))).toBeGreaterThan(out.indexOf(shuttingDown));

    await follower.app.waitFor(acquired(lease), { timeoutMs: 30_000 });
    expect((await leaseOf(lease)).spec?.holderIdentity).toBe(follower.identity);
    await follower.app.waitFor(startedWorkers);
    await createMydemo('after-handover');
    await follower.app.waitFor(synced('after-handover'));
    expect(leader.app.output.count(synced('after-handover'))).toBe(0);
  });

  it('stops the workers and exits 255 ("leaderelection lost") when the Lease is taken from it', async () => {
    const lease = 'crd-controller-lost';
    const replica = await startReplica(lease);
    await replica.app.waitFor(acquired(lease));
    await replica.app.waitFor(startedWorkers);

    // Another holder with a long lease: the leader cannot renew within its renew deadline.
    await clientset
      .coordinationV1()
      .leases('default')
      .patch(lease, PatchType.MergePatch, {
        spec: { holderIdentity: 'intruder', leaseDurationSeconds: 60 },
      });

    expect(await replica.app.exited).toBe(255);
    const out = replica.app.output;
    const lost = out.indexOf(klogLine('main.ts', 'leaderelection lost', 'F'));
    expect(lost, out.lines.join('\n')).toBeGreaterThanOrEqual(0);
    expect(out.indexOf(shuttingDown)).toBeGreaterThanOrEqual(0);
    expect(out.indexOf(shuttingDown)).toBeLessThan(lost);
    expect(out.count(newLeader('intruder'))).toBe(1);
    expect((await leaseOf(lease)).spec?.holderIdentity).toBe('intruder');
  });
});
