import { isNotFound } from '@kubets/apimachinery';
import type { FaultRequest } from '@kubets/apiserver';
import {
  type InformerMetricsProvider,
  type InformerNameAndResource,
  isDeletedFinalStateUnknown,
  namespaceIndex,
  newInformerName,
  newSharedIndexInformer,
  noopInformerMetricsProvider,
  setInformerMetricsProvider,
} from '@kubets/cache';
import {
  appsV1Resources,
  type appsv1,
  Clientset,
  coreV1Resources,
  type corev1,
  defineResource,
} from '@kubets/clientset';
import {
  eventually,
  type Mydemo,
  mydemoCrd,
  mydemoResource,
  selectingLabels,
  thrownBy,
  useApiServerPerTest,
} from '@kubets/test-utils';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ClusterLister,
  GeneratedInformerFactory,
  groupVersionInformersClasses,
  informableResources,
  informerKey,
  type NamespacedLister,
  newFilteredSharedInformerFactory,
  newResourceInformerFunc,
  newSharedInformerFactory,
  newSharedInformerFactoryWithOptions,
} from './index.js';

let clientset: Clientset;
const perTest = useApiServerPerTest((server) => {
  clientset = new Clientset({ host: server.host, qps: -1 });
});
const { track } = perTest;

async function createNamespace(name: string, labels: Record<string, string> = {}) {
  await clientset.coreV1().namespaces().create({ metadata: { name, labels } });
}

function createDeployment(namespace: string, name: string, labels: Record<string, string> = {}) {
  return clientset
    .appsV1()
    .deployments(namespace)
    .create({
      metadata: { namespace, name, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'app', image: 'nginx' }] },
        },
      },
    });
}

function createConfigMap(namespace: string, name: string, labels: Record<string, string> = {}) {
  return clientset.coreV1().configMaps(namespace).create({ metadata: { namespace, name, labels } });
}

async function* noEvents(): AsyncIterable<never> {}

