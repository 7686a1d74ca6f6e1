// Seed 001's example 2 against a real etcd + kube-apiserver (envtest): a dynamic shared
// informer factory, `forResource(gvr)` for Deployments, handlers that see Unstructured
// objects, and the dynamic lister.

import { type DeletedFinalStateUnknown, deletedObject } from '@kubets/cache';
import { loadConfig } from '@kubets/rest';
import {
  createTestNamespace,
  deploymentOf,
  eventually,
  recordHandlerEvents,
  selectingLabels,
  uniqueNames,
  useEnvtest,
} from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  DynamicClient,
  isUnstructured,
  nestedInt64,
  newDynamicSharedInformerFactory,
  newFilteredDynamicSharedInformerFactory,
  type Unstructured,
} from './index.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const suiteLabel = { labels: { suite: 'dynamic-informer-e2e' } };

let dynamic: DynamicClient;

useEnvtest(({ kubeconfigPath: kubeconfig }) => {
  dynamic = new DynamicClient({ ...loadConfig({ kubeconfig }), qps: 50, burst: 100 });
});

describe('DynamicSharedInformerFactory against a real kube-apiserver', () => {
  it("runs seed 001's example 2: forResource(deployments) with handlers on Unstructured objects and a lister", async () => {
    const { names, suffix } = uniqueNames('web', 'api');
    const deployments = dynamic.resource(deploymentsGVR).namespace('default');
    for (const name of names) await deployments.create(deploymentOf(name, 1, suiteLabel));

    const factory = newDynamicSharedInformerFactory(dynamic, 60_000);
    const informerListerForGvr = factory.forResource(deploymentsGVR);
    const informer = informerListerForGvr.informer();
    const deployLister = informerListerForGvr.lister();
    const { added, updated, deleted, handler } = recordHandlerEvents({
      added: (obj: Unstructured) => obj,
      replicas: (obj) => nestedInt64(obj, 'spec', 'replicas'),
      deletedName: (obj: Unstructured | DeletedFinalStateUnknown<Unstructured>) =>
        deletedObject(obj)?.metadata.name ?? '',
    });
    informer.addEventHandler(handler);

    const controller = new AbortController();
    try {
      factory.start(controller.signal);
      expect(await factory.waitForCacheSync(controller.signal)).toEqual(
        new Map([['apps/v1/deployments', true]]),
      );
      const listed = deployLister.byNamespace('default').list('suite=dynamic-informer-e2e');
      expect(listed.map((d) => d.metadata.name).sort()).toEqual([...names].sort());
      await eventually(() => added.length >= 2, {
        what: 'the initial adds',
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      for (const obj of added) {
        expect(isUnstructured(obj)).toBe(true);
        expect(obj.apiVersion).toBe('apps/v1');
        expect(obj.kind).toBe('Deployment');
      }

      // A watch event: created after sync.
      const late = `late-${suffix}`;
      await deployments.create(deploymentOf(late, 1, suiteLabel));
      await eventually(() => added.some((o) => o.metadata.name === late), {
        what: 'the late add',
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      const lateObj = added.find((o) => o.metadata.name === late)!;
      expect(lateObj.kind).toBe('Deployment');

      const current = await deployments.get(names[0]!);
      await deployments.update({
        ...current,
        spec: { ...(current.spec as Record<string, unknown>), replicas: 4 },
      });
      await eventually(() => updated.length >= 1, {
        what: 'the update',
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      expect(updated).toEqual([`${names[0]} 1->4`]);
      expect(
        nestedInt64(deployLister.byNamespace('default').get(names[0]!), 'spec', 'replicas'),
      ).toBe(4);

      await deployments.delete(names[1]!);
      await eventually(() => deleted.length >= 1, {
        what: 'the delete',
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      expect(deleted).toEqual([names[1]]);
      expect(() => deployLister.byNamespace('default').get(names[1]!)).toThrow(/not found/);
    } finally {
      controller.abort();
      await factory.shutdown();
    }
  });

  it('a filtered factory sees only its namespace and label selector', async () => {
    const namespace = await createTestNamespace(dynamic.resource(namespacesGVR), 'dyn-inf-e2e');
    const configMaps = dynamic.resource({ group: '', version: 'v1', resource: 'configmaps' });
    const cm = (name: string, labels: Record<string, string>): Unstructured => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels },
      data: { name },
    });
    await configMaps.namespace(namespace).create(cm('picked', { pick: 'yes' }));
    await configMaps.namespace(namespace).create(cm('skipped', { pick: 'no' }));
    await configMaps.namespace('default').create(cm(`other-${namespace}`, { pick: 'yes' }));

    const pickYes = selectingLabels('pick=yes');
    const factory = newFilteredDynamicSharedInformerFactory(dynamic, 0, namespace, pickYes);
    const cms = factory.forResource('v1/configmaps');
    cms.informer();
    const controller = new AbortController();
    try {
      factory.start(controller.signal);
      expect(await factory.waitForCacheSync(controller.signal)).toEqual(
        new Map([['v1/configmaps', true]]),
      );
      expect(
        cms
          .lister()
          .list()
          .map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ).toEqual([`${namespace}/picked`]);
    } finally {
      controller.abort();
      await factory.shutdown();
    }
  });
});
