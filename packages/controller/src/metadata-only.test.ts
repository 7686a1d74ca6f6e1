import { coreV1Resources } from '@kubets/clientset';
import { newSharedInformerFactory } from '@kubets/informers';
import { eventually } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controller, type Manager, onlyMetadata, type ReconcileRequest } from './index.js';
import { startInMemoryTestEnv, type TestEnv } from './testing.js';

describe('onlyMetadata', () => {
  let env: TestEnv;
  let mgr: Manager;
  const reconciled: ReconcileRequest[] = [];
  const mapped: unknown[] = [];
  beforeAll(async () => {
    env = await startInMemoryTestEnv();
    const owner = await env.clientset
      .coreV1()
      .configMaps('default')
      .create({ metadata: { name: 'owner' }, data: { a: '1' } });
    await env.clientset
      .coreV1()
      .secrets('default')
      .create({
        metadata: {
          name: 'owned',
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'owner',
              uid: owner.metadata?.uid ?? '',
              controller: true,
            },
          ],
        },
        stringData: { secret: 'value' },
      });
    await env.clientset
      .coreV1()
      .pods('default')
      .create({
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      });
    mgr = await env.startManager((m) => {
      controller(m)
        .for(coreV1Resources.configMaps)
        .owns(onlyMetadata(coreV1Resources.secrets))
        .watches(onlyMetadata(coreV1Resources.pods), (pod) => {
          mapped.push(pod);
          return [{ namespace: 'default', name: 'owner' }];
        })
        .complete((request) => {
          reconciled.push(request);
        });
    });
  });
  afterAll(async () => {
    await env.stop();
  });

  it('the cache reads metadata only: no spec, no data', async () => {
    const [secret] = await mgr.cache.list(onlyMetadata(coreV1Resources.secrets));
    expect(secret?.metadata?.name).toBe('owned');
    expect(secret).not.toHaveProperty('data');
    expect(secret).toMatchObject({ apiVersion: 'v1', kind: 'Secret' });
    const pod = await mgr.cache.get(onlyMetadata(coreV1Resources.pods), {
      namespace: 'default',
      name: 'web',
    });
    expect(pod.metadata?.labels).toEqual({ app: 'web' });
    expect(pod).not.toHaveProperty('spec');
    // The full objects' informer is another one.
    const [full] = await mgr.cache.list(coreV1Resources.secrets);
    expect(full?.data).toEqual({ secret: Buffer.from('value').toString('base64') });
  });

  it('watches(onlyMetadata(...)) maps metadata-only objects', async () => {
    await eventually(() => mapped.length > 0, { what: 'the pod mapped' });
    expect(mapped[0]).not.toHaveProperty('spec');
    expect(mapped[0]).toMatchObject({ apiVersion: 'v1', kind: 'Pod' });
    expect((mapped[0] as { metadata?: { name?: string } }).metadata?.name).toBe('web');
  });

  it('owns(onlyMetadata(...)): a change of an owned object reconciles its owner', async () => {
    await eventually(() => reconciled.length > 0, { what: 'the first reconcile' });
    reconciled.length = 0;
    await env.clientset
      .coreV1()
      .secrets('default')
      .patch('owned', 'application/merge-patch+json', { metadata: { labels: { changed: 'yes' } } });
    await eventually(() => reconciled.length > 0, { what: 'the owner reconciled' });
    expect(reconciled).toContainEqual({ namespace: 'default', name: 'owner' });
  });

  it('needs informers that make metadata-only informers', () => {
    const factory = newSharedInformerFactory(env.clientset, 0);
    const onlyForResource = { forResource: factory.forResource.bind(factory) };
    expect(() =>
      controller({ informers: onlyForResource }).for(onlyMetadata(coreV1Resources.secrets)),
    ).toThrow(
      'for(onlyMetadata(secrets)): metadata-only informers are made in a SharedInformerFactory',
    );
    expect(() => onlyMetadata('v1/secrets' as never)).toThrow(
      'onlyMetadata needs a resource descriptor',
    );
  });
});

// controller-runtime's pkg/builder/controller_test.go › "watching with projections".
describe('watching with projections', () => {
  it('should support multiple controllers watching the same metadata kind', async () => {
    await using env = await startInMemoryTestEnv();
    const seen = new Map<string, ReconcileRequest[]>();
    const reconcilerOf = (name: string) => (request: ReconcileRequest) => {
      seen.set(name, [...(seen.get(name) ?? []), request]);
    };
    await env.startManager((m) => {
      controller(m)
        .named('deployment-4')
        .for(onlyMetadata(coreV1Resources.configMaps))
        .complete(reconcilerOf('deployment-4'));
      controller(m)
        .named('deployment-5')
        .for(onlyMetadata(coreV1Resources.configMaps))
        .complete(reconcilerOf('deployment-5'));
    });
    await env.clientset
      .coreV1()
      .configMaps('default')
      .create({ metadata: { name: 'deploy-name-6' }, data: { big: 'x'.repeat(1000) } });
    const request = { namespace: 'default', name: 'deploy-name-6' };
    await eventually(
      () =>
        ['deployment-4', 'deployment-5'].every((n) =>
          seen.get(n)?.some((r) => r.name === request.name),
        ),
      { what: 'both controllers reconciled the ConfigMap' },
    );
  });
});
