import { isNotFound, type WatchEvent } from '@kubets/apimachinery';
import { loadConfig, PatchType } from '@kubets/rest';
import { createTestNamespace, useEnvtest, widgetCrd } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  DynamicClient,
  nestedInt64,
  nestedSlice,
  nestedString,
  toTypedList,
  type Unstructured,
} from './index.js';

const crdGVR = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
};
const widgetsGVR = { group: 'e2e.kubets.dev', version: 'v1', resource: 'widgets' };
const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };

let dynamic: DynamicClient;
let namespace: string;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isEstablished(crd: Unstructured): boolean {
  const conditions = (nestedSlice(crd, 'status', 'conditions') ?? []) as {
    type?: string;
    status?: string;
  }[];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

function widget(name: string, size: number, labels: Record<string, string> = {}): Unstructured {
  return {
    apiVersion: 'e2e.kubets.dev/v1',
    kind: 'Widget',
    metadata: { name, labels },
    spec: { size, color: 'red' },
  };
}

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  dynamic = new DynamicClient({ ...loadConfig({ kubeconfig }), qps: 50, burst: 100 });
  namespace = await createTestNamespace(dynamic.resource(namespacesGVR), 'dynamic-e2e');
});

describe('DynamicClient against a real kube-apiserver', () => {
  it('creates a CRD and drives its custom objects through create, list, watch, patch, apply and delete', async () => {
    const crds = dynamic.resource(crdGVR);
    const created = await crds.create(widgetCrd);
    expect(created.kind).toBe('CustomResourceDefinition');

    // Wait until the API server says the CRD is Established (polls its status conditions).
    let crd = created;
    for (let attempt = 0; attempt < 300 && !isEstablished(crd); attempt++) {
      await sleep(100);
      crd = await crds.get('widgets.e2e.kubets.dev');
    }
    expect(isEstablished(crd)).toBe(true);

    const widgets = dynamic.resource(widgetsGVR).namespace(namespace);
    // Established can precede the handler serving the new group by a moment.
    for (let attempt = 0; ; attempt++) {
      try {
        await widgets.list();
        break;
      } catch (err) {
        if (!isNotFound(err) || attempt >= 100) throw err;
        await sleep(100);
      }
    }

    const w1 = await widgets.create(widget('w1', 1, { app: 'demo' }));
    expect(w1.metadata.uid).toBeTruthy();
    expect(nestedInt64(w1, 'spec', 'size')).toBe(1);
    const w2 = await widgets.create(widget('w2', 2, { app: 'demo' }));
    // No apiVersion or kind: the client fills them in from the GVR and the kind it was given.
    const { apiVersion: _, kind: __, ...bare } = widget('other', 9, { app: 'else' });
    const other = await dynamic
      .resource(widgetsGVR, { kind: 'Widget' })
      .namespace(namespace)
      .create(bare);
    expect(other.kind).toBe('Widget');

    const demo = await widgets.list({ labelSelector: 'app=demo' });
    expect(demo.kind).toBe('WidgetList');
    expect(demo.items.map((w) => w.metadata.name).sort()).toEqual(['w1', 'w2']);
    for (const item of demo.items) {
      expect(item.apiVersion).toBe('e2e.kubets.dev/v1');
      expect(item.kind).toBe('Widget');
    }

    const page = await widgets.list({ limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.metadata.continue).toBeTruthy();
    const rest = await widgets.list({ limit: 2, continue: page.metadata.continue });
    expect(rest.items).toHaveLength(1);

    // Watch from the list's resourceVersion, then change things and see the events.
    const controller = new AbortController();
    const watch = await widgets.watch({
      resourceVersion: demo.metadata.resourceVersion,
      labelSelector: 'app=demo',
      signal: controller.signal,
    });
    const events: WatchEvent<Unstructured>[] = [];
    const seen = (async () => {
      for await (const event of watch) {
        events.push(event);
        if (event.type === 'DELETED') break;
      }
    })();
    const timer = setTimeout(
      () => controller.abort(new Error('no DELETED event within 60 s')),
      60_000,
    );

    const patched = await widgets.patch('w1', PatchType.MergePatch, { spec: { size: 10 } });
    expect(nestedInt64(patched, 'spec', 'size')).toBe(10);
    expect(nestedString(patched, 'spec', 'color')).toBe('red');

    const applied = await widgets.apply(
      'w1',
      {
        apiVersion: 'e2e.kubets.dev/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { shape: 'round' },
      },
      { fieldManager: 'kubets-e2e', force: true },
    );
    expect(nestedString(applied, 'spec', 'shape')).toBe('round');
    expect(applied.metadata.managedFields?.some((m) => m.manager === 'kubets-e2e')).toBe(true);

    const current = await widgets.get('w1');
    setSize(current, 11);
    const updated = await widgets.update(current, { fieldManager: 'kubets-e2e-update' });
    expect(nestedInt64(updated, 'spec', 'size')).toBe(11);

    // Background: no garbage collector runs here to finish a Foreground deletion.
    await widgets.delete('w2', {
      propagationPolicy: 'Background',
      preconditions: { uid: w2.metadata.uid },
      gracePeriodSeconds: 0,
    });
    await seen;
    clearTimeout(timer);
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    const deleted = events.at(-1);
    expect(deleted?.type === 'DELETED' && deleted.object.metadata.name).toBe('w2');
    expect(deleted?.type === 'DELETED' && deleted.object.kind).toBe('Widget');

    // A precondition that does not hold is refused by the server.
    await expect(widgets.delete('w1', { preconditions: { uid: 'not-the-uid' } })).rejects.toThrow();

    await widgets.deleteCollection({}, { labelSelector: 'app=demo' });
    await expect(widgets.get('w1')).rejects.toSatisfy(isNotFound);
    expect((await widgets.list()).items.map((w) => w.metadata.name)).toEqual(['other']);
  });

  it('converts an unstructured Pod list into typed Pods', async () => {
    const pods = dynamic.resource(podsGVR).namespace(namespace);
    for (const name of ['pod-a', 'pod-b']) {
      await pods.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, labels: { app: 'typed' } },
        spec: { containers: [{ name: 'main', image: 'busybox', command: ['sleep', '3600'] }] },
      });
    }
    const list = await pods.list({ labelSelector: 'app=typed' });
    expect(list.kind).toBe('PodList');

    interface Pod {
      apiVersion: 'v1';
      kind: 'Pod';
      metadata: { name: string; namespace: string; uid: string };
      spec: { containers: { name: string; image: string }[] };
      status: { phase: string };
    }
    const typed = toTypedList<Pod>(list, { apiVersion: 'v1', kind: 'Pod' });
    expect(
      typed.items.map(
        (p) =>
          `${p.metadata.namespace}/${p.metadata.name} ${p.spec.containers[0]?.image} ${p.status.phase}`,
      ),
    ).toEqual([`${namespace}/pod-a busybox Pending`, `${namespace}/pod-b busybox Pending`]);

    expect(() => toTypedList<Pod>(list, { apiVersion: 'apps/v1', kind: 'Deployment' })).toThrow(
      'kind is "PodList", expected "DeploymentList"',
    );
  });
});

function setSize(obj: Unstructured, size: number): void {
  (obj.spec as { size: number }).size = size;
}
