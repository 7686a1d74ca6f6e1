import { isNotFound } from '@kubets/apimachinery';
import { isDeletedFinalStateUnknown, newIndexer, waitForCacheSync } from '@kubets/cache';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeApiServer, startFakeApiServer } from './fake-api-server.js';
import {
  DynamicClient,
  type DynamicSharedInformerFactory,
  dynamicInformerKey,
  newDynamicLister,
  newDynamicSharedInformerFactory,
  newDynamicSharedInformerFactoryWithOptions,
  newFilteredDynamicInformer,
  newFilteredDynamicSharedInformerFactory,
  type Unstructured,
} from './index.js';

let server: FakeApiServer;
let dynamic: DynamicClient;
let controller: AbortController;
const factories: DynamicSharedInformerFactory[] = [];

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };

function track(factory: DynamicSharedInformerFactory): DynamicSharedInformerFactory {
  factories.push(factory);
  return factory;
}

// As a server lists them: items without apiVersion/kind.
function listed(namespace: string, name: string, labels: Record<string, string> = {}) {
  return { metadata: { namespace, name, labels, resourceVersion: '1' }, spec: { replicas: 1 } };
}

beforeEach(async () => {
  server = await startFakeApiServer();
  dynamic = new DynamicClient({ host: server.url, qps: -1 });
  controller = new AbortController();
});

afterEach(async () => {
  controller.abort();
  await Promise.all(factories.splice(0).map((f) => f.shutdown()));
  await server.close();
});

