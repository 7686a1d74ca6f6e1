import type { HasObjectMeta } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { deletedFinalStateUnknown, newIndexer, type ResourceEventHandler } from '@kubets/cache';
import { coreV1Resources } from '@kubets/clientset';
import { configMapOf, flush, rejectionOf, thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import {
  controller,
  Manager,
  type ObservableCache,
  waitForCacheDeletion,
  waitForCacheWrite,
} from './index.js';

const shared = useSharedApiServer();

type Obj = HasObjectMeta;
const obj = (resourceVersion: string, uid = 'u1'): Obj => ({
  metadata: { namespace: 'default', name: 'web', uid, resourceVersion },
});

/** A cache whose contents and events the test drives, one step at a time. */
function fakeCache() {
  const indexer = newIndexer<Obj>();
  const handlers: ResourceEventHandler<Obj>[] = [];
  const cache: ObservableCache<Obj> = {
    getIndexer: () => indexer,
    addEventHandler: (handler) => void handlers.push(handler),
  };
  return {
    cache,
    handlers,
    update(o: Obj) {
      const old = indexer.getByKey('default/web');
      indexer.update(o);
      for (const h of handlers) {
        if (old) h.onUpdate?.(old, o);
        else h.onAdd?.(o, false);
      }
    },
    remove(tombstone: boolean) {
      const old = indexer.getByKey('default/web') as Obj;
      indexer.delete(old);
      for (const h of handlers) {
        h.onDelete?.(tombstone ? deletedFinalStateUnknown('default/web', old) : old);
      }
    },
  };
}

/** Whether `promise` has settled, after the pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await flush();
  return done;
}

describe('waitForCacheWrite', () => {
  it.each([
    { name: 'the same resourceVersion', cached: obj('5'), passes: true },
    { name: 'a newer one', cached: obj('12'), passes: true },
    { name: 'an older one', cached: obj('4'), passes: false },
    { name: 'a re-created object (other uid)', cached: obj('1', 'u2'), passes: true },
    { name: 'nothing', cached: undefined, passes: false },
  ])('against $name in the cache: resolved at once = $passes', async ({ cached, passes }) => {
    const fake = fakeCache();
    if (cached) fake.update(cached);
    expect(await settled(waitForCacheWrite(fake.cache, obj('5')))).toBe(passes);
  });

  it.each([
    // A later write by someone else (7) means ours (5) is in the past.
    {
      name: 'numbers: pending through older ones, done at the first not older',
      written: '5',
      seen: ['3', '4', '7'],
    },
    { name: 'not numbers: done at an equal one only', written: 'a', seen: ['b', 'c', 'a'] },
  ])('resourceVersions as $name', async ({ written, seen }) => {
    const fake = fakeCache();
    const waiting = waitForCacheWrite(fake.cache, obj(written));
    for (const [i, resourceVersion] of seen.entries()) {
      fake.update(obj(resourceVersion));
      expect(await settled(waiting)).toBe(i === seen.length - 1);
    }
    await waiting;
  });

  it('one handler per informer, however many waits', async () => {
    const fake = fakeCache();
    const waits = [obj('2'), obj('3'), obj('2')].map((w) => waitForCacheWrite(fake.cache, w));
    expect(fake.handlers).toHaveLength(1);
    fake.update(obj('3'));
    await Promise.all(waits);
  });

  it('rejects on timeout (fake clock) and on abort', async () => {
    const fake = fakeCache();
    const clock = new FakeClock();
    const timedOut = waitForCacheWrite(fake.cache, obj('5'), { timeoutMs: 1_000, clock });
    clock.step(999);
    expect(await settled(timedOut)).toBe(false);
    clock.step(1);
    expect(String(await rejectionOf(timedOut))).toContain(
      'the cache did not see resourceVersion 5 of default/web within 1000 ms',
    );
    const abort = new AbortController();
    const aborted = waitForCacheWrite(fake.cache, obj('5'), { signal: abort.signal });
    abort.abort(new Error('shutting down'));
    expect(String(await rejectionOf(aborted))).toContain('shutting down');
    abort.abort();
    expect(
      String(await rejectionOf(waitForCacheWrite(fake.cache, obj('5'), { signal: abort.signal }))),
    ).toContain('shutting down');
  });

  it.each([
    { name: 'no name', written: { metadata: {} }, message: 'needs an object with metadata.name' },
    {
      name: 'no resourceVersion',
      written: { metadata: { namespace: 'default', name: 'web' } },
      message:
        "needs the written object's metadata.resourceVersion (pass what the server returned), default/web has none",
    },
  ])('refuses an object with $name', ({ written, message }) => {
    expect(String(thrownBy(() => waitForCacheWrite(fakeCache().cache, written)))).toContain(
      message,
    );
  });
});

describe('waitForCacheDeletion', () => {
  it.each([{ tombstone: false }, { tombstone: true }])(
    'resolves once the object is gone from the cache (tombstone: $tombstone)',
    async ({ tombstone }) => {
      const fake = fakeCache();
      fake.update(obj('5'));
      const waiting = waitForCacheDeletion(fake.cache, obj('5'));
      fake.update(obj('6'));
      expect(await settled(waiting)).toBe(false);
      fake.remove(tombstone);
      await waiting;
    },
  );

  it('counts a re-created object of the same name as gone, and an absent one at once', async () => {
    const fake = fakeCache();
    expect(await settled(waitForCacheDeletion(fake.cache, obj('5')))).toBe(true);
    fake.update(obj('5'));
    const waiting = waitForCacheDeletion(fake.cache, obj('5'));
    fake.update(obj('9', 'u2'));
    await waiting;
  });
});

describe('read-your-writes on a manager', () => {
  it('after a write, the cache the reconciler reads holds it once the wait resolves', async () => {
    const namespace = await shared.createNamespace('ryw-a');
    const mgr = new Manager({ host: shared.server.host, qps: -1 }, { namespace });
    controller(mgr)
      .for(coreV1Resources.configMaps)
      .complete(() => {});
    const abort = new AbortController();
    const running = mgr.start(abort.signal);
    const informer = mgr.informers.forResource(coreV1Resources.configMaps);
    const cms = mgr.clientset.coreV1().configMaps(namespace);
    const created = await cms.create(configMapOf('cfg', { v: '1' }));
    await waitForCacheWrite(informer.informer(), created);
    expect(informer.lister().byNamespace(namespace).get('cfg').data).toEqual({ v: '1' });
    for (const v of ['2', '3', '4']) {
      const updated = await cms.update({ ...(await cms.get('cfg')), data: { v } });
      await waitForCacheWrite(informer.informer(), updated);
      expect(informer.lister().byNamespace(namespace).get('cfg').data).toEqual({ v });
    }
    await cms.delete('cfg');
    await waitForCacheDeletion(informer.informer(), created);
    expect(informer.lister().byNamespace(namespace).list()).toEqual([]);
    abort.abort();
    await running;
  });
});
