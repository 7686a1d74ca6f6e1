import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { abortedAfterTest, FakeListerWatcher, listOf, pod, type TestPod } from '../test/helpers.js';
import { anonymousInformerIdentity, newInformerName } from './identity.js';
import * as metrics from './informer-metrics.js';
import { newSharedIndexInformer } from './shared-informer.js';

const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
const pods = { group: '', version: 'v1', resource: 'pods' };

/** Records every update as `metric(name/resource) value`. */
function recordingProvider() {
  const log: string[] = [];
  const label = (id: { name: string; groupVersionResource: { resource: string } }) =>
    `${id.name}/${id.groupVersionResource.resource}`;
  const provider: metrics.InformerMetricsProvider = {
    newQueuedItemMetric: (id) => ({ set: (v) => void log.push(`queued(${label(id)}) ${v}`) }),
    newProcessingLatencyMetric: (id) => ({
      observe: (v) => void log.push(`latency(${label(id)}) ${v}`),
    }),
    newStoreResourceVersionMetric: (id) => ({
      set: (v) => void log.push(`storeRV(${label(id)}) ${v}`),
    }),
  };
  return { provider, log };
}

afterEach(() => metrics.setInformerMetricsProvider(metrics.noopInformerMetricsProvider));

describe('informer identities (client-go InformerName)', () => {
  it('refuses an empty or registered name, and hands a released one out again', () => {
    expect(() => newInformerName('')).toThrow('informer name cannot be empty');
    const name = newInformerName('controller-a');
    expect(() => newInformerName('controller-a')).toThrow(
      'informer name "controller-a" is already registered',
    );
    name.release();
    newInformerName('controller-a').release();
  });

  it('reserves a resource once per name; release unreserves every identity', () => {
    const name = newInformerName('controller-b');
    const first = name.withResource(deployments);
    const duplicate = name.withResource(deployments);
    const other = name.withResource(pods);
    expect([first.reserved(), duplicate.reserved(), other.reserved()]).toEqual([true, false, true]);
    expect(first.name).toBe('controller-b');
    expect(first.groupVersionResource).toEqual(deployments);
    name.release();
    expect([first.reserved(), other.reserved()]).toEqual([false, false]);
    expect(name.withResource(pods).reserved()).toBe(false);
    expect(anonymousInformerIdentity().reserved()).toBe(false);
  });

  it('creates metrics only for a reserved identity with a provider', () => {
    const { provider } = recordingProvider();
    const name = newInformerName('controller-c');
    try {
      const id = name.withResource(pods);
      expect(metrics.newFIFOMetrics(id)).toBeUndefined(); // the no-op provider: nothing to pay
      expect(metrics.newStoreResourceVersionMetric(id)).toBeUndefined();
      expect(metrics.newFIFOMetrics(anonymousInformerIdentity(), provider)).toBeUndefined();
      expect(metrics.newFIFOMetrics(name.withResource(pods), provider)).toBeUndefined(); // duplicate
      expect(metrics.newFIFOMetrics(id, provider)).toBeDefined();
      metrics.setInformerMetricsProvider(provider);
      expect(metrics.newStoreResourceVersionMetric(id)).toBeDefined();
    } finally {
      name.release();
    }
  });
});

/**
 * Runs an informer named `controller` with a recording provider through a list of pod `a`
 * (list resourceVersion 7) and a watched ADDED of pod `b` (resourceVersion 8); returns the log.
 */
async function metricsOfListThenAdd(controller: string): Promise<string[]> {
  const { provider, log } = recordingProvider();
  const name = newInformerName(controller);
  try {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([pod('a', '5')], '7');
    const informer = newSharedIndexInformer(lw, 'pods', {
      clock: new FakeClock(),
      identifier: name.withResource(pods),
      informerMetricsProvider: provider,
    });
    void informer.run(abortedAfterTest().signal);
    const w = await lw.watchNumber(1);
    await eventually(() => informer.hasSynced());
    w.push({ type: 'ADDED', object: pod('b', '8') });
    await eventually(() => informer.getStore().listKeys().length === 2);
    return log;
  } finally {
    name.release();
  }
}

describe('informer_store_resource_version', () => {
  it("follows the informer's store: list, then watch events and bookmarks", async () => {
    const storeLog = (await metricsOfListThenAdd('controller-d')).filter((l) =>
      l.startsWith('storeRV'),
    );
    expect(storeLog).toContain('storeRV(controller-d/pods) 8');
    expect(storeLog[0]).toMatch(/^storeRV\(controller-d\/pods\) [57]$/);
  });
});

describe('informer_queued_items and informer_processing_latency_seconds', () => {
  it("follow the informer's RealFIFO: each queued delta, each processed one", async () => {
    const fifoLog = (await metricsOfListThenAdd('controller-e')).filter(
      (l) => !l.startsWith('storeRV'),
    );
    // The relist queues one ReplacedAll delta, popped and processed; then the watch's Added.
    expect(fifoLog.filter((l) => l.startsWith('queued'))).toEqual([
      'queued(controller-e/pods) 1',
      'queued(controller-e/pods) 0',
      'queued(controller-e/pods) 1',
      'queued(controller-e/pods) 0',
    ]);
    const latencies = fifoLog.filter((l) => l.startsWith('latency'));
    expect(latencies).toHaveLength(2);
    for (const l of latencies) {
      expect(Number(l.split(' ')[1])).toBeGreaterThanOrEqual(0);
    }
  });

  it('are not recorded for an informer without an identifier', async () => {
    const { provider, log } = recordingProvider();
    metrics.setInformerMetricsProvider(provider);
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf([pod('a', '5')], '7');
    const informer = newSharedIndexInformer(lw, 'pods', { clock: new FakeClock() });
    void informer.run(abortedAfterTest().signal);
    await eventually(() => informer.hasSynced());
    expect(log).toEqual([]);
  });
});
