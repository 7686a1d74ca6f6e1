import { coreV1Resources, type corev1 } from '@kubets/clientset';
import type { Unstructured } from '@kubets/dynamic';
import { RESTClient, rateLimiterFor } from '@kubets/rest';
import { configMapOf, eventually, mydemoCrd } from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { controller, type ReconcileFunc } from './index.js';
import { startInMemoryTestEnv, type TestEnv } from './testing.js';

// Mirrors a ConfigMap into a Secret of the same name and says so in an Event; nothing when
// the ConfigMap is gone.
const mirror =
  (env: () => TestEnv): ReconcileFunc<corev1.ConfigMap> =>
  async (request, ctx) => {
    const cm = ctx.cached();
    if (cm === undefined) return { requeueAfterMs: 60_000 };
    const secrets = env().clientset.coreV1().secrets(request.namespace);
    await secrets.create({ metadata: { name: request.name }, stringData: cm.data ?? {} });
    ctx.recorder.event(cm, 'Normal', 'Mirrored', `Secret ${request.name} written`);
    return undefined;
  };

describe('startInMemoryTestEnv', () => {
  let env: TestEnv | undefined;
  const current = () => {
    if (env === undefined) throw new Error('no env');
    return env;
  };
  beforeEach(async () => {
    env = await startInMemoryTestEnv({ crds: [mydemoCrd], namespaces: ['team-a'] });
  });
  afterEach(async () => {
    await env?.stop();
    env = undefined;
  });

  it("hands out clients without client-side throttling, as envtest's config: no rate limiter to wait on", async () => {
    const e = current();
    expect(e.config.qps).toBeLessThan(0);
    expect(rateLimiterFor(e.config)).toBeUndefined();
    expect(new RESTClient(e.config).rateLimiter).toBeUndefined();
    expect(e.clientset.rateLimiter).toBeUndefined();
  });

  it('reconciles once over a cache that holds what the test just wrote, capturing Events', async () => {
    const e = current();
    await e.clientset
      .coreV1()
      .configMaps('team-a')
      .create(configMapOf('settings', { a: '1' }, { namespace: 'team-a' }));
    const request = { namespace: 'team-a', name: 'settings' };
    expect(await e.reconcile(coreV1Resources.configMaps, mirror(current), request)).toBeUndefined();
    const secret = await e.clientset.coreV1().secrets('team-a').get('settings');
    expect(secret.data).toEqual({ a: Buffer.from('1').toString('base64') });
    const events = await e.events();
    expect(events.map((ev) => [ev.reason, ev.message, ev.source?.component])).toEqual([
      ['Mirrored', 'Secret settings written', 'test'],
    ]);
    expect(events[0]?.involvedObject).toMatchObject({ kind: 'ConfigMap', name: 'settings' });
  });

  it('the cache has dropped an object the test deleted before the reconcile', async () => {
    const e = current();
    const configMaps = e.clientset.coreV1().configMaps('default');
    await configMaps.create(configMapOf('gone', {}, { namespace: 'default' }));
    const request = { namespace: 'default', name: 'gone' };
    const seen: (corev1.ConfigMap | undefined)[] = [];
    const record: ReconcileFunc<corev1.ConfigMap> = (_r, ctx) => {
      seen.push(ctx.cached());
    };
    await e.reconcile(coreV1Resources.configMaps, record, request);
    await configMaps.delete('gone');
    await e.reconcile(coreV1Resources.configMaps, record, request, { controller: 'named' });
    expect(seen.map((cm) => cm?.metadata?.name)).toEqual(['gone', undefined]);
  });

  it('installs the CRDs given and reconciles a resource known by group/version/resource', async () => {
    const e = current();
    await e.dynamicClient
      .resource({ group: 'crddemo.k8s.io', version: 'v1', resource: 'mydemos' })
      .namespace('default')
      .create({
        apiVersion: 'crddemo.k8s.io/v1',
        kind: 'Mydemo',
        metadata: { name: 'demo' },
        spec: { ip: '10.0.0.1', port: 80 },
      });
    const ports: unknown[] = [];
    const readPort: ReconcileFunc<Unstructured> = (_r, ctx) => {
      ports.push((ctx.cached()?.spec as { port?: number } | undefined)?.port);
      throw new Error('the reconciler failed');
    };
    await expect(
      e.reconcile('crddemo.k8s.io/v1/mydemos', readPort, { namespace: 'default', name: 'demo' }),
    ).rejects.toThrow('the reconciler failed');
    expect(ports).toEqual([80]);
  });

  it('runs controllers on a Manager until it stops', async () => {
    const e = current();
    await e.startManager((mgr) => {
      controller(mgr).for(coreV1Resources.configMaps).complete(mirror(current));
    });
    await e.clientset
      .coreV1()
      .configMaps('team-a')
      .create(configMapOf('watched', { b: '2' }, { namespace: 'team-a' }));
    await eventually(() => e.clientset.coreV1().secrets('team-a').get('watched'), {
      what: 'the Secret the controller writes',
    });
    const secret = await e.clientset.coreV1().secrets('team-a').get('watched');
    expect(secret.data).toEqual({ b: Buffer.from('2').toString('base64') });
  });
});

