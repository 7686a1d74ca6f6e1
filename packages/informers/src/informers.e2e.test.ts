// Seed 001's example 1 against a real etcd + kube-apiserver (envtest): a shared informer
// factory with a 60 s resync, the Deployment informer with add/update/delete handlers, and
// its lister listing `default`.

import { randomUUID } from 'node:crypto';
import { type DeletedFinalStateUnknown, deletedObject } from '@kubets/cache';
import { type appsv1, Clientset, type corev1 } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import {
  createTestNamespace,
  deploymentOf,
  eventually,
  recordHandlerEvents,
  uniqueNames,
  useEnvtest,
} from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { newSharedInformerFactory } from './index.js';

let clientset: Clientset;

useEnvtest(({ kubeconfigPath: kubeconfig }) => {
  clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: 50, burst: 100 });
});

describe('SharedInformerFactory against a real kube-apiserver', () => {
  it("runs seed 001's example 1: Deployments through the factory, handlers and the lister", async () => {
    const { names } = uniqueNames('web', 'api', 'db');
    for (const [i, name] of names.entries()) {
      await clientset
        .appsV1()
        .deployments('default')
        .create(deploymentOf(name, i + 1, { labels: { suite: 'informers-e2e' } }));
    }

    const factory = newSharedInformerFactory(clientset, 60_000);
    const deployInformer = factory.appsV1().deployments();
    const informer = deployInformer.informer();
    const deployLister = deployInformer.lister();
    const { added, updated, deleted, handler } = recordHandlerEvents({
      added: (d: appsv1.Deployment) => d.metadata?.name ?? '',
      replicas: (d) => d.spec?.replicas,
      deletedName: (d: appsv1.Deployment | DeletedFinalStateUnknown<appsv1.Deployment>) =>
        deletedObject(d)?.metadata?.name ?? '',
    });
    informer.addEventHandler(handler);

    const controller = new AbortController();
    try {
      factory.start(controller.signal);
      const synced = await factory.waitForCacheSync(controller.signal);
      expect(synced).toEqual(new Map([['apps/v1/deployments', true]]));

      // From the local cache: every deployment in `default`.
      const inDefault = deployLister.byNamespace('default').list();
      expect(inDefault.map((d) => d.metadata?.name).sort()).toEqual([...names].sort());
      expect(deployLister.byNamespace('default').list('suite=informers-e2e')).toHaveLength(3);
      expect(deployLister.byNamespace('default').get(names[1]!).spec?.replicas).toBe(2);
      await eventually(() => added.length >= 3, {
        what: 'three adds',
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      expect([...added].sort()).toEqual([...names].sort());

      // Update one → update handler.
      const current = await clientset.appsV1().deployments('default').get(names[0]!);
      await clientset
        .appsV1()
        .deployments('default')
        .update({ ...current, spec: { ...current.spec!, replicas: 5 } });
      await eventually(() => updated.length >= 1, {
        what: 'the update',
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      expect(updated).toEqual([`${names[0]} 1->5`]);
      expect(deployLister.byNamespace('default').get(names[0]!).spec?.replicas).toBe(5);

      // Delete one → delete handler.
      await clientset.appsV1().deployments('default').delete(names[2]!);
      await eventually(() => deleted.length >= 1, {
        what: 'the delete',
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      expect(deleted).toEqual([names[2]]);
      expect(
        deployLister
          .byNamespace('default')
          .list('suite=informers-e2e')
          .map((d) => d.metadata?.name)
          .sort(),
      ).toEqual([names[1], names[0]].sort());
    } finally {
      controller.abort();
      await factory.shutdown();
    }
    expect(informer.isStopped()).toBe(true);
  });

  it('starts Pods and ConfigMaps informers of one factory together, limited to a namespace', async () => {
    const namespace = await createTestNamespace(clientset.coreV1().namespaces(), 'informers-e2e');
    await clientset
      .coreV1()
      .configMaps(namespace)
      .create({ metadata: { name: 'settings' }, data: { color: 'blue' } });
    const pod: corev1.Pod = {
      metadata: { name: 'worker', labels: { role: 'worker' } },
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    };
    await clientset.coreV1().pods(namespace).create(pod);
    // Outside the factory's namespace: must not show up.
    await clientset
      .coreV1()
      .configMaps('default')
      .create({ metadata: { name: `elsewhere-${randomUUID().slice(0, 6)}` } });

    const factory = newSharedInformerFactory(clientset, {
      defaultResyncMs: 60_000,
      namespace,
      transform: (obj) => {
        const o = obj as { metadata?: { managedFields?: unknown } };
        if (o.metadata) delete o.metadata.managedFields;
        return o;
      },
    });
    const pods = factory.coreV1().pods();
    const configMaps = factory.coreV1().configMaps();
    pods.informer();
    configMaps.informer();
    expect(factory.coreV1().pods().informer()).toBe(pods.informer());

    const controller = new AbortController();
    try {
      factory.start(controller.signal); // one start for both
      const synced = await factory.waitForCacheSync(controller.signal);
      expect(Object.fromEntries(synced)).toEqual({ 'v1/pods': true, 'v1/configmaps': true });

      expect(
        pods
          .lister()
          .list('role=worker')
          .map((p) => p.metadata?.name),
      ).toEqual(['worker']);
      const settings = configMaps.lister().byNamespace(namespace).get('settings');
      expect(settings.data).toEqual({ color: 'blue' });
      expect(settings.metadata?.managedFields).toBeUndefined();
      expect(
        configMaps
          .lister()
          .list()
          .every((c) => c.metadata?.namespace === namespace),
      ).toBe(true);

      // Both informers keep watching after the shared start.
      await clientset
        .coreV1()
        .configMaps(namespace)
        .create({ metadata: { name: 'later' } });
      await eventually(
        () => {
          try {
            configMaps.lister().byNamespace(namespace).get('later');
            return true;
          } catch {
            return false;
          }
        },
        { what: 'the new ConfigMap', timeoutMs: 60_000, intervalMs: 20 },
      );
    } finally {
      controller.abort();
      await factory.shutdown();
    }
  });
});
