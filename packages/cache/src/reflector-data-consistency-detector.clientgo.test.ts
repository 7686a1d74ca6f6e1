// client-go's tools/cache/reflector_data_consistency_detector_test.go, ported: the InOrder
// rows use the informers' RealFIFO, the others a DeltaFIFO, each with and without a
// transformer. The last case (an inconsistent stream) is kubets' own.

import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { abortedAfterTest, FakeListerWatcher, listOf, type TestPod } from '../test/helpers.js';
import { DeltaFIFO } from './compat.js';
import {
  DataInconsistencyError,
  watchListInconsistencyDetectorEnvVar,
} from './data-consistency-detector.js';
import { Reflector } from './reflector.js';
import type { ReflectorStore } from './reflector-options.js';
import { newStore } from './store.js';
import { RealFIFO } from './the-real-fifo.js';

const markTransformed = (pod: TestPod): TestPod => ({
  ...pod,
  metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, transformed: 'true' } },
});

const pod1 = (): TestPod => ({ metadata: { name: 'pod-1', resourceVersion: '1' } });

/** The queue client-go's `newQueueFIFO` builds for an informer. */
function newQueueFIFO(inOrder: boolean, transformer: ((pod: TestPod) => TestPod) | undefined) {
  if (inOrder) {
    return new RealFIFO<TestPod>({ emitDeltaTypeBookmark: true, transformer });
  }
  return new DeltaFIFO<TestPod>({
    knownObjects: newStore<TestPod>(),
    emitDeltaTypeReplaced: true,
    transformer,
  });
}

/** A streaming-list reflector over `listed` (plain lists) and a stream of pod-1 at RV 1. */
function runTestReflectorDataConsistencyDetector(
  store: ReflectorStore<TestPod>,
  listed: TestPod[],
) {
  const lw = new FakeListerWatcher<TestPod>();
  lw.watchListSemanticsUnsupported = false;
  lw.listFn = () => listOf(listed, '1');
  lw.onWatch = (w) => {
    w.push(
      { type: 'ADDED', object: pod1() },
      {
        type: 'BOOKMARK',
        object: {
          metadata: {
            name: 'pod-1',
            resourceVersion: '1',
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        } as TestPod,
      },
    );
  };
  const r = new Reflector<TestPod>(lw, store, { clock: new FakeClock(), useStreamingList: true });
  return { r, lw };
}

describe('client-go reflector_data_consistency_detector_test.go', () => {
  beforeEach(() => {
    vi.stubEnv(watchListInconsistencyDetectorEnvVar, 'true');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  describe.each([false, true])('TestReflectorDataConsistencyDetector InOrder=%s', (inOrder) => {
    it.each([false, true])('Transformer=%s', async (transformerEnabled) => {
      const fifo = newQueueFIFO(inOrder, transformerEnabled ? markTransformed : undefined);
      const { r, lw } = runTestReflectorDataConsistencyDetector(fifo, [pod1()]);
      const ac = abortedAfterTest();
      const done = r.listAndWatch(ac.signal);
      await eventually(() => r.lastSyncResourceVersion() !== '');
      ac.abort(new Error('done'));
      await expect(done).resolves.toBeUndefined();
      // The check listed exactly at the streamed resourceVersion.
      expect(lw.listCalls).toEqual([{ resourceVersion: '1', resourceVersionMatch: 'Exact' }]);
    });
  });

  it('an inconsistent stream fails the list-and-watch (client-go panics)', async () => {
    const fifo = newQueueFIFO(true, undefined);
    const pod2: TestPod = { metadata: { name: 'pod-2', resourceVersion: '1' } };
    const { r } = runTestReflectorDataConsistencyDetector(fifo, [pod1(), pod2]);
    await expect(r.listAndWatch(abortedAfterTest().signal)).rejects.toThrow(DataInconsistencyError);
    expect(fifo.length, 'nothing handed over').toBe(0);
  });
});
