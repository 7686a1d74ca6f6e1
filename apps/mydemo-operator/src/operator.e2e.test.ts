// The operator against envtest's real kube-apiserver, run as a user runs it (node src/main.ts
// --kubeconfig ...): it converges after a Mydemo is created, changed and deleted; a deleted
// Deployment is recreated; it keeps working after kube-apiserver is killed and restarted; and
// of two replicas under leader election exactly one reconciles, the other taking over when the
// leader is killed. envtest runs no controller-manager: Deployments get no pods (Available
// stays False) and nothing garbage-collects, so what is checked is the operator's own work.
// Every wait is on a condition (the server's objects, the operator's lines), never a sleep.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isNotFound } from '@kubets/apimachinery';
import { type apiextensionsv1, Clientset } from '@kubets/clientset';
import { findStatusCondition } from '@kubets/controller';
import { loadConfig, PatchType } from '@kubets/rest';
import { createTestNamespace, eventually, rejectionOf, useEnvtest } from '@kubets/test-utils';
import { type AppProcess, startApp } from '@kubets-apps/shared/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifest } from './demo.ts';
import { crddemoV1 } from './generated/index.ts';
import { finalizerName } from './operator.ts';
import { DirectoryRecords } from './records.ts';

const appDir = new URL('..', import.meta.url);
const poll = { intervalMs: 200, timeoutMs: 90_000 };

let clientset: Clientset;
let kubeconfig: string;
const recordsDir = mkdtempSync(join(tmpdir(), 'mydemo-operator-e2e-'));
const records = new DirectoryRecords(recordsDir);

const envtest = useEnvtest(
  async (env) => {
    kubeconfig = env.kubeconfigPath;
    clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: -1, timeoutMs: 10_000 });
    await clientset
      .apiextensionsV1()
      .customResourceDefinitions()
      .create(readManifest<apiextensionsv1.CustomResourceDefinition>('crd/mydemo.yaml'));
    // The new kind is served a moment after the CRD is created.
    await eventually(() => crddemoV1.mydemosClient(clientset).list(), poll);
  },
  () => rmSync(recordsDir, { recursive: true, force: true }),
);

const apps: AppProcess[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop('SIGKILL')));
});

/** Starts an operator process on envtest, with free loopback ports for its endpoints. */
function startOperator(...extra: string[]): AppProcess {
  const app = startApp(appDir, [
    '--kubeconfig',
    kubeconfig,
    '--records-dir',
    recordsDir,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
    ...extra,
  ]);
  apps.push(app);
  return app;
}

/** The port an endpoint of `app` was served on, from its `Serving ...` line. */
async function servedPort(
  app: AppProcess,
  what: 'metrics server' | 'health probes',
): Promise<number> {
  const line = await app.waitFor(new RegExp(`Serving ${what} bindAddress=`));
  return Number(/"port":(\d+)/.exec(line)?.[1]);
}

function mydemoIn(namespace: string, name: string, port: number): crddemoV1.Mydemo {
  return {
    apiVersion: 'crddemo.k8s.io/v1',
    kind: 'Mydemo',
    metadata: { name, namespace },
    spec: { ip: '10.0.0.7', port },
  };
}

/** Waits until the Mydemo is Ready for its current generation, with its children and record. */
async function converged(namespace: string, name: string, port: number): Promise<void> {
  const mydemos = crddemoV1.mydemosClient(clientset, namespace);
  await eventually(async () => {
    const live = await mydemos.get(name);
    const ready = findStatusCondition(live.status?.conditions, 'Ready');
    expect(ready).toMatchObject({ status: 'True', observedGeneration: live.metadata?.generation });
    expect(live.status?.observedGeneration).toBe(live.metadata?.generation);
    expect(live.metadata?.finalizers).toEqual([finalizerName]);
    const deployment = await clientset.appsV1().deployments(namespace).get(name);
    expect(deployment.spec?.template.spec?.containers[0]?.ports?.[0]?.containerPort).toBe(port);
    expect(deployment.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Mydemo',
      uid: live.metadata?.uid,
      controller: true,
    });
    const service = await clientset.coreV1().services(namespace).get(name);
    expect(service.spec?.ports?.[0]?.port).toBe(port);
    expect(await records.get(namespace, name)).toMatchObject({ uid: live.metadata?.uid, port });
    // The Event the reconciler records through ctx.recorder, written by the manager.
    const events = await clientset.coreV1().events(namespace).list();
    expect(
      events.items.filter(
        (e) => e.involvedObject.uid === live.metadata?.uid && e.reason === 'Synced',
      ),
    ).toContainEqual(
      expect.objectContaining({
        type: 'Normal',
        message: 'Mydemo synced successfully',
        source: expect.objectContaining({ component: 'mydemo' }),
      }),
    );
  }, poll);
}

/** Waits until the Mydemo, its children and its record are gone. */
async function goneWithItsWorld(namespace: string, name: string): Promise<void> {
  await eventually(async () => {
    expect(
      isNotFound(await rejectionOf(crddemoV1.mydemosClient(clientset, namespace).get(name))),
    ).toBe(true);
    expect(await records.get(namespace, name)).toBeUndefined();
    expect(isNotFound(await rejectionOf(clientset.appsV1().deployments(namespace).get(name)))).toBe(
      true,
    );
    expect(isNotFound(await rejectionOf(clientset.coreV1().services(namespace).get(name)))).toBe(
      true,
    );
  }, poll);
}

