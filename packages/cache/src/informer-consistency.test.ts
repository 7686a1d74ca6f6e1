// A randomized end-to-end check of the whole pipeline against an in-process "server":
// after many creates/updates/deletes, with watches dropped by 410 (and changes made while
// disconnected, i.e. missed) or closed cleanly, the cache equals the server and every
// handler saw the final state of every object.

import { FakeClock } from '@kubets/apimachinery/testing';
import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  expiredStatus,
  FakeListerWatcher,
  type FakeWatch,
  listOf,
  pod,
  storeVersions,
  type TestPod,
} from '../test/helpers.js';
import { deletionHandlingMetaNamespaceKeyFunc } from './keys.js';
import { newSharedIndexInformer } from './shared-informer.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('informer consistency', () => {
  it.each([1, 2, 3])('converges to the server state (seed %i)', async (seed) => {
    const random = rng(seed);
    const server = new Map<string, TestPod>();
    let rv = 1;
    const lw = new FakeListerWatcher<TestPod>();
    let current: FakeWatch<TestPod> | undefined;
    lw.listFn = () => listOf(Array.from(server.values()), String(rv));
    lw.onWatch = (w) => {
      current = w;
    };
    const clock = new FakeClock();
    const informer = newSharedIndexInformer(lw, 'pods', { clock, random });

    const views = [new Map<string, string>(), new Map<string, string>()];
    views.forEach((view, i) => {
      informer.addEventHandler({
        onAdd: async (p) => {
          if (i === 1 && random() < 0.1) await new Promise((r) => setTimeout(r, 0));
          view.set(deletionHandlingMetaNamespaceKeyFunc(p), p.metadata.resourceVersion ?? '');
        },
        onUpdate: (_o, p) =>
          void view.set(deletionHandlingMetaNamespaceKeyFunc(p), p.metadata.resourceVersion ?? ''),
        onDelete: (p) => void view.delete(deletionHandlingMetaNamespaceKeyFunc(p)),
      });
    });
    const ac = new AbortController();
    const done = informer.run(ac.signal);

    const connected = async (): Promise<FakeWatch<TestPod>> => {
      for (;;) {
        if (current && !current.stopped) return current;
        if (clock.pending > 0) clock.stepToNext(); // backoffs
        await new Promise((r) => setImmediate(r));
      }
    };

    for (let op = 0; op < 400; op++) {
      const w = await connected();
      const name = `p${Math.floor(random() * 40)}`;
      const key = `default/${name}`;
      const silent = random() < 0.1; // a change the watch will miss
      const r = random();
      let event: Parameters<FakeWatch<TestPod>['push']>[0] | undefined;
      rv++;
      if (!server.has(key)) {
        const obj = pod(name, String(rv));
        server.set(key, obj);
        event = { type: 'ADDED', object: obj };
      } else if (r < 0.6) {
        const obj = pod(name, String(rv));
        server.set(key, obj);
        event = { type: 'MODIFIED', object: obj };
      } else {
        server.delete(key);
        event = { type: 'DELETED', object: pod(name, String(rv)) };
      }
      if (silent) {
        w.push({ type: 'ERROR', object: expiredStatus() });
        current = undefined;
      } else {
        w.push(event);
        if (random() < 0.05) {
          w.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(rv) } } });
          w.close();
          current = undefined;
        }
      }
      if (op % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    await connected();

    const expected = new Map(
      Array.from(server, ([k, p]) => [k, p.metadata.resourceVersion ?? ''] as const),
    );
    const same = (a: Map<string, string>): boolean =>
      a.size === expected.size && Array.from(expected).every(([k, v]) => a.get(k) === v);
    await eventually(() => same(storeVersions(informer.getStore())) && views.every(same), {
      timeoutMs: 5000,
      what: 'convergence',
    });
    expect(lw.listCalls.length).toBeGreaterThan(1);
    ac.abort();
    await done;
  });
});
