import { isConflict, isNotFound, type ObjectMeta, type WatchEvent } from '@kubets/apimachinery';
import { loadConfig, PatchType } from '@kubets/rest';
import {
  createTestNamespace,
  deploymentOf,
  mydemoCrd,
  sleepingBusybox,
  statusErrorOf,
  useEnvtest,
} from '@kubets/test-utils';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { describe, expect, it } from 'vitest';
import { Clientset } from './clientset.js';
import { defineResource } from './descriptor.js';
import { isStatus } from './typed-client.js';

let clientset: Clientset;
let namespace: string;

function busyboxPod(name: string, labels: Record<string, string> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [sleepingBusybox] },
  };
}

function managersOf(meta: { managedFields?: ManagedFieldsEntry[] } | undefined): string[] {
  return (meta?.managedFields ?? []).map((entry) => `${entry.manager}/${entry.operation}`);
}

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: -1 });
  namespace = await createTestNamespace(clientset.coreV1().namespaces(), 'clientset-e2e');
});

describe('typed clientset against a real kube-apiserver', () => {
  it('runs a Pod through create/get/list/update/updateStatus/patch/delete', async () => {
    const pods = clientset.coreV1().pods(namespace);
    const created = await pods.create(busyboxPod('web', { app: 'web', tier: 'front' }));
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.status?.phase).toBe('Pending');
    await pods.create(busyboxPod('other', { app: 'other' }));

    const fetched = await pods.get('web');
    expect(fetched.metadata?.uid).toBe(created.metadata?.uid);
    expect(fetched.spec?.containers[0]?.image).toBe('busybox');

    const selected = await pods.list({ labelSelector: 'app=web' });
    expect(selected.items.map((pod) => pod.metadata?.name)).toEqual(['web']);
    expect(selected.metadata?.resourceVersion).toMatch(/^\d+$/);
    const everywhere = await clientset.coreV1().pods().list({ labelSelector: 'tier=front' });
    expect(
      everywhere.items.map((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`),
    ).toEqual([`${namespace}/web`]);

    const updated = await pods.update({
      ...fetched,
      metadata: { ...fetched.metadata, labels: { ...fetched.metadata?.labels, version: 'v2' } },
    });
    expect(updated.metadata?.labels?.version).toBe('v2');
    // The resourceVersion we updated from is stale now: optimistic concurrency says 409.
    expect(isConflict(await statusErrorOf(pods.update(fetched)))).toBe(true);

    const withStatus = await pods.updateStatus({
      ...updated,
      status: {
        ...updated.status,
        conditions: [{ type: 'Ready', status: 'False', reason: 'E2E', message: 'set by test' }],
      },
    });
    expect(withStatus.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('E2E');
    expect((await pods.getStatus('web')).status?.conditions?.[0]?.reason).toBe('E2E');

    const merged = await pods.patch('web', PatchType.MergePatch, {
      metadata: { annotations: { note: 'merge' } },
    });
    expect(merged.metadata?.annotations?.note).toBe('merge');
    const jsonPatched = await pods.patch('web', PatchType.JSONPatch, [
      { op: 'replace', path: '/metadata/annotations/note', value: 'json' },
    ]);
    expect(jsonPatched.metadata?.annotations?.note).toBe('json');
    const strategic = await pods.patch('web', PatchType.StrategicMergePatch, {
      metadata: { labels: { strategic: 'yes' } },
    });
    expect(strategic.metadata?.labels).toMatchObject({ app: 'web', strategic: 'yes' });

    const deleted = await pods.delete('web', {
      gracePeriodSeconds: 0,
      preconditions: { uid: created.metadata?.uid },
    });
    expect(isStatus(deleted) || (deleted as Pod).metadata?.name === 'web').toBe(true);
    expect(isNotFound(await statusErrorOf(pods.get('web')))).toBe(true);

    const wrongUid = await statusErrorOf(
      pods.delete('other', { preconditions: { uid: 'not-the-uid' } }),
    );
    expect(isConflict(wrongUid)).toBe(true);
  });

  it('runs a Deployment through create/get/update/scale/patch/delete with propagationPolicy', async () => {
    const deployments = clientset.appsV1().deployments(namespace);
    const created = await deployments.create(deploymentOf('api', 1));
    expect(created.spec?.replicas).toBe(1);

    const fetched = await deployments.get('api');
    const updated = await deployments.update({
      ...fetched,
      spec: { ...fetched.spec!, replicas: 2 },
    });
    expect(updated.spec?.replicas).toBe(2);

    const scale = await deployments.getScale('api');
    expect(scale.apiVersion).toBe('autoscaling/v1');
    expect(scale.kind).toBe('Scale');
    expect(scale.spec?.replicas).toBe(2);
    const rescaled = await deployments.updateScale('api', { ...scale, spec: { replicas: 3 } });
    expect(rescaled.spec?.replicas).toBe(3);
    expect((await deployments.get('api')).spec?.replicas).toBe(3);

    const patched = await deployments.patch('api', PatchType.MergePatch, {
      spec: { replicas: 4 },
    });
    expect(patched.spec?.replicas).toBe(4);
    const patchedScale = await deployments.patchScale('api', PatchType.MergePatch, {
      spec: { replicas: 5 },
    });
    expect(patchedScale.spec?.replicas).toBe(5);

    // No garbage collector runs in envtest, so foreground deletion leaves the Deployment
    // terminating with the foregroundDeletion finalizer: proof the DeleteOptions body arrived.
    const terminating = await deployments.delete('api', { propagationPolicy: 'Foreground' });
    expect(isStatus(terminating)).toBe(false);
    const meta = (terminating as Deployment).metadata;
    expect(meta?.deletionTimestamp).toBeTruthy();
    expect(meta?.finalizers).toContain('foregroundDeletion');
    // Play the garbage collector: dropping the finalizer completes the deletion.
    await deployments.patch('api', PatchType.MergePatch, { metadata: { finalizers: null } });
    expect(isNotFound(await statusErrorOf(deployments.get('api')))).toBe(true);

    await deployments.create(deploymentOf('orphaned', 1));
    const orphan = await deployments.delete('orphaned', { propagationPolicy: 'Orphan' });
    // Orphan propagation also goes through a finalizer the garbage collector would remove.
    expect((orphan as Deployment).metadata?.finalizers).toContain('orphan');
  });

  it('server-side apply: a second manager conflicts without force and takes ownership with force', async () => {
    const deployments = clientset.appsV1().deployments(namespace);
    const first = await deployments.apply(deploymentOf('applied', 1), { fieldManager: 'team-a' });
    expect(first.spec?.replicas).toBe(1);
    expect(managersOf(first.metadata)).toContain('team-a/Apply');

    const change = { metadata: { name: 'applied' }, spec: { replicas: 3 } };
    const conflict = await statusErrorOf(deployments.apply(change, { fieldManager: 'team-b' }));
    expect(conflict.code).toBe(409);
    expect(isConflict(conflict)).toBe(true);
    expect(conflict.message).toMatch(/conflict/i);
    expect(conflict.message).toContain('team-a');
    expect((await deployments.get('applied')).spec?.replicas).toBe(1);

    const forced = await deployments.apply(change, { fieldManager: 'team-b', force: true });
    expect(forced.spec?.replicas).toBe(3);
    const owners = (forced.metadata?.managedFields ?? []).filter((entry) =>
      JSON.stringify(entry.fieldsV1 ?? {}).includes('"f:replicas"'),
    );
    expect(owners.map((entry) => entry.manager)).toEqual(['team-b']);

    // Dry-run applies are validated but not stored.
    const dry = await deployments.apply(
      { metadata: { name: 'applied' }, spec: { replicas: 9 } },
      { fieldManager: 'team-b', dryRun: true },
    );
    expect(dry.spec?.replicas).toBe(9);
    expect((await deployments.get('applied')).spec?.replicas).toBe(3);
  });

  it('watch sees ADDED, MODIFIED and DELETED', async () => {
    const configMaps = clientset.coreV1().configMaps(namespace);
    const start = await configMaps.list({ labelSelector: 'watched=yes' });
    const controller = new AbortController();
    const watch = await configMaps.watch({
      labelSelector: 'watched=yes',
      resourceVersion: start.metadata?.resourceVersion,
      allowWatchBookmarks: true,
      signal: controller.signal,
    });
    const cm: ConfigMap = { metadata: { name: 'watched', labels: { watched: 'yes' } }, data: {} };
    const created = await configMaps.create(cm);
    await configMaps.update({ ...created, data: { a: '1' } });
    await configMaps.delete('watched');

    const seen: string[] = [];
    const timer = setTimeout(() => controller.abort(), 20_000);
    for await (const event of watch as AsyncIterable<WatchEvent<ConfigMap>>) {
      if (event.type === 'BOOKMARK') continue;
      if (event.type === 'ERROR') throw new Error(event.object.message);
      seen.push(
        `${event.type} ${event.object.metadata?.name} ${JSON.stringify(event.object.data ?? {})}`,
      );
      if (event.type === 'DELETED') break;
    }
    clearTimeout(timer);
    expect(seen).toEqual([
      'ADDED watched {}',
      'MODIFIED watched {"a":"1"}',
      'DELETED watched {"a":"1"}',
    ]);
  });

  it('deleteCollection deletes exactly what the label selector selects', async () => {
    const configMaps = clientset.coreV1().configMaps(namespace);
    for (const [name, group] of [
      ['batch-1', 'a'],
      ['batch-2', 'a'],
      ['batch-3', 'a'],
      ['keep', 'b'],
    ] as const) {
      await configMaps.create({ metadata: { name, labels: { batch: group } } });
    }
    await configMaps.deleteCollection({}, { labelSelector: 'batch=a' });
    const left = await configMaps.list({ labelSelector: 'batch' });
    expect(left.items.map((item) => item.metadata?.name)).toEqual(['keep']);
  });

  it('pods/log: without a kubelet the real server answers with what it has', async () => {
    // envtest runs no kubelet, so no log line can ever be read; this pins down what a real
    // 1.20 kube-apiserver answers instead. Reading and streaming logs is covered by the unit
    // tests in pod-log.test.ts, against @kubets/apiserver's in-memory API server, which serves
    // pods/log from logs the test writes (server.podLogs).
    const pods = clientset.coreV1().pods(namespace);
    await pods.create(busyboxPod('logs'));

    const missing = await statusErrorOf(pods.getLogText('no-such-pod'));
    expect(isNotFound(missing)).toBe(true);
    expect(missing.message).toBe('pods "no-such-pod" not found');

    // Not scheduled: the server has no kubelet to ask and answers 200 with an empty log,
    // also for follow (the stream ends at once).
    expect(await pods.getLogText('logs', { container: 'main' })).toBe('');
    const follow = await pods.getLog('logs', { follow: true });
    const chunks: unknown[] = [];
    for await (const chunk of follow) chunks.push(chunk);
    expect(chunks).toEqual([]);

    // Bound to a node that does not exist: the node lookup fails with 404 NotFound.
    const bound = busyboxPod('bound');
    await pods.create({ ...bound, spec: { ...bound.spec!, nodeName: 'ghost' } });
    const noNode = await statusErrorOf(pods.getLogText('bound', { container: 'main' }));
    expect(noNode.code).toBe(404);
    expect(noNode.message).toContain('"ghost" not found');

    const wrongContainer = await statusErrorOf(pods.getLogText('logs', { container: 'nope' }));
    expect(wrongContainer.code).toBe(400);
    expect(wrongContainer.reason).toBe('BadRequest');
    expect(wrongContainer.message).toBe('container nope is not valid for pod logs');
  });

  it('evicts a pod, picking the Eviction version the server serves', async () => {
    const pods = clientset.coreV1().pods(namespace);
    await pods.create(busyboxPod('evictee'));
    await pods.evict('evictee', { gracePeriodSeconds: 0 });
    expect(isNotFound(await statusErrorOf(pods.get('evictee')))).toBe(true);
  });

  it('serves the 1.20 beta groups: batch/v1beta1 CronJob, policy/v1beta1 PDB', async () => {
    const cronJobs = clientset.batchV1beta1().cronJobs(namespace);
    const cron = await cronJobs.create({
      metadata: { name: 'nightly' },
      spec: {
        schedule: '0 3 * * *',
        jobTemplate: {
          spec: {
            template: {
              spec: {
                restartPolicy: 'OnFailure',
                containers: [{ name: 'main', image: 'busybox', command: ['true'] }],
              },
            },
          },
        },
      },
    });
    expect(cron.apiVersion).toBe('batch/v1beta1');
    expect((await cronJobs.list()).items.map((item) => item.metadata?.name)).toEqual(['nightly']);

    const pdbs = clientset.policyV1beta1().podDisruptionBudgets(namespace);
    const pdb = await pdbs.create({
      metadata: { name: 'web' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    expect(pdb.spec?.minAvailable).toBe(1);
  });

  it('creates reviews and service account tokens', async () => {
    const review = await clientset
      .authorizationV1()
      .selfSubjectAccessReviews()
      .create({
        spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace } },
      });
    expect(review.status?.allowed).toBe(true);

    await clientset
      .coreV1()
      .serviceAccounts(namespace)
      .create({ metadata: { name: 'builder' } });
    const token = await clientset
      .coreV1()
      .serviceAccounts(namespace)
      .createToken('builder', {
        spec: { audiences: ['https://kubernetes.default.svc.cluster.local'] },
      });
    expect(token.status?.token.split('.')).toHaveLength(3);
  });

  it('gives a CRD a typed client from a descriptor alone', async () => {
    interface Mydemo {
      apiVersion?: string;
      kind?: string;
      metadata?: ObjectMeta;
      spec?: { ip?: string; port?: number };
      status?: { phase?: string };
    }
    const crds = clientset.apiextensionsV1().customResourceDefinitions();
    await crds.create(mydemoCrd);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const crd = await crds.get('mydemos.crddemo.k8s.io');
      const established = crd.status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      );
      if (established) break;
      if (Date.now() > deadline) throw new Error('CRD not established in time');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const mydemos = defineResource<Mydemo>({
      group: 'crddemo.k8s.io',
      version: 'v1',
      resource: 'mydemos',
      kind: 'Mydemo',
      namespaced: true,
      subresources: ['status'],
    });
    const demos = clientset.resource(mydemos, namespace);
    // A freshly established CRD can take a moment to be served.
    let created: Mydemo | undefined;
    while (!created) {
      try {
        // No apiVersion or kind: the client fills them in from the descriptor.
        created = await demos.create({
          metadata: { name: 'example-mydemo' },
          spec: { ip: '10.0.0.1', port: 80 },
        });
      } catch (err) {
        if (!isNotFound(err) || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    expect(created.spec?.port).toBe(80);
    const status = await demos.updateStatus({ ...created, status: { phase: 'Synced' } });
    expect(status.status?.phase).toBe('Synced');
    const applied = await demos.apply(
      { metadata: { name: 'example-mydemo' }, spec: { port: 8080 } },
      { fieldManager: 'crd-e2e', force: true },
    );
    expect(applied.spec).toEqual({ ip: '10.0.0.1', port: 8080 });
    const list = await demos.list();
    expect(list.items.map((item) => item.spec?.port)).toEqual([8080]);
    await demos.delete('example-mydemo');
    expect((await demos.list()).items).toEqual([]);
  });
});
