import { isNotFound } from '@kubets/apimachinery';
import { isDeletedFinalStateUnknown, newSharedIndexInformer } from '@kubets/cache';
import {
  appsV1Resources,
  type appsv1,
  Clientset,
  coreV1Resources,
  type corev1,
  defineResource,
} from '@kubets/clientset';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ClusterLister,
  GeneratedInformerFactory,
  groupVersionInformersClasses,
  informableResources,
  informerKey,
  type NamespacedLister,
  newFilteredSharedInformerFactory,
  newSharedInformerFactory,
  newSharedInformerFactoryWithOptions,
  type SharedInformerFactory,
} from './index.js';
import { type FakeApiServer, startFakeApiServer } from './test-server.js';

let server: FakeApiServer;
let clientset: Clientset;
let controller: AbortController;
const factories: SharedInformerFactory[] = [];

function track(factory: SharedInformerFactory): SharedInformerFactory {
  factories.push(factory);
  return factory;
}

function deployment(namespace: string, name: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { namespace, name, labels, resourceVersion: '1' },
    spec: { replicas: 1 },
  };
}

async function* noEvents(): AsyncIterable<never> {}

function pod(namespace: string, name: string) {
  return { metadata: { namespace, name, resourceVersion: '1' } };
}

beforeEach(async () => {
  server = await startFakeApiServer();
  clientset = new Clientset({ host: server.url, qps: -1 });
  controller = new AbortController();
});