describe('SharedInformerFactory', () => {
  it('hands out one informer per resource, whichever way it is asked for', () => {
    const factory = track(newSharedInformerFactory(clientset, 60_000));
    expect(factory.appsV1()).toBe(factory.appsV1());
    const informer = factory.appsV1().deployments().informer();
    expect(factory.appsV1().deployments().informer()).toBe(informer);
    expect(factory.forResource(appsV1Resources.deployments).informer()).toBe(informer);
    expect(
      factory.forResource({ group: 'apps', version: 'v1', resource: 'deployments' }).informer(),
    ).toBe(informer);
    expect(factory.coreV1().pods().informer()).not.toBe(informer);
  });

  it('gives informers the namespace index, as client-go does', () => {
    const factory = track(newSharedInformerFactory(clientset, 0));
    const indexers = factory.coreV1().pods().informer().getIndexer().getIndexers();
    expect(Object.keys(indexers)).toEqual(['namespace']);
  });

  it('starts every informer asked for, syncs them and serves typed listers from the cache', async () => {
    await createNamespace('other');
    await createDeployment('default', 'web', { app: 'web' });
    await createDeployment('default', 'db', { app: 'db' });
    await createDeployment('other', 'web');
    await clientset
      .coreV1()
      .pods('default')
      .create({ metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await clientset
      .coreV1()
      .nodes()
      .create({ metadata: { name: 'node-1' } });
    const factory = track(newSharedInformerFactory(clientset, { defaultResyncMs: 60_000 }));
    const deployments = factory.appsV1().deployments();
    deployments.informer();
    factory.coreV1().pods().informer();
    const nodes = factory.coreV1().nodes().lister(); // lister() registers the informer too
    factory.start(perTest.controller.signal);
    const synced = await factory.waitForCacheSync(perTest.controller.signal);
    expect(Object.fromEntries(synced)).toEqual({
      'apps/v1/deployments': true,
      'v1/pods': true,
      'v1/nodes': true,
    });

    const lister = deployments.lister();
    expect(lister.list()).toHaveLength(3);
    expect(
      lister
        .byNamespace('default')
        .list()
        .map((d) => d.metadata?.name)
        .sort(),
    ).toEqual(['db', 'web']);
    expect(lister.byNamespace('default').list('app=web')).toHaveLength(1);
    expect(lister.byNamespace('other').get('web').metadata?.namespace).toBe('other');
    const notFound = thrownBy(() => lister.byNamespace('other').get('db'));
    expect(isNotFound(notFound)).toBe(true);
    expect(String((notFound as Error).message)).toContain('deployments.apps "db" not found');
    expect(nodes.get('node-1').metadata?.name).toBe('node-1');
    expect(factory.coreV1().pods().lister().byNamespace('default').get('p1')).toBeDefined();
  });

  it('delivers watch events to handlers and keeps the lister current', async () => {
    await createDeployment('default', 'web');
    const factory = track(newSharedInformerFactory(clientset, 0));
    const informer = factory.appsV1().deployments().informer();
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (d, initial) => {
        seen.push(`add ${d.metadata?.name} ${initial}`);
      },
      onUpdate: (oldD, newD) => {
        seen.push(`update ${oldD.spec?.replicas}->${newD.spec?.replicas}`);
      },
      onDelete: (d) => {
        const name = isDeletedFinalStateUnknown(d) ? d.key : d.metadata?.name;
        seen.push(`delete ${name}`);
      },
    });
    factory.start(perTest.controller.signal);
    await factory.waitForCacheSync(perTest.controller.signal);
    await eventually(() => expect(seen).toHaveLength(1), { timeoutMs: 10_000, intervalMs: 5 });
    const api = await createDeployment('default', 'api');
    await eventually(() => expect(seen).toHaveLength(2), { timeoutMs: 10_000, intervalMs: 5 });
    await clientset
      .appsV1()
      .deployments('default')
      .update({ ...api, spec: { ...api.spec!, replicas: 3 } });
    await eventually(() => expect(seen).toHaveLength(3), { timeoutMs: 10_000, intervalMs: 5 });
    await clientset.appsV1().deployments('default').delete('web');
    await eventually(() => expect(seen).toHaveLength(4), { timeoutMs: 10_000, intervalMs: 5 });
    expect(seen).toEqual(['add web true', 'add api false', 'update 1->3', 'delete web']);
    const lister = factory.appsV1().deployments().lister();
    expect(lister.list().map((d) => d.metadata?.name)).toEqual(['api']);
    expect(lister.byNamespace('default').get('api').spec?.replicas).toBe(3);
  });

  it('limits namespaced resources to the factory namespace and applies tweakListOptions', async () => {
    await createNamespace('team', { app: 'web' });
    await createNamespace('other');
    await createConfigMap('team', 'web-1', { app: 'web' });
    await createConfigMap('team', 'db-1', { app: 'db' });
    await createConfigMap('other', 'web-2', { app: 'web' });
    const factory = track(
      newFilteredSharedInformerFactory(clientset, 0, 'team', selectingLabels('app=web')),
    );
    expect(factory.namespace).toBe('team');
    const added: string[] = [];
    const record = {
      onAdd: (obj: { metadata?: { namespace?: string; name?: string } }) => {
        added.push(`${obj.metadata?.namespace ?? ''}/${obj.metadata?.name}`);
      },
    };
    factory.coreV1().configMaps().informer().addEventHandler(record);
    factory.coreV1().namespaces().informer().addEventHandler(record);
    factory.start(perTest.controller.signal);
    // A namespaced URL for namespaces would 404 and never sync: give up after a while.
    const synced = await factory.waitForCacheSync(AbortSignal.timeout(4000));
    expect([...synced.values()]).toEqual([true, true]);
    // Lists: team's app=web config maps; cluster-scoped resources are always cluster-wide.
    const names = (objects: { metadata?: { name?: string } }[]) =>
      objects.map((o) => o.metadata?.name).sort();
    expect(names(factory.coreV1().configMaps().lister().list())).toEqual(['web-1']);
    expect(names(factory.coreV1().namespaces().lister().list())).toEqual(['team']);

    // Watches: what they must not see is written before what they must, so it would have
    // arrived first.
    await createConfigMap('team', 'db-2', { app: 'db' });
    await createConfigMap('other', 'web-3', { app: 'web' });
    await createNamespace('later');
    await createConfigMap('team', 'web-4', { app: 'web' });
    await createNamespace('later-web', { app: 'web' });
    await eventually(() => expect(added).toContain('team/web-4'), {
      timeoutMs: 10_000,
      intervalMs: 5,
    });
    await eventually(() => expect(added).toContain('/later-web'), {
      timeoutMs: 10_000,
      intervalMs: 5,
    });
    expect(added.sort()).toEqual(['/later-web', '/team', 'team/web-1', 'team/web-4']);
  });

  it('newResourceInformerFunc makes the typed informer with its own namespace, selectors or metadata only', async () => {
    await createNamespace('team');
    await createNamespace('other');
    await createConfigMap('team', 'web-1', { app: 'web' });
    await createConfigMap('team', 'db-1', { app: 'db' });
    await createConfigMap('other', 'db-2', { app: 'db' });
    const factory = track(
      newFilteredSharedInformerFactory(clientset, 0, 'team', selectingLabels('app=web')),
    );
    // Its own namespace ('' for all) and a tweak applied after the factory's, so its selector wins.
    const everyDb = factory.informerFor(
      'configmaps-db',
      newResourceInformerFunc(clientset, coreV1Resources.configMaps, {
        namespace: '',
        tweakListOptions: (options) => {
          options.labelSelector = 'app=db';
        },
      }),
    );
    const metadata = factory.informerFor(
      'configmaps-metadata',
      newResourceInformerFunc(clientset, coreV1Resources.configMaps, { metadataOnly: true }),
    );
    factory.start(perTest.controller.signal);
    const synced = await factory.waitForCacheSync(AbortSignal.timeout(4000));
    expect([...synced.values()]).toEqual([true, true]);
    const keys = (objects: { metadata?: { namespace?: string; name?: string } }[]) =>
      objects.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();
    expect(keys(everyDb.getStore().list())).toEqual(['other/db-2', 'team/db-1']);
    expect(everyDb.getIndexer().byIndex(namespaceIndex, 'other')).toHaveLength(1);
    // The factory's own namespace and selector; metadata only, with the resource's kind.
    const [web] = metadata.getStore().list() as Record<string, unknown>[];
    expect(keys(metadata.getStore().list())).toEqual(['team/web-1']);
    expect(web).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(web).not.toHaveProperty('data');
  });

  it('uses customResync per informer key and shares informers made with informerFor', () => {
    const factory = track(
      newSharedInformerFactoryWithOptions(clientset, 60_000, {
        customResync: new Map([['v1/pods', 30_000]]),
      }),
    );
    const periods: Record<string, number> = {};
    const custom = factory.informerFor(informerKey(coreV1Resources.pods), (context) => {
      periods.pods = context.resyncPeriodMs;
      return newSharedIndexInformer<corev1.Pod>(
        { list: async () => ({ items: [] }), watch: async () => noEvents() },
        'pods',
      );
    });
    factory.informerFor('v1/services', (context) => {
      periods.services = context.resyncPeriodMs;
      return newSharedIndexInformer(
        { list: async () => ({ items: [] }), watch: async () => noEvents() },
        'services',
      );
    });
    expect(periods).toEqual({ pods: 30_000, services: 60_000 });
    // The typed accessor finds the informer registered under the same key.
    expect(factory.coreV1().pods().informer()).toBe(custom);
  });

  it('identifies its informers by the informerName option in informer metrics', async () => {
    await createNamespace('a');
    await createConfigMap('a', 'cm');
    const recorded: { id: string; metric: string; value: number }[] = [];
    const label = (id: InformerNameAndResource) =>
      `${id.name} ${id.groupVersionResource.version}/${id.groupVersionResource.resource}`;
    const gauge = (metric: string) => (id: InformerNameAndResource) => ({
      set: (value: number) => recorded.push({ id: label(id), metric, value }),
    });
    const recording: InformerMetricsProvider = {
      newQueuedItemMetric: gauge('queued'),
      newProcessingLatencyMetric: (id) => ({
        observe: () => recorded.push({ id: label(id), metric: 'latency', value: 0 }),
      }),
      newStoreResourceVersionMetric: gauge('resourceVersion'),
    };
    const informerName = newInformerName('informers-factory-test');
    setInformerMetricsProvider(recording);
    try {
      const named = track(
        newSharedInformerFactory(clientset, { defaultResyncMs: 0, informerName }),
      );
      const unnamed = track(newSharedInformerFactory(clientset, 0));
      named.coreV1().configMaps().informer();
      unnamed.coreV1().configMaps().informer();
      for (const factory of [named, unnamed]) {
        factory.start(perTest.controller.signal);
        await factory.waitForCacheSync(perTest.controller.signal);
      }
      const stored = await clientset.coreV1().configMaps('a').get('cm');
      // Only the named factory's informer records, under its name and resource.
      expect(new Set(recorded.map((r) => r.id))).toEqual(
        new Set(['informers-factory-test v1/configmaps']),
      );
      expect(recorded).toContainEqual({
        id: 'informers-factory-test v1/configmaps',
        metric: 'resourceVersion',
        value: Number(stored.metadata?.resourceVersion),
      });
      expect(recorded.some((r) => r.metric === 'latency')).toBe(true);
    } finally {
      setInformerMetricsProvider(noopInformerMetricsProvider);
      informerName.release();
    }
  });

  it('applies the transform option before objects are cached', async () => {
    await createNamespace('a');
    await createConfigMap('a', 'cm');
    // The server records managedFields on every write.
    const stored = await clientset.coreV1().configMaps('a').get('cm');
    expect(stored.metadata?.managedFields).toHaveLength(1);
    const factory = track(
      newSharedInformerFactory(clientset, {
        defaultResyncMs: 0,
        transform: (obj) => {
          const o = obj as { metadata?: { managedFields?: unknown } };
          if (o.metadata) delete o.metadata.managedFields;
          return o;
        },
      }),
    );
    const configMaps = factory.coreV1().configMaps();
    configMaps.informer();
    factory.start(perTest.controller.signal);
    await factory.waitForCacheSync(perTest.controller.signal);
    const cached = configMaps.lister().byNamespace('a').get('cm');
    expect(cached.metadata?.name).toBe('cm');
    expect(cached.metadata?.uid).toBe(stored.metadata?.uid);
    expect(cached.metadata).not.toHaveProperty('managedFields');
  });

  it('forResource takes descriptors of custom resources and rejects unknown group/version/resources', async () => {
    const mydemos = defineResource<Mydemo>(mydemoResource);
    // Serve the resource: client-go's example CRD (the server requires its schema).
    await clientset.apiextensionsV1().customResourceDefinitions().create(mydemoCrd);
    await clientset.resource(mydemos, 'default').create({
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
      metadata: { namespace: 'default', name: 'example-mydemo' },
      spec: { ip: '1.2.3.4', port: 80 },
    });
    const factory = track(newSharedInformerFactory(clientset, 0));
    const demos = factory.forResource(mydemos);
    expectTypeOf(demos.lister().list()).toEqualTypeOf<Mydemo[]>();
    demos.informer();
    factory.start(perTest.controller.signal);
    expect(await factory.waitForCacheSync(perTest.controller.signal)).toEqual(
      new Map([['crddemo.k8s.io/v1/mydemos', true]]),
    );
    expect(demos.lister().byNamespace('default').get('example-mydemo').spec?.port).toBe(80);
    expect(() =>
      factory.forResource({ group: 'crddemo.k8s.io', version: 'v1', resource: 'mydemos' }),
    ).toThrow(/no informer found for crddemo\.k8s\.io\/v1\/mydemos/);
  });

  it('shutdown stops every informer; start does nothing afterwards', async () => {
    // Records every API request, answering none (the predicate never matches).
    const requests: FaultRequest[] = [];
    perTest.server.faults.respondWith(500, {
      times: Infinity,
      match: (request) => {
        requests.push(request);
        return false;
      },
    });
    const factory = newSharedInformerFactory(clientset, 0);
    const informer = factory.coreV1().pods().informer();
    factory.start(perTest.controller.signal);
    await factory.waitForCacheSync(perTest.controller.signal);
    await factory.shutdown();
    expect(informer.isStopped()).toBe(true);
    expect(requests.map((r) => r.path)).toContain('/api/v1/pods');
    const before = requests.length;
    const services = factory.coreV1().services().informer();
    factory.start(perTest.controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests.length).toBe(before);
    expect(services.hasSynced()).toBe(false);
  });

  it('types informers and listers with the clientset types', () => {
    const factory = track(newSharedInformerFactory(clientset, 0));
    expectTypeOf(factory.appsV1().deployments().lister()).toEqualTypeOf<
      NamespacedLister<appsv1.Deployment>
    >();
    expectTypeOf(factory.coreV1().nodes().lister()).toEqualTypeOf<ClusterLister<corev1.Node>>();
    expectTypeOf(
      factory.coreV1().pods().lister().byNamespace('default').get,
    ).returns.toEqualTypeOf<corev1.Pod>();
  });
});

describe('generated accessors', () => {
  it('cover every informable resource with a distinct informer, and every group/version', () => {
    const factory = track(newSharedInformerFactory(clientset, 0));
    const viaAccessors = new Set<unknown>();
    for (const groupClass of groupVersionInformersClasses) {
      const group = new groupClass(factory) as unknown as Record<
        string,
        () => { informer(): unknown }
      >;
      for (const method of Object.getOwnPropertyNames(groupClass.prototype)) {
        if (method === 'constructor') continue;
        viaAccessors.add(group[method]!().informer());
      }
    }
    const viaDescriptors = new Set(
      informableResources.map((d) => factory.forResource(d).informer()),
    );
    expect(viaAccessors.size).toBe(informableResources.length);
    expect(viaDescriptors).toEqual(viaAccessors);
    expect(informableResources.length).toBeGreaterThan(50);

    const accessors = Object.getOwnPropertyNames(GeneratedInformerFactory.prototype).filter(
      (name) => name !== 'constructor',
    );
    const groups = accessors.map((name) =>
      (factory as unknown as Record<string, () => object>)[name]!(),
    );
    expect(groups.map((g) => g.constructor)).toEqual([...groupVersionInformersClasses]);
  });
});
