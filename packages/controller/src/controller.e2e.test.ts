// A small controller on a real kube-apiserver: every ConfigMap gets a Secret mirroring its
// data, owned by it; the controller converges after creates, updates and deletes of the
// ConfigMap, and puts back a Secret someone else changed or deleted. envtest runs no garbage
// collector, so the controller deletes the Secret of a deleted ConfigMap itself.
import { coreV1Resources, type corev1 } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import {
  configMapOf,
  createTestNamespace,
  eventually,
  mydemoCrd,
  useEnvtest,
} from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  controller,
  createOrUpdate,
  Manager,
  serverSideApply,
  setControllerReference,
  waitForCacheDeletion,
  waitForCacheWrite,
} from './index.js';

let mgr: Manager;
let namespace: string;
const stop = new AbortController();
let running: Promise<void> | undefined;

const encoded = (data: Record<string, string>) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));

useEnvtest(
  async ({ kubeconfigPath: kubeconfig }) => {
    const config = { ...loadConfig({ kubeconfig }), qps: -1, timeoutMs: 10_000 };
    const setup = new Manager(config);
    namespace = await createTestNamespace(setup.clientset.coreV1().namespaces(), 'ctl-e2e');
    // Listed, not watched: the API server leaves apiVersion and kind out of list items, and
    // the Secret's owner reference needs them.
    await setup.clientset
      .coreV1()
      .configMaps(namespace)
      .create(configMapOf('before-start', { listed: 'yes' }));
    mgr = new Manager(config, { namespace });
    const secrets = mgr.clientset.coreV1().secrets(namespace);
    controller(mgr)
      .for(coreV1Resources.configMaps)
      .owns(coreV1Resources.secrets)
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete(async ({ name }, ctx) => {
        const cm = ctx.cached();
        if (cm === undefined) {
          await secrets.delete(name).catch(() => {});
          return;
        }
        const secret: corev1.Secret = { metadata: { name, namespace } };
        const result = await createOrUpdate(secrets, secret, (s) => {
          s.data = encoded(cm.data ?? {});
          setControllerReference(cm, s);
        });
        if (result !== 'unchanged')
          ctx.recorder.event(cm, 'Normal', 'Mirrored', `Secret ${result}`);
      });
    running = mgr.start(stop.signal);
  },
  async () => {
    stop.abort();
    await running;
  },
);

describe('a controller on kube-apiserver', () => {
  it('reconciles an object that existed before it started, as an owner with its kind', async () => {
    const secrets = mgr.clientset.coreV1().secrets(namespace);
    await eventually(async () =>
      expect((await secrets.get('before-start')).data).toEqual(encoded({ listed: 'yes' })),
    );
    expect((await secrets.get('before-start')).metadata?.ownerReferences).toMatchObject([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'before-start', controller: true },
    ]);
  });

  it('converges after create, update and delete', async () => {
    const configMaps = mgr.clientset.coreV1().configMaps(namespace);
    const secrets = mgr.clientset.coreV1().secrets(namespace);
    const secretData = async (name: string) => (await secrets.get(name)).data;

    await configMaps.create(configMapOf('app', { mode: 'on' }));
    await eventually(async () => expect(await secretData('app')).toEqual(encoded({ mode: 'on' })));
    const owner = await configMaps.get('app');
    // The controller's recorder: an Event about the ConfigMap, from the controller.
    const events = mgr.clientset.coreV1().events(namespace);
    await eventually(async () =>
      expect((await events.list()).items).toContainEqual(
        expect.objectContaining({
          reason: 'Mirrored',
          message: 'Secret created',
          source: { component: 'configmap' },
          involvedObject: expect.objectContaining({
            kind: 'ConfigMap',
            name: 'app',
            uid: owner.metadata?.uid,
          }),
        }),
      ),
    );
    expect((await secrets.get('app')).metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'app',
        uid: owner.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);

    await configMaps.update({ ...owner, data: { mode: 'off', extra: 'x' } });
    await eventually(async () =>
      expect(await secretData('app')).toEqual(encoded({ mode: 'off', extra: 'x' })),
    );

    // Owned objects changed or deleted by someone else are put right (owns).
    await secrets.update({ ...(await secrets.get('app')), data: encoded({ mode: 'tampered' }) });
    await eventually(async () =>
      expect(await secretData('app')).toEqual(encoded({ mode: 'off', extra: 'x' })),
    );
    await secrets.delete('app');
    await eventually(async () =>
      expect(await secretData('app')).toEqual(encoded({ mode: 'off', extra: 'x' })),
    );

    await configMaps.delete('app');
    await eventually(async () => {
      const names = (await secrets.list()).items.map((s) => s.metadata?.name);
      expect(names).not.toContain('app');
    });
  });
});

