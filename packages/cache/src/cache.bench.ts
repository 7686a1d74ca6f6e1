// Throughput of the cache. Run with `pnpm bench` (vitest bench --run) in this package.
// Each benchmark function handles a fixed batch of 10k objects, so ops/s × 10k = objects/s.
import { test } from 'vitest';
import { FakeListerWatcher, listOf, type TestPod } from '../test/helpers.js';
import { DeltaFIFO } from './compat.js';
import { newSharedIndexInformer } from './shared-informer.js';
import { newIndexer } from './store.js';
import { metaNamespaceIndexFunc, namespaceIndex } from './thread-safe-store.js';

const N = 10_000;

function makePods(rv: number): TestPod[] {
  return Array.from({ length: N }, (_, i) => ({
    metadata: {
      name: `pod-${i}`,
      namespace: `ns-${i % 20}`,
      resourceVersion: String(rv + i),
      labels: { app: `app-${i % 100}` },
    },
    spec: { nodeName: `node-${i % 50}` },
  }));
}

const pods = makePods(1);
const updated = makePods(N + 1);

test('DeltaFIFO: 10k adds then 10k pops', async ({ bench }) => {
  await bench('DeltaFIFO add ×10k + pop ×10k', async () => {
    const f = new DeltaFIFO<TestPod>();
    for (const p of pods) f.add(p);
    const process = (): void => {};
    for (let i = 0; i < N; i++) await f.pop(process);
  }).run();
});

test('DeltaFIFO: replace of 10k over a 10k indexer, then drain', async ({ bench }) => {
  const known = newIndexer<TestPod>();
  for (const p of pods) known.add(p);
  await bench('DeltaFIFO replace ×10k + pop ×10k', async () => {
    const f = new DeltaFIFO<TestPod>({ knownObjects: known, emitDeltaTypeReplaced: true });
    f.replace(updated, '99');
    const process = (): void => {};
    while (f.length > 0) await f.pop(process);
  }).run();
});

test('Indexer: 10k adds, 10k updates, byIndex', async ({ bench }) => {
  await bench('indexer add ×10k + update ×10k (2 indexes)', () => {
    const ix = newIndexer<TestPod>(undefined, {
      [namespaceIndex]: metaNamespaceIndexFunc,
      node: (p) => [p.spec?.nodeName ?? ''],
    });
    for (const p of pods) ix.add(p);
    for (const p of updated) ix.update(p);
  }).run();
  const ix = newIndexer<TestPod>(undefined, { [namespaceIndex]: metaNamespaceIndexFunc });
  for (const p of pods) ix.add(p);
  await bench('byIndex(namespace) ×20 over 10k (500 hits each)', () => {
    for (let i = 0; i < 20; i++) ix.byIndex(namespaceIndex, `ns-${i}`);
  }).run();
});

test('SharedIndexInformer: 10k watch updates through reflector → FIFO → indexer → handler', async ({
  bench,
}) => {
  await bench('informer: list 10k + 10k MODIFIED events to one handler', async () => {
    const lw = new FakeListerWatcher<TestPod>();
    lw.listFn = () => listOf(pods, '1');
    const informer = newSharedIndexInformer(lw, 'pods', {
      indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
    });
    let updates = 0;
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    informer.addEventHandler({
      onUpdate: () => {
        if (++updates === N) finish();
      },
    });
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    const w = await lw.watchNumber(1, 10_000);
    for (const p of updated) w.push({ type: 'MODIFIED', object: p });
    await done;
    ac.abort();
    await running;
  }).run();
});
