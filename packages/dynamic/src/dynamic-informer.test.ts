import { isNotFound } from '@kubets/apimachinery';
import {
  informerKey,
  isDeletedFinalStateUnknown,
  newIndexer,
  waitForCacheSync,
} from '@kubets/cache';
import { eventually, selectingLabels, thrownBy, useApiServerPerTest } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  DynamicClient,
  newDynamicLister,
  newDynamicSharedInformerFactory,
  newDynamicSharedInformerFactoryWithOptions,
  newFilteredDynamicInformer,
  newFilteredDynamicSharedInformerFactory,
  type Unstructured,
} from './index.js';

let dynamic: DynamicClient;
const perTest = useApiServerPerTest((server) => {
  dynamic = new DynamicClient({ host: server.host, qps: -1 });
});
const { track } = perTest;

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };

async function createNamespaces(...names: string[]): Promise<void> {
  const namespaces = dynamic.resource({ group: '', version: 'v1', resource: 'namespaces' });
  for (const name of names) {
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
}

/** A pod template labelled `app: <app>`, as a Deployment's selector must match. */
const podTemplate = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'main', image: 'nginx' }] },
});

/** Creates a valid one-replica Deployment (the server validates its spec). */
async function createDeployment(
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<void> {
  await dynamic
    .resource(deploymentsGVR)
    .namespace(namespace)
    .create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { namespace, name, labels },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: podTemplate(name) },
    });
}

