import type { HasObjectMeta } from '@kubets/apimachinery';
// The builder on resources known only by group/version/resource: watched through the
// manager's dynamic informers, as Unstructured objects.
import { coreV1Resources, type corev1 } from '@kubets/clientset';
import type { Unstructured } from '@kubets/dynamic';
import { newSharedInformerFactory } from '@kubets/informers';
import { configMapOf, eventually, mydemoCrd, thrownBy } from '@kubets/test-utils';
import { afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import { mapToCachedControllerOwner } from './event-handler.js';
import {
  controller,
  createOrUpdate,
  Manager,
  type ReconcileRequest,
  setControllerReference,
} from './index.js';
import { listerOf } from './testing.js';

const shared = useSharedApiServer();
const mydemos = { group: 'crddemo.k8s.io', version: 'v1', resource: 'mydemos' };

beforeAll(async () => {
  await shared.clientset.apiextensionsV1().customResourceDefinitions().create(mydemoCrd);
});

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function startedManager(namespace: string, build: (mgr: Manager) => void) {
  const mgr = new Manager({ host: shared.server.host, qps: -1 }, { namespace });
  build(mgr);
  const abort = new AbortController();
  const running = mgr.start(abort.signal);
  stops.push(async () => {
    abort.abort();
    await running;
  });
  return mgr;
}

const demoOf = (namespace: string, name: string, port: number): Unstructured => ({
  apiVersion: 'crddemo.k8s.io/v1',
  kind: 'Mydemo',
  metadata: { name, namespace },
  spec: { ip: '10.0.0.1', port },
});

describe('for / owns / watches by group/version/resource', () => {
  it('for(gvr).owns(typed): reconciles custom objects, and their owned ConfigMaps map back by uid', async () => {
    const namespace = await shared.createNamespace('dyn-a');
    const reconciled: string[] = [];
    const mgr = await startedManager(namespace, (m) => {
      const ctl = controller(m)
        .for('crddemo.k8s.io/v1/mydemos')
        .owns(coreV1Resources.configMaps)
        .complete(async ({ namespace, name }, ctx) => {
          const demo = ctx.cached();
          expectTypeOf(demo).toEqualTypeOf<Unstructured | undefined>();
          reconciled.push(name);
          if (demo === undefined) return;
          const cm: corev1.ConfigMap = { metadata: { name, namespace } };
          await createOrUpdate(m.clientset.coreV1().configMaps(namespace), cm, (c) => {
            c.data = { port: String((demo.spec as { port: number }).port) };
            setControllerReference(demo, c);
          });
        });
      expect(ctl.name).toBe('mydemos');
    });
    const demos = mgr.dynamicClient.resource(mydemos).namespace(namespace);
    const demo = await demos.create(demoOf(namespace, 'example', 80));
    const cms = mgr.clientset.coreV1().configMaps(namespace);
    await eventually(async () => expect((await cms.get('example')).data).toEqual({ port: '80' }));
    expect((await cms.get('example')).metadata?.ownerReferences).toMatchObject([
      { kind: 'Mydemo', name: 'example', uid: demo.metadata.uid, controller: true },
    ]);

    // The owned ConfigMap deleted: its event maps to the Mydemo, which puts it back.
    reconciled.length = 0;
    await cms.delete('example');
    await eventually(async () => expect((await cms.get('example')).data).toEqual({ port: '80' }));
    expect(reconciled).toContain('example');
  });

  it('for(typed).owns(gvr).watches(gvr): dynamic informers feed a typed controller', async () => {
    const namespace = await shared.createNamespace('dyn-b');
    const reconciled: string[] = [];
    const record = (request: ReconcileRequest) => void reconciled.push(request.name);
    const mgr = await startedManager(namespace, (m) => {
      controller(m)
        .for(coreV1Resources.configMaps)
        .owns('v1/secrets')
        .watches<Unstructured & { spec?: { port?: number } }>(mydemos, (demo) => [
          { namespace, name: `port-${demo.spec?.port}` },
        ])
        .complete(record);
    });
    await mgr.dynamicClient
      .resource(mydemos)
      .namespace(namespace)
      .create(demoOf(namespace, 'd', 8080));
    await eventually(() => reconciled.includes('port-8080'));

    const owner = await mgr.clientset
      .coreV1()
      .configMaps(namespace)
      .create(configMapOf('owner', {}));
    await eventually(() => reconciled.includes('owner'));
    reconciled.length = 0;
    const secret: corev1.Secret = { metadata: { name: 'owned', namespace } };
    setControllerReference(owner, secret);
    await mgr.clientset.coreV1().secrets(namespace).create(secret);
    await eventually(() => reconciled.includes('owner'));
    expect(reconciled).not.toContain('owned');
  });
});

describe('mapToCachedControllerOwner', () => {
  const ref = (apiVersion: string, uid: string) => ({
    apiVersion,
    kind: 'Mydemo',
    name: 'example',
    uid,
    controller: true,
  });
  const owned = (namespace: string, ...refs: ReturnType<typeof ref>[]): HasObjectMeta => ({
    metadata: { name: 'cm', namespace, ownerReferences: refs },
  });
  const namespacedOwner = { metadata: { name: 'example', namespace: 'ns', uid: 'u1' } };
  const clusterOwner = { metadata: { name: 'example', uid: 'u2' } };
  const map = mapToCachedControllerOwner(
    'crddemo.k8s.io',
    listerOf<HasObjectMeta>([namespacedOwner, clusterOwner]),
  );

  it.each([
    {
      name: 'a namespaced owner',
      object: owned('ns', ref('crddemo.k8s.io/v1', 'u1')),
      requests: [{ namespace: 'ns', name: 'example' }],
    },
    {
      name: 'a cluster-scoped owner',
      object: owned('other', ref('crddemo.k8s.io/v1', 'u2')),
      requests: [{ namespace: '', name: 'example' }],
    },
    {
      name: 'another version of the group',
      object: owned('ns', ref('crddemo.k8s.io/v2', 'u1')),
      requests: [{ namespace: 'ns', name: 'example' }],
    },
    { name: 'another group', object: owned('ns', ref('apps/v1', 'u1')), requests: [] },
    {
      name: 'another uid (an older owner of that name)',
      object: owned('ns', ref('crddemo.k8s.io/v1', 'old')),
      requests: [],
    },
    {
      name: 'no controller reference',
      object: owned('ns', { ...ref('crddemo.k8s.io/v1', 'u1'), controller: false }),
      requests: [],
    },
    {
      name: 'an owner not in the cache',
      object: owned('gone', ref('crddemo.k8s.io/v1', 'u3')),
      requests: [],
    },
  ])('$name', ({ object, requests }) => {
    expect(map(object)).toEqual(requests);
  });
});

describe('bad input', () => {
  const informers = () => newSharedInformerFactory(shared.clientset, { defaultResyncMs: 0 });
  const mgr = () => new Manager({ host: 'http://127.0.0.1:1' });
  it.each([
    {
      name: 'a group/version/resource without dynamic informers',
      build: () => controller({ informers: informers() }).for('v1/pods'),
      message:
        'for(v1/pods): a resource known only by group/version/resource is watched through dynamic informers: build on a Manager, or pass deps.dynamicInformers',
    },
    {
      name: 'a string that is no group/version/resource',
      build: () => controller(mgr()).for('deployments.apps'),
      message:
        'for(...) needs a resource descriptor (e.g. coreV1Resources.configMaps, or one made with defineResource) or a group/version/resource, got "deployments.apps": ',
    },
    {
      name: 'a group/version/resource without a version',
      build: () =>
        controller(mgr())
          .for(coreV1Resources.configMaps)
          .owns({ group: 'apps', version: '', resource: 'deployments' }),
      message: 'owns(...) needs a resource descriptor',
    },
    {
      name: 'an empty name',
      build: () => controller(mgr()).named(''),
      message: 'named(...) needs a non-empty name, got ""',
    },
  ])('$name', ({ build, message }) => {
    expect(String(thrownBy(build))).toContain(message);
  });
});
