import { noopMetricsProvider } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { FakeListerWatcher, listOf, pod, type TestPod } from '../test/helpers.js';
import {
  type InformerFactoryContext,
  type InformerMetricsOptions,
  newKeyedInformerFactory,
} from './factory.js';
import { newInformerName } from './identity.js';
import type { InformerMetricsProvider } from './informer-metrics.js';
import { tweakListerWatcher } from './listwatch.js';
import type { ReflectorMetricsProvider } from './reflector-metrics.js';
import { newSharedIndexInformer, type SharedIndexInformer } from './shared-informer.js';

describe('SharedInformerFactory', () => {
  it('hands out one informer per key with the factory settings, starts, syncs and shuts down', async () => {
    const pods = new FakeListerWatcher<TestPod>();
    pods.listFn = () => listOf([pod('a')], '1');
    const others = new FakeListerWatcher<TestPod>();
    let releaseList: () => void = () => {};
    others.listFn = () =>
      new Promise((resolve) => {
        releaseList = () => resolve(listOf([], '1'));
      });
    const factory = newKeyedInformerFactory({
      defaultResyncMs: 60_000,
      namespace: 'team-a',
      tweakListOptions: (o) => {
        o.labelSelector = 'app=web';
      },
      customResync: { others: 5000 },
    });
    expect(factory.namespace).toBe('team-a');
    const contexts: unknown[] = [];
    let created = 0;
    const podInformer = factory.informerFor<TestPod>('pods', (ctx) => {
      created++;
      contexts.push(ctx);
      return newSharedIndexInformer(tweakListerWatcher(pods, ctx.tweakListOptions), 'pods', {
        resyncPeriodMs: ctx.resyncPeriodMs,
        clock: new FakeClock(),
      });
    });
    expect(
      factory.informerFor<TestPod>('pods', () => {
        throw new Error('not called');
      }),
    ).toBe(podInformer);
    expect(created).toBe(1);
    factory.informerFor<TestPod>('others', (ctx) => {
      contexts.push(ctx);
      return newSharedIndexInformer(others, 'others', { clock: new FakeClock() });
    });
    expect(contexts).toEqual([
      {
        resyncPeriodMs: 60_000,
        namespace: 'team-a',
        tweakListOptions: expect.any(Function),
        metrics: {},
      },
      {
        resyncPeriodMs: 5000,
        namespace: 'team-a',
        tweakListOptions: expect.any(Function),
        metrics: {},
      },
    ]);

    const ac = new AbortController();
    factory.start(ac.signal);
    factory.start(ac.signal); // starting twice does not run anything twice
    await pods.watchNumber(1);
    expect(pods.listCalls[0]?.labelSelector).toBe('app=web');

    // Not all synced when the wait is aborted.
    const waitAc = new AbortController();
    const partial = factory.waitForCacheSync(waitAc.signal);
    await eventually(() => podInformer.hasSynced());
    waitAc.abort();
    expect(await partial).toEqual(
      new Map([
        ['pods', true],
        ['others', false],
      ]),
    );
    releaseList();
    expect(await factory.waitForCacheSync(ac.signal)).toEqual(
      new Map([
        ['pods', true],
        ['others', true],
      ]),
    );

    // An informer registered after start runs on the next start.
    const late = new FakeListerWatcher<TestPod>();
    const lateInformer = factory.informerFor<TestPod>('late', () =>
      newSharedIndexInformer(late, 'late', { clock: new FakeClock() }),
    );
    expect((await factory.waitForCacheSync(ac.signal)).has('late')).toBe(false);
    factory.start(ac.signal);
    await late.watchNumber(1);

    await factory.shutdown();
    expect(podInformer.isStopped()).toBe(true);
    expect(lateInformer.isStopped()).toBe(true);
    factory.start(ac.signal);
    expect(pods.listCalls).toHaveLength(1);
  });

  it('keys a resource with informerKey and sets the factory transform on the informers it creates', () => {
    const seen: string[] = [];
    const factory = newKeyedInformerFactory({
      defaultResyncMs: 0,
      customResync: { 'apps/v1/deployments': 5000, 'v1/pods': 7000 },
      transform: (obj) => {
        seen.push('transformed');
        return obj;
      },
    });
    const periods: number[] = [];
    let transform: ((obj: TestPod) => TestPod) | undefined;
    const deployments = factory.informerFor<TestPod>(
      { group: 'apps', version: 'v1', resource: 'deployments' },
      (ctx) => {
        periods.push(ctx.resyncPeriodMs);
        const informer = newSharedIndexInformer(new FakeListerWatcher<TestPod>(), 'deployments');
        const setTransform = informer.setTransform.bind(informer);
        informer.setTransform = (t) => {
          transform = t;
          setTransform(t);
        };
        return informer;
      },
    );
    expect(
      factory.informerFor<TestPod>('apps/v1/deployments', () => {
        throw new Error('not called');
      }),
    ).toBe(deployments);
    factory.informerFor<TestPod>({ group: '', version: 'v1', resource: 'pods' }, (ctx) => {
      periods.push(ctx.resyncPeriodMs);
      return newSharedIndexInformer(new FakeListerWatcher<TestPod>(), 'pods');
    });
    expect(periods).toEqual([5000, 7000]);
    transform?.(pod('a'));
    expect(seen).toEqual(['transformed']);
  });

  it("hands each informer the factory's metrics settings, with its resource in the identity", () => {
    const informerName = newInformerName('factory-metrics-test');
    const informerMetricsProvider = noopMetricsProvider<InformerMetricsProvider>();
    const reflectorMetricsProvider = noopMetricsProvider<ReflectorMetricsProvider>();
    const factory = newKeyedInformerFactory({
      defaultResyncMs: 0,
      informerName,
      informerMetricsProvider,
      reflectorMetricsProvider,
    });
    const seen = new Map<string, InformerMetricsOptions>();
    const record =
      (key: string) =>
      (ctx: InformerFactoryContext): SharedIndexInformer<TestPod> => {
        seen.set(key, ctx.metrics);
        return newSharedIndexInformer(new FakeListerWatcher<TestPod>(), key);
      };
    factory.informerFor({ group: 'apps', version: 'v1', resource: 'deployments' }, record('gvr'));
    factory.informerFor('v1/pods', record('core key'));
    factory.informerFor('example.com/v1/widgets', record('group key'));
    factory.informerFor('not a resource key', record('other key'));
    const identities = Object.fromEntries(
      [...seen].map(([key, metrics]) => [
        key,
        metrics.identifier && {
          name: metrics.identifier.name,
          ...metrics.identifier.groupVersionResource,
          reserved: metrics.identifier.reserved(),
        },
      ]),
    );
    expect(identities).toEqual({
      gvr: {
        name: 'factory-metrics-test',
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        reserved: true,
      },
      'core key': {
        name: 'factory-metrics-test',
        group: '',
        version: 'v1',
        resource: 'pods',
        reserved: true,
      },
      'group key': {
        name: 'factory-metrics-test',
        group: 'example.com',
        version: 'v1',
        resource: 'widgets',
        reserved: true,
      },
      'other key': undefined,
    });
    for (const metrics of seen.values()) {
      expect(metrics.informerMetricsProvider).toBe(informerMetricsProvider);
      expect(metrics.metricsProvider).toBe(reflectorMetricsProvider);
    }
    informerName.release();
  });

  it('hands no metrics settings when none were given', () => {
    const factory = newKeyedInformerFactory({ defaultResyncMs: 0 });
    let metrics: InformerMetricsOptions | undefined;
    factory.informerFor('v1/pods', (ctx) => {
      metrics = ctx.metrics;
      return newSharedIndexInformer(new FakeListerWatcher<TestPod>(), 'pods');
    });
    expect(metrics).toEqual({});
  });
});