afterEach(async () => {
  controller.abort();
  await Promise.all(factories.splice(0).map((f) => f.shutdown()));
  await server.close();
});

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
    server.setList('/apis/apps/v1/deployments', 'Deployment', 'apps/v1', [
      deployment('default', 'web', { app: 'web' }),
      deployment('default', 'db', { app: 'db' }),
      deployment('other', 'web'),
    ]);
    server.setList('/api/v1/pods', 'Pod', 'v1', [pod('default', 'p1')]);
    server.setList('/api/v1/nodes', 'Node', 'v1', [{ metadata: { name: 'node-1' } }]);
    const factory = track(newSharedInformerFactory(clientset, { defaultResyncMs: 60_000 }));
    const deployments = factory.appsV1().deployments();
    deployments.informer();
    factory.coreV1().pods().informer();
    const nodes = factory.coreV1().nodes().lister(); // lister() registers the informer too
    factory.start(controller.signal);
    const synced = await factory.waitForCacheSync(controller.signal);
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
    let notFound: unknown;
    try {
      lister.byNamespace('other').get('db');
    } catch (err) {
      notFound = err;
    }
    expect(isNotFound(notFound)).toBe(true);
    expect(String((notFound as Error).message)).toContain('deployments.apps "db" not found');
    expect(nodes.get('node-1').metadata?.name).toBe('node-1');
    expect(factory.coreV1().pods().lister().byNamespace('default').get('p1')).toBeDefined();

    // One list per informer, cluster-wide, with the reflector's options.
    const lists = server.requests.filter((r) => r.query.get('watch') !== 'true');
    expect(lists.map((r) => r.path).sort()).toEqual([
      '/api/v1/nodes',
      '/api/v1/pods',
      '/apis/apps/v1/deployments',
    ]);
  });

  it('delivers watch events to handlers and keeps the lister current', async () => {
    const path = '/apis/apps/v1/deployments';
    server.setList(path, 'Deployment', 'apps/v1', [deployment('default', 'web')]);
    const factory = track(newSharedInformerFactory(clientset, 0));
    const informer = factory.appsV1().deployments().informer();
    const seen: string[] = [];
    let notify: () => void = () => {};
    informer.addEventHandler({
      onAdd: (d, initial) => {
        seen.push(`add ${d.metadata?.name} ${initial}`);
        notify();
      },
      onUpdate: (oldD, newD) => {
        seen.push(`update ${oldD.spec?.replicas}->${newD.spec?.replicas}`);
        notify();
      },
      onDelete: (d) => {
        const name = isDeletedFinalStateUnknown(d) ? d.key : d.metadata?.name;
        seen.push(`delete ${name}`);
        notify();
      },
    });
    const until = (count: number) =>
      new Promise<void>((resolve) => {
        notify = () => {
          if (seen.length >= count) resolve();
        };
        notify();
      });
    factory.start(controller.signal);
    await factory.waitForCacheSync(controller.signal);
    await until(1);
    await server.watching(path);
    server.emit(path, 'ADDED', {
      ...deployment('default', 'api'),
      metadata: { ...deployment('default', 'api').metadata, resourceVersion: '101' },
    });
    await until(2);
    server.emit(path, 'MODIFIED', {
      ...deployment('default', 'api'),
      metadata: { ...deployment('default', 'api').metadata, resourceVersion: '102' },
      spec: { replicas: 3 },
    });
    await until(3);
    server.emit(path, 'DELETED', {
      ...deployment('default', 'web'),
      metadata: { ...deployment('default', 'web').metadata, resourceVersion: '103' },
    });
    await until(4);
    expect(seen).toEqual(['add web true', 'add api false', 'update 1->3', 'delete web']);
    const lister = factory.appsV1().deployments().lister();
    expect(lister.list().map((d) => d.metadata?.name)).toEqual(['api']);
    expect(lister.byNamespace('default').get('api').spec?.replicas).toBe(3);
  });

  it('limits namespaced resources to the factory namespace and applies tweakListOptions', async () => {
    server.setList('/api/v1/namespaces/team/configmaps', 'ConfigMap', 'v1', []);
    server.setList('/api/v1/namespaces', 'Namespace', 'v1', [{ metadata: { name: 'team' } }]);
    const factory = track(
      newFilteredSharedInformerFactory(clientset, 0, 'team', (options) => {
        options.labelSelector = 'app=web';
      }),
    );
    expect(factory.namespace).toBe('team');
    factory.coreV1().configMaps().informer();
    factory.coreV1().namespaces().informer();
    factory.start(controller.signal);
    const synced = await factory.waitForCacheSync(controller.signal);
    expect([...synced.values()]).toEqual([true, true]);
    await server.watching('/api/v1/namespaces/team/configmaps');
    await server.watching('/api/v1/namespaces');
    const paths = new Set(server.requests.map((r) => r.path));
    // Cluster-scoped resources are always cluster-wide.
    expect([...paths].sort()).toEqual(['/api/v1/namespaces', '/api/v1/namespaces/team/configmaps']);
    for (const request of server.requests) {
      expect(request.query.get('labelSelector'), request.path).toBe('app=web');
    }
    expect(server.requests.filter((r) => r.query.get('watch') === 'true')).toHaveLength(2);
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

  it('applies the transform option before objects are cached', async () => {
    server.setList('/api/v1/configmaps', 'ConfigMap', 'v1', [
      { metadata: { namespace: 'a', name: 'cm', managedFields: [{ manager: 'kubectl' }] } },
    ]);
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
    factory.start(controller.signal);
    await factory.waitForCacheSync(controller.signal);
    expect(configMaps.lister().byNamespace('a').get('cm').metadata).toEqual({
      namespace: 'a',
      name: 'cm',
    });
  });

  it('forResource takes descriptors of custom resources and rejects unknown group/version/resources', async () => {
    interface Mydemo {
      apiVersion?: string;
      kind?: string;
      metadata?: { name?: string; namespace?: string; resourceVersion?: string };
      spec?: { ip: string; port: number };
    }
    const mydemos = defineResource<Mydemo>({
      group: 'crddemo.k8s.io',
      version: 'v1',
      resource: 'mydemos',
      kind: 'Mydemo',
      namespaced: true,
    });
    server.setList('/apis/crddemo.k8s.io/v1/mydemos', 'Mydemo', 'crddemo.k8s.io/v1', [
      {
        metadata: { namespace: 'default', name: 'example-mydemo' },
        spec: { ip: '1.2.3.4', port: 80 },
      },
    ]);
    const factory = track(newSharedInformerFactory(clientset, 0));
    const demos = factory.forResource(mydemos);
    expectTypeOf(demos.lister().list()).toEqualTypeOf<Mydemo[]>();
    demos.informer();
    factory.start(controller.signal);
    expect(await factory.waitForCacheSync(controller.signal)).toEqual(
      new Map([['crddemo.k8s.io/v1/mydemos', true]]),
    );
    expect(demos.lister().byNamespace('default').get('example-mydemo').spec?.port).toBe(80);
    expect(() =>
      factory.forResource({ group: 'crddemo.k8s.io', version: 'v1', resource: 'mydemos' }),
    ).toThrow(/no informer found for crddemo\.k8s\.io\/v1\/mydemos/);
  });

  it('shutdown stops every informer; start does nothing afterwards', async () => {
    server.setList('/api/v1/pods', 'Pod', 'v1', []);
    const factory = newSharedInformerFactory(clientset, 0);
    const informer = factory.coreV1().pods().informer();
    factory.start(controller.signal);
    await factory.waitForCacheSync(controller.signal);
    await factory.shutdown();
    expect(informer.isStopped()).toBe(true);
    const requests = server.requests.length;
    factory.coreV1().services().informer();
    factory.start(controller.signal);
    expect(server.requests.length).toBe(requests);
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