it('the README example of startInMemoryTestEnv', async () => {
  const countKeys: ReconcileFunc<corev1.ConfigMap> = (_request, ctx) => {
    const configMap = ctx.cached();
    if (configMap === undefined) return;
    const keys = Object.keys(configMap.data ?? {}).length;
    ctx.recorder.event(configMap, 'Normal', 'Counted', `${keys} keys`);
  };

  await using env = await startInMemoryTestEnv();
  await env.clientset
    .coreV1()
    .configMaps('default')
    .create({ metadata: { name: 'settings' }, data: { a: '1' } });
  const request = { namespace: 'default', name: 'settings' };
  await env.reconcile(coreV1Resources.configMaps, countKeys, request);
  const [event] = await env.events();
  expect([event?.reason, event?.message]).toEqual(['Counted', '1 keys']);
});

describe('a manager that fails after it started', () => {
  it('makes stop() reject with its error once everything stopped', async () => {
    const env = await startInMemoryTestEnv();
    let crash: (error: Error) => void = () => {};
    const crashed = new Promise<never>((_resolve, reject) => {
      crash = reject;
    });
    await env.startManager((mgr) => {
      mgr.add({ name: 'crasher', run: () => crashed });
    });
    crash(new Error('the runnable crashed'));
    await expect(env.stop()).rejects.toThrow('the runnable crashed');
  });

  it('is reported once: by startManager when it fails before its controllers run', async () => {
    const env = await startInMemoryTestEnv();
    await expect(
      env.startManager((mgr) => {
        mgr.add({ name: 'early', run: () => Promise.reject(new Error('failed at once')) });
      }),
    ).rejects.toThrow('failed at once');
    await expect(env.stop()).resolves.toBeUndefined();
  });
});

describe('the cache mutation detector in the test environment', () => {
  it('freezes what the informers cache, so a reconciler that mutates a cached object throws', async () => {
    await using env = await startInMemoryTestEnv();
    await env.clientset
      .coreV1()
      .configMaps('default')
      .create({ metadata: { name: 'frozen' }, data: { a: '1' } });
    const seen: string[] = [];
    await env.reconcile(
      coreV1Resources.configMaps,
      async (request, ctx) => {
        const cached = ctx.cached();
        if (cached === undefined) throw new Error(`${request.name} is not in the cache`);
        expect(() => {
          (cached.data as Record<string, string>).a = '2';
        }).toThrow(TypeError);
        seen.push(cached.data?.a ?? '');
      },
      { namespace: 'default', name: 'frozen' },
    );
    expect(seen).toEqual(['1']);
  });
});