const newNamespace = () => createTestNamespace(clientset.coreV1().namespaces(), 'mydemo-op');

describe('mydemo-operator against a real kube-apiserver', () => {
  it('converges after create, update and delete; recreates a deleted Deployment; serves metrics and probes', async () => {
    const app = startOperator();
    const namespace = await newNamespace();
    const mydemos = crddemoV1.mydemosClient(clientset, namespace);
    await mydemos.create(mydemoIn(namespace, 'web', 8080));
    await converged(namespace, 'web', 8080);

    await mydemos.patch('web', PatchType.MergePatch, { spec: { port: 9090 } });
    await converged(namespace, 'web', 9090);
    expect((await mydemos.get('web')).status?.observedGeneration).toBe(2);

    const deployments = clientset.appsV1().deployments(namespace);
    const uid = (await deployments.get('web')).metadata?.uid;
    await deployments.delete('web');
    await eventually(async () => {
      expect((await deployments.get('web')).metadata?.uid).not.toBe(uid);
    }, poll);
    await converged(namespace, 'web', 9090);

    const metrics = await (
      await fetch(`http://127.0.0.1:${await servedPort(app, 'metrics server')}/metrics`)
    ).text();
    expect(metrics).toMatch(
      /^controller_runtime_reconcile_total\{controller="mydemo",result="success"\} [1-9]\d*$/m,
    );
    expect(metrics).toMatch(/^workqueue_adds_total\{name="mydemo"\} [1-9]\d*$/m);
    const readyz = await fetch(`http://127.0.0.1:${await servedPort(app, 'health probes')}/readyz`);
    expect(readyz.status).toBe(200);

    await mydemos.delete('web');
    await goneWithItsWorld(namespace, 'web');

    // SIGTERM: a clean stop, exit status 0.
    expect(await app.stop('SIGTERM')).toBe(0);
    expect(app.output.count(/Stopped the Mydemo operator/)).toBe(1);
  });

  it('keeps converging after kube-apiserver is killed and restarted', async () => {
    startOperator();
    const namespace = await newNamespace();
    const mydemos = crddemoV1.mydemosClient(clientset, namespace);
    await mydemos.create(mydemoIn(namespace, 'before', 8080));
    await converged(namespace, 'before', 8080);

    await envtest().restartApiServer({ signal: 'SIGKILL' });

    // Changes made after the restart reach the operator through its re-established watches.
    await eventually(
      () => mydemos.patch('before', PatchType.MergePatch, { spec: { port: 8081 } }),
      poll,
    );
    await mydemos.create(mydemoIn(namespace, 'after', 8082));
    await converged(namespace, 'before', 8081);
    await converged(namespace, 'after', 8082);
    await mydemos.delete('before');
    await goneWithItsWorld(namespace, 'before');
  });

  it('with two replicas under leader election, exactly one reconciles; the other takes over when it is killed', async () => {
    const lease = 'mydemo-operator-e2e';
    // Short durations keep the takeover after a kill quick: lease 4 s, renew 3 s, retry 1 s.
    const election = `--leader-elect --leader-elect-resource-name=${lease}
      --leader-elect-lease-duration=4s --leader-elect-renew-deadline=3s
      --leader-elect-retry-period=1s`.split(/\s+/);
    const replicas = [startOperator(...election), startOperator(...election)];
    const becameLeader = /Became leader; starting controllers identity="([^"]+)"/;
    const leases = clientset.coordinationV1().leases('default');
    let leader: AppProcess | undefined;
    await eventually(() => {
      leader = replicas.find((r) => r.output.count(becameLeader) > 0);
      return leader !== undefined;
    }, poll);
    if (leader === undefined) throw new Error('no leader');
    const follower = replicas.find((r) => r !== leader) as AppProcess;
    const identity = becameLeader.exec(
      leader.output.lines[leader.output.indexOf(becameLeader)] ?? '',
    )?.[1];
    expect((await leases.get(lease)).spec?.holderIdentity).toBe(identity);

    const namespace = await newNamespace();
    const mydemos = crddemoV1.mydemosClient(clientset, namespace);
    await mydemos.create(mydemoIn(namespace, 'first', 8080));
    await converged(namespace, 'first', 8080);
    // Only the leader reconciled.
    expect(follower.output.count(becameLeader)).toBe(0);
    expect(follower.output.count(/Deployment created/)).toBe(0);
    expect(leader.output.count(/Deployment created .*name="first"/)).toBe(1);

    // Killed: no release. The follower takes over once the lease expired, and reconciles.
    expect(await leader.stop('SIGKILL')).toBeNull();
    await follower.waitFor(becameLeader, { timeoutMs: 90_000 });
    await mydemos.create(mydemoIn(namespace, 'second', 8081));
    await converged(namespace, 'second', 8081);
    expect(follower.output.count(/Deployment created .*name="second"/)).toBe(1);
    await mydemos.delete('first');
    await goneWithItsWorld(namespace, 'first');
    expect(await follower.stop('SIGTERM')).toBe(0);
  });
});