describe('DynamicSharedInformerFactory', () => {
  it('hands out one informer per group/version/resource, from objects or strings', () => {
    const factory = track(newDynamicSharedInformerFactory(dynamic, 60_000));
    const informer = factory.forResource(deploymentsGVR).informer();
    expect(factory.forResource(deploymentsGVR).informer()).toBe(informer);
    expect(factory.forResource('apps/v1/deployments').informer()).toBe(informer);
    expect(factory.forResource('deployments.v1.apps').informer()).toBe(informer);
    expect(factory.forResource('v1/pods').informer()).not.toBe(informer);
    expect(Object.keys(informer.getIndexer().getIndexers())).toEqual(['namespace']);
    expect(informerKey({ group: '', version: 'v1', resource: 'pods' })).toBe('v1/pods');
  });

  it('lists and watches through the REST client, syncs and serves the lister', async () => {
    await createNamespaces('other');
    await createDeployment('default', 'web', { app: 'web' });
    await createDeployment('default', 'db');
    await createDeployment('other', 'web');
    const factory = track(newDynamicSharedInformerFactory(dynamic, 0));
    const deployments = factory.forResource(deploymentsGVR);
    const adds: Unstructured[] = [];
    const deletes: string[] = [];
    deployments.informer().addEventHandler({
      onAdd: (obj) => {
        adds.push(obj);
      },
      onDelete: (obj) => {
        deletes.push(isDeletedFinalStateUnknown(obj) ? obj.key : (obj.metadata.name ?? ''));
      },
    });
    factory.start(perTest.controller.signal);
    expect(await factory.waitForCacheSync(perTest.controller.signal)).toEqual(
      new Map([['apps/v1/deployments', true]]),
    );
    await eventually(() => expect(adds).toHaveLength(3), { timeoutMs: 10_000, intervalMs: 5 });
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

    await dynamic.resource(deploymentsGVR).namespace('default').delete('db');
    await eventually(() => expect(deletes).toHaveLength(1), { timeoutMs: 10_000, intervalMs: 5 });
    expect(deletes).toEqual(['db']);
    expect(lister.byNamespace('default').list()).toHaveLength(1);
  });

  it('a filtered factory limits every informer to its namespace and list options', async () => {
    await createNamespaces('team', 'other');
    // What is there before the factory starts: its list.
    const existing = [
      { namespace: 'team', name: 'web-1', tier: 'web' },
      { namespace: 'team', name: 'db-1', tier: 'db' },
      { namespace: 'other', name: 'web-2', tier: 'web' },
    ];
    for (const { namespace, name, tier } of existing) {
      await createDeployment(namespace, name, { tier });
    }
    const factory = track(
      newFilteredDynamicSharedInformerFactory(dynamic, 0, 'team', selectingLabels('tier=web')),
    );
    expect(factory.namespace).toBe('team');
    const deployments = factory.forResource(deploymentsGVR);
    const added: string[] = [];
    deployments.informer().addEventHandler({
      onAdd: (obj) => {
        added.push(`${obj.metadata.namespace}/${obj.metadata.name}`);
      },
    });
    factory.start(perTest.controller.signal);
    expect(await factory.waitForCacheSync(perTest.controller.signal)).toEqual(
      new Map([['apps/v1/deployments', true]]),
    );
    // The list: only team's tier=web deployment.
    expect(
      deployments
        .lister()
        .list()
        .map((o) => o.metadata.name),
    ).toEqual(['web-1']);

    // The watch: what it must not see is written before what it must, so it would have
    // arrived first.
    await createDeployment('team', 'db-2', { tier: 'db' });
    await createDeployment('other', 'web-3', { tier: 'web' });
    await createDeployment('team', 'web-4', { tier: 'web' });
    await eventually(() => expect(added).toContain('team/web-4'), {
      timeoutMs: 10_000,
      intervalMs: 5,
    });
    expect(added).toEqual(['team/web-1', 'team/web-4']);
    expect(
      deployments
        .lister()
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['web-1', 'web-4']);
  });

  it('waitForCacheSync reports informers not synced when the signal aborts', async () => {
    // Every list of pods fails, so the informer never syncs.
    perTest.server.faults.respondWith(500, { match: '/api/v1/pods', times: Infinity });
    const factory = track(
      newDynamicSharedInformerFactoryWithOptions(dynamic, {
        defaultResyncMs: 0,
        customResync: { 'v1/pods': 1000 },
      }),
    );
    factory.forResource('v1/pods').informer();
    factory.start(perTest.controller.signal);
    const waiting = new AbortController();
    const result = factory.waitForCacheSync(waiting.signal);
    setTimeout(() => waiting.abort(), 50);
    expect(await result).toEqual(new Map([['v1/pods', false]]));
  });

  it('applies the transform option before objects are cached', async () => {
    await createNamespaces('a');
    await createDeployment('a', 'web');
    const factory = track(
      newDynamicSharedInformerFactoryWithOptions(dynamic, {
        defaultResyncMs: 0,
        transform: (obj) => {
          delete obj.metadata.managedFields;
          obj.metadata.labels = { transformed: 'yes' };
          return obj;
        },
      }),
    );
    const deployments = factory.forResource(deploymentsGVR);
    deployments.informer();
    factory.start(perTest.controller.signal);
    await factory.waitForCacheSync(perTest.controller.signal);
    const cached = deployments.lister().byNamespace('a').get('web');
    expect(cached.metadata.labels).toEqual({ transformed: 'yes' });
    expect(cached.metadata).not.toHaveProperty('managedFields');
  });

  it('newFilteredDynamicInformer runs on its own', async () => {
    const configMaps = { group: '', version: 'v1', resource: 'configmaps' };
    await createNamespaces('ns1');
    await dynamic
      .resource(configMaps)
      .namespace('ns1')
      .create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'ns1', name: 'cm' },
        data: { a: '1' },
      });
    const { informer, lister } = newFilteredDynamicInformer(dynamic, configMaps, 'ns1', 0);
    const done = informer().run(perTest.controller.signal);
    expect(await waitForCacheSync(perTest.controller.signal, () => informer().hasSynced())).toBe(
      true,
    );
    const cm = lister().byNamespace('ns1').get('cm');
    expect(cm.kind).toBe('ConfigMap');
    expect(cm.apiVersion).toBe('v1');
    expect(cm.data).toEqual({ a: '1' });
    perTest.controller.abort();
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
    const err = thrownBy(() => lister.byNamespace('a').get('w2'));
    expect(isNotFound(err)).toBe(true);
    expect((err as Error).message).toBe('widgets.e2e.kubets.dev "w2" not found');
    expect(() => newDynamicLister(indexer, { group: '', version: 'v1', resource: '' })).toThrow(
      TypeError,
    );
  });
});