describe('apply and read-your-writes on kube-apiserver', () => {
  it('serverSideApply owns its fields, forces them back, and applies an object read back', async () => {
    const configMaps = mgr.clientset.coreV1().configMaps(namespace);
    const desired = { metadata: { name: 'applied', namespace }, data: { mode: 'on' } };
    const applied = await serverSideApply(configMaps, desired, { fieldManager: 'ctl-e2e' });
    expect(applied.metadata?.managedFields?.map((f) => f.manager)).toEqual(['ctl-e2e']);
    await configMaps.apply(
      { metadata: { name: 'applied' }, data: { mode: 'off' } },
      { fieldManager: 'someone-else', force: true },
    );
    await expect(
      serverSideApply(configMaps, desired, { fieldManager: 'ctl-e2e', force: false }),
    ).rejects.toMatchObject({ code: 409 });
    const readBack = await serverSideApply(configMaps, desired, { fieldManager: 'ctl-e2e' });
    expect(readBack.data).toEqual({ mode: 'on' });
    // What the server returned, managedFields and all: the typed client's apply is refused,
    // the helper leaves managedFields out.
    await expect(
      configMaps.apply({ ...readBack }, { fieldManager: 'ctl-e2e', force: true }),
    ).rejects.toThrow(/managedFields/);
    const again = await serverSideApply(
      configMaps,
      { ...readBack, data: { mode: 'on', more: 'x' } },
      { fieldManager: 'ctl-e2e' },
    );
    expect(again.data).toEqual({ mode: 'on', more: 'x' });
  });

  it("waitForCacheWrite and waitForCacheDeletion: the manager's cache holds what was written", async () => {
    const configMaps = mgr.clientset.coreV1().configMaps(namespace);
    const cache = mgr.informers.forResource(coreV1Resources.configMaps);
    const created = await configMaps.create(configMapOf('ryw', { v: '0' }));
    for (const v of ['1', '2', '3']) {
      const written = await configMaps.update({ ...(await configMaps.get('ryw')), data: { v } });
      await waitForCacheWrite(cache.informer(), written, { timeoutMs: 30_000 });
      expect(cache.lister().byNamespace(namespace).get('ryw').data).toEqual({ v });
    }
    await configMaps.delete('ryw');
    await waitForCacheDeletion(cache.informer(), created, { timeoutMs: 30_000 });
    expect(() => cache.lister().byNamespace(namespace).get('ryw')).toThrow(/not found/);
  });
});

describe('a controller of a custom resource known only by group/version/resource', () => {
  it('reconciles Mydemos through the dynamic informers and puts back their owned ConfigMaps', async () => {
    const mydemos = { group: 'crddemo.k8s.io', version: 'v1', resource: 'mydemos' };
    await mgr.clientset.apiextensionsV1().customResourceDefinitions().create(mydemoCrd);
    const demos = mgr.dynamicClient.resource(mydemos).namespace(namespace);
    await eventually(() => demos.list()); // served once the CRD is established
    const dynamicMgr = new Manager(mgr.config, { namespace });
    controller(dynamicMgr)
      .for('crddemo.k8s.io/v1/mydemos')
      .owns(coreV1Resources.configMaps)
      .complete(async ({ name }, ctx) => {
        const demo = ctx.cached();
        if (demo === undefined) return;
        const cm: corev1.ConfigMap = { metadata: { name: `${name}-endpoint`, namespace } };
        await createOrUpdate(dynamicMgr.clientset.coreV1().configMaps(namespace), cm, (c) => {
          const spec = demo.spec as { ip: string; port: number };
          c.data = { endpoint: `${spec.ip}:${spec.port}` };
          setControllerReference(demo, c);
        });
      });
    const stopDynamic = new AbortController();
    const runningDynamic = dynamicMgr.start(stopDynamic.signal);
    try {
      const demo = await demos.create({
        apiVersion: 'crddemo.k8s.io/v1',
        kind: 'Mydemo',
        metadata: { name: 'example-mydemo', namespace },
        spec: { ip: '10.0.0.1', port: 80 },
      });
      const configMaps = mgr.clientset.coreV1().configMaps(namespace);
      const endpoint = async () => (await configMaps.get('example-mydemo-endpoint')).data;
      await eventually(async () => expect(await endpoint()).toEqual({ endpoint: '10.0.0.1:80' }));
      expect(
        (await configMaps.get('example-mydemo-endpoint')).metadata?.ownerReferences,
      ).toMatchObject([{ kind: 'Mydemo', uid: demo.metadata.uid, controller: true }]);

      await demos.update({
        ...(await demos.get('example-mydemo')),
        spec: { ip: '10.0.0.1', port: 8080 },
      });
      await eventually(async () => expect(await endpoint()).toEqual({ endpoint: '10.0.0.1:8080' }));
      // Deleted by someone else: mapped back to its Mydemo by uid, and put back.
      await configMaps.delete('example-mydemo-endpoint');
      await eventually(async () => expect(await endpoint()).toEqual({ endpoint: '10.0.0.1:8080' }));
    } finally {
      stopDynamic.abort();
      await runningDynamic;
    }
  });
});