describe('DynamicSharedInformerFactory', () => {
  it('hands out one informer per group/version/resource, from objects or strings', () => {
    const factory = track(newDynamicSharedInformerFactory(dynamic, 60_000));
    const informer = factory.forResource(deploymentsGVR).informer();
    expect(factory.forResource(deploymentsGVR).informer()).toBe(informer);
    expect(factory.forResource('apps/v1/deployments').informer()).toBe(informer);
    expect(factory.forResource('deployments.v1.apps').informer()).toBe(informer);
    expect(factory.forResource('v1/pods').informer()).not.toBe(informer);
    expect(Object.keys(informer.getIndexer().getIndexers())).toEqual(['namespace']);
    expect(dynamicInformerKey({ group: '', version: 'v1', resource: 'pods' })).toBe('v1/pods');
  });

  it('lists through the REST client, fills in type meta, syncs and serves the lister', async () => {
    const path = '/apis/apps/v1/deployments';
    server.setList(path, 'Deployment', 'apps/v1', [
      listed('default', 'web', { app: 'web' }),
      listed('default', 'db'),
      listed('other', 'web'),
    ]);
    const factory = track(newDynamicSharedInformerFactory(dynamic, 0));
    const deployments = factory.forResource(deploymentsGVR);
    const adds: Unstructured[] = [];
    const deletes: string[] = [];
    let notify: () => void = () => {};
    deployments.informer().addEventHandler({
      onAdd: (obj) => {
        adds.push(obj);
        notify();
      },
      onDelete: (obj) => {
        deletes.push(isDeletedFinalStateUnknown(obj) ? obj.key : (obj.metadata.name ?? ''));
        notify();
      },
    });
    factory.start(controller.signal);
    expect(await factory.waitForCacheSync(controller.signal)).toEqual(
      new Map([['apps/v1/deployments', true]]),
    );
    await new Promise<void>((resolve) => {
      notify = () => adds.length >= 3 && resolve();
      notify();
    });
    for (const obj of adds) {
      expect(obj.apiVersion).toBe('apps/v1');
      expect(obj.kind).toBe('Deployment');
    }
    const lister = deployments.lister();
    expect(lister.list()).toHaveLength(3);
    expect(
      lister
        .byNamespace('default')
        .list('app=web')
        .map((o) => o.metadata.name),
    ).toEqual(['web']);
    expect(() => lister.byNamespace('default').get('nope')).toThrow(
      'deployments.apps "nope" not found',
    );

    await server.watching(path);
    server.emit(path, 'DELETED', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { namespace: 'default', name: 'db', resourceVersion: '101' },
    });
    await new Promise<void>((resolve) => {
      notify = () => deletes.length >= 1 && resolve();
      notify();
    });
    expect(deletes).toEqual(['db']);
    expect(lister.byNamespace('default').list()).toHaveLength(1);
  });

  it('a filtered factory limits every informer to its namespace and list options', async () => {
    server.setList('/apis/apps/v1/namespaces/team/deployments', 'Deployment', 'apps/v1', []);
    const factory = track(
      newFilteredDynamicSharedInformerFactory(dynamic, 0, 'team', (options) => {
        options.labelSelector = 'tier=web';
      }),
    );
    expect(factory.namespace).toBe('team');
    factory.forResource(deploymentsGVR).informer();
    factory.start(controller.signal);
    await factory.waitForCacheSync(controller.signal);
    await server.watching('/apis/apps/v1/namespaces/team/deployments');
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of server.requests) {
      expect(request.path).toBe('/apis/apps/v1/namespaces/team/deployments');
      expect(request.query.get('labelSelector')).toBe('tier=web');
    }
  });

  it('waitForCacheSync reports informers not synced when the signal aborts', async () => {
    // No collection set: every list fails with 404, so the informer never syncs.
    const factory = track(
      newDynamicSharedInformerFactoryWithOptions(dynamic, {
        defaultResyncMs: 0,
        customResync: { 'v1/pods': 1000 },
      }),
    );
    factory.forResource('v1/pods').informer();
    factory.start(controller.signal);
    const waiting = new AbortController();
    const result = factory.waitForCacheSync(waiting.signal);
    waiting.abort();
    expect(await result).toEqual(new Map([['v1/pods', false]]));
  });

  it('newFilteredDynamicInformer runs on its own', async () => {
    server.setList('/api/v1/namespaces/ns1/configmaps', 'ConfigMap', 'v1', [
      { metadata: { namespace: 'ns1', name: 'cm' }, data: { a: '1' } },
    ]);
    const { informer, lister } = newFilteredDynamicInformer(
      dynamic,
      { group: '', version: 'v1', resource: 'configmaps' },
      'ns1',
      0,
    );
    const done = informer().run(controller.signal);
    expect(await waitForCacheSync(controller.signal, () => informer().hasSynced())).toBe(true);
    const cm = lister().byNamespace('ns1').get('cm');
    expect(cm.kind).toBe('ConfigMap');
    expect(cm.apiVersion).toBe('v1');
    expect(cm.data).toEqual({ a: '1' });
    controller.abort();
    await done;
  });
});

describe('newDynamicLister', () => {
  it('lists, gets and narrows to a namespace over any indexer; NotFound names the resource', () => {
    const indexer = newIndexer<Unstructured>();
    const obj = (namespace: string | undefined, name: string): Unstructured => ({
      apiVersion: 'e2e.kubets.dev/v1',
      kind: 'Widget',
      metadata: namespace === undefined ? { name } : { namespace, name },
    });
    indexer.add(obj('a', 'w1'));
    indexer.add(obj('b', 'w2'));
    indexer.add(obj(undefined, 'cluster'));
    const lister = newDynamicLister(indexer, {
      group: 'e2e.kubets.dev',
      version: 'v1',
      resource: 'widgets',
    });
    expect(lister.list()).toHaveLength(3);
    expect(lister.get('cluster').metadata.name).toBe('cluster');
    expect(
      lister
        .byNamespace('a')
        .list()
        .map((o) => o.metadata.name),
    ).toEqual(['w1']);
    expect(lister.byNamespace('b').get('w2').metadata.namespace).toBe('b');
    let err: unknown;
    try {
      lister.byNamespace('a').get('w2');
    } catch (e) {
      err = e;
    }
    expect(isNotFound(err)).toBe(true);
    expect((err as Error).message).toBe('widgets.e2e.kubets.dev "w2" not found');
    expect(() => newDynamicLister(indexer, { group: '', version: 'v1', resource: '' })).toThrow(
      TypeError,
    );
  });
});
