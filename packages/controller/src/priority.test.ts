import type { ResourceEventHandler } from '@kubets/cache';
import { coreV1Resources, type corev1 } from '@kubets/clientset';
import { newSharedInformerFactory } from '@kubets/informers';
import { configMapOf, eventually } from '@kubets/test-utils';
import { type MetricsProvider, PriorityQueue, RateLimitingQueue } from '@kubets/workqueue';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import {
  Controller,
  controller,
  LOW_PRIORITY,
  type ReconcileRequest,
  withLowPriorityWhenUnchanged,
} from './index.js';

const shared = useSharedApiServer();

/** A workqueue metrics provider that keeps only the depth by priority. */
function depthByPriority() {
  const depth = new Map<number, number>();
  const nothing = { inc() {}, dec() {}, set() {}, observe() {} };
  const provider: MetricsProvider = {
    newDepthMetric: () => nothing,
    newAddsMetric: () => nothing,
    newLatencyMetric: () => nothing,
    newWorkDurationMetric: () => nothing,
    newUnfinishedWorkSecondsMetric: () => nothing,
    newLongestRunningProcessorSecondsMetric: () => nothing,
    newRetriesMetric: () => nothing,
    newDepthMetricWithPriority: () => ({
      inc: (priority) => depth.set(priority, (depth.get(priority) ?? 0) + 1),
      dec: (priority) => depth.set(priority, (depth.get(priority) ?? 0) - 1),
    }),
  };
  return { provider, at: (priority: number) => depth.get(priority) ?? 0 };
}

describe('the priority queue in a controller', () => {
  it('reconciles a real update before 1,000 objects of the initial list once workers start', async () => {
    const namespace = await shared.createNamespace('priority-list');
    const cms = shared.clientset.coreV1().configMaps(namespace);
    for (let i = 0; i < 1000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => cms.create(configMapOf(`listed-${i + j}`, {}))),
      );
    }
    const depth = depthByPriority();
    const factory = newSharedInformerFactory(shared.clientset, { defaultResyncMs: 0, namespace });
    const reconciled: string[] = [];
    const ctl = controller({ informers: factory, workqueueMetrics: depth.provider })
      .named('priority-list')
      .for(coreV1Resources.configMaps)
      .complete(({ name }) => void reconciled.push(name));
    expect(ctl.queue).toBeInstanceOf(PriorityQueue);
    const abort = new AbortController();
    factory.start(abort.signal);

    // Workers not started: the initial list's 1,000 requests wait at low priority.
    await eventually(() => depth.at(LOW_PRIORITY) === 1000, { what: 'the listed requests' });
    const changed = await cms.get('listed-500');
    await cms.update({ ...changed, data: { changed: 'yes' } });
    // Its request moves up to the default priority.
    await eventually(() => depth.at(0) === 1, { what: 'the update' });
    expect(depth.at(LOW_PRIORITY)).toBe(999);
    expect(reconciled).toEqual([]);

    const running = ctl.run(abort.signal);
    await eventually(() => reconciled.length === 1000, { what: '1,000 reconciles' });
    expect(reconciled[0]).toBe('listed-500');
    expect(new Set(reconciled).size).toBe(1000);
    abort.abort();
    await running;
    await factory.shutdown();
  });

  it('uses the plain rate-limiting queue when asked to', async () => {
    const namespace = await shared.createNamespace('priority-off');
    const factory = newSharedInformerFactory(shared.clientset, { defaultResyncMs: 0, namespace });
    const reconciled: string[] = [];
    const ctl = controller({ informers: factory })
      .for(coreV1Resources.configMaps)
      .withOptions({ usePriorityQueue: false })
      .complete(({ name }) => void reconciled.push(name));
    expect(ctl.queue).toBeInstanceOf(RateLimitingQueue);
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = ctl.run(abort.signal);
    await shared.clientset.coreV1().configMaps(namespace).create(configMapOf('plain', {}));
    await eventually(() => reconciled.includes('plain'));
    abort.abort();
    await running;
    await factory.shutdown();
  });
});

describe('withLowPriorityWhenUnchanged', () => {
  const cm = (name: string, resourceVersion: string): corev1.ConfigMap => ({
    metadata: { namespace: 'default', name, resourceVersion },
  });

  function recorded() {
    const queued: [string, number | undefined][] = [];
    const handler = withLowPriorityWhenUnchanged<corev1.ConfigMap>(
      (priority): ResourceEventHandler<corev1.ConfigMap> => ({
        onAdd: (obj) => void queued.push([`add ${obj.metadata?.name}`, priority]),
        onUpdate: (_old, obj) => void queued.push([`update ${obj.metadata?.name}`, priority]),
        onDelete: () => void queued.push(['delete', priority]),
      }),
    );
    return { handler, queued };
  }

  it('queues the initial list and resyncs low, every change at the default priority', () => {
    const { handler, queued } = recorded();
    handler.onAdd?.(cm('listed', '1'), true);
    handler.onAdd?.(cm('created', '2'), false);
    handler.onUpdate?.(cm('resynced', '3'), cm('resynced', '3'));
    handler.onUpdate?.(cm('changed', '3'), cm('changed', '4'));
    handler.onDelete?.(cm('deleted', '5'));
    expect(queued).toEqual([
      ['add listed', LOW_PRIORITY],
      ['add created', undefined],
      ['update resynced', LOW_PRIORITY],
      ['update changed', undefined],
      ['delete', undefined],
    ]);
  });

  it('ignores the priority on a controller without the priority queue', () => {
    const ctl = new Controller<corev1.ConfigMap>({
      name: 'plain-queue',
      reconciler: () => undefined,
      lister: { list: () => [], get: () => undefined } as never,
      usePriorityQueue: false,
    });
    const request: ReconcileRequest = { namespace: 'default', name: 'x' };
    ctl.enqueue(request, LOW_PRIORITY);
    ctl.enqueue(request);
    expect(ctl.queue.len()).toBe(1);
    ctl.queue.shutDown();
  });
});
