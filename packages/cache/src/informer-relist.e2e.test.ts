// One informer's life on kube-apiserver 1.20 over TLS (client certificate): it syncs, sees an
// update and a delete as they happen, and relists after a 410. scripts/test-runtimes.sh runs
// this file on Bun and Deno too, so it uses nothing but the informer's public API and the
// chaos suite's helpers.
//
// kube-apiserver runs without its watch cache here, so a watch from a resourceVersion etcd
// has compacted away is answered 410 at once, without restarting the server (the chaos
// suite's compaction scenario covers the watch cache).

import { isGone, isResourceExpired } from '@kubets/apimachinery';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { type Config, loadConfig, RESTClient } from '@kubets/rest';
import { ChaosProxy } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configMaps,
  expectConverged,
  listFromServer,
  type Obj,
  startInformer,
  UnhandledRejections,
  versionAnnotation,
  Writer,
} from '../test/chaos/helpers.js';
import { compactEtcd, etcdRevision } from '../test/etcd.js';

/** Generous: the machine may be busy; never a timing assertion. */
const convergeMs = 120_000;

let env: Envtest;
let config: Config;
let proxy: ChaosProxy;
const unhandled = new UnhandledRejections();

beforeAll(async () => {
  env = await startEnvtest({ apiServerFlags: { 'watch-cache': 'false' } });
  config = { ...loadConfig({ kubeconfig: env.kubeconfigPath }), qps: -1 };
  proxy = await ChaosProxy.start(env.host);
});

afterAll(async () => {
  await proxy?.close();
  await env?.stop();
});

describe('an informer on kube-apiserver 1.20 over TLS', () => {
  it('syncs, sees an update and a delete, and relists after a 410', async () => {
    unhandled.start();
    expect(config.host).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const client = new RESTClient(config, { groupVersion: 'v1' });
    const writer = new Writer(client);
    const ns = 'informer-relist';
    await writer.create({ resource: 'namespaces', kind: 'Namespace' }, '', ns, '0');
    for (let i = 0; i < 4; i++) await writer.create(configMaps, ns, `cm-${i}`, 'listed');

    // The informer reaches the server through a TCP proxy (TLS end to end) that can cut it off.
    const h = startInformer<Obj>({
      client: new RESTClient({ ...config, host: proxy.url() }, { groupVersion: 'v1' }),
      resource: 'configmaps',
      namespace: ns,
    });
    const [handler] = h.handlers;
    if (handler === undefined) throw new Error('startInformer gave no handler');
    const list = () => listFromServer<Obj>(client, 'configmaps', ns);
    try {
      await h.synced(convergeMs);
      expect(h.informer.getStore().listKeys().sort()).toEqual(
        [0, 1, 2, 3].map((i) => `${ns}/cm-${i}`),
      );

      // An update and a delete, delivered by the watch.
      await writer.update(configMaps, ns, 'cm-0', 'updated');
      await writer.delete(configMaps, ns, 'cm-1');
      await expectConverged({ informer: h.informer, handlers: h.handlers, list }, convergeMs);
      expect(handler.live.get(`${ns}/cm-0`)?.v).toBe('updated');
      expect(handler.deleted).toContain(`${ns}/cm-1`);
      expect(handler.tombstones).toBe(0);
      expect(h.lists.filter((options) => !options.continue)).toHaveLength(1);

      // Cut off, the informer misses a delete, an update and a create; etcd then forgets the
      // history, so its re-watch from the last resourceVersion it saw is answered 410.
      proxy.refuse(true);
      proxy.reset();
      const seenUpTo = h.informer.lastSyncResourceVersion();
      await writer.delete(configMaps, ns, 'cm-2');
      await writer.update(configMaps, ns, 'cm-3', 'missed');
      await writer.create(configMaps, ns, 'cm-4', 'missed');
      const revision = await etcdRevision(env.etcdEndpoint);
      expect(revision).toBeGreaterThan(Number(seenUpTo));
      await compactEtcd(env.etcdEndpoint, revision);
      const listsBefore = h.lists.length;
      proxy.refuse(false);

      const server = await expectConverged(
        { informer: h.informer, handlers: h.handlers, list },
        convergeMs,
      );
      expect(h.watchErrors.some((err) => isResourceExpired(err) || isGone(err))).toBe(true);
      expect(h.lists.slice(listsBefore).filter((options) => !options.continue).length).toBe(1);
      expect(server.get(`${ns}/cm-3`)?.v).toBe('missed');
      expect(handler.live.get(`${ns}/cm-4`)?.v).toBe('missed');
      // The delete it missed arrives as a tombstone from the relist.
      expect(handler.tombstones).toBe(1);
      expect(handler.deleted).toContain(`${ns}/cm-2`);
      expect(
        h.informer.getStore().getByKey(`${ns}/cm-3`)?.metadata.annotations?.[versionAnnotation],
      ).toBe('missed');
      expect(h.informer.isStopped()).toBe(false);
    } finally {
      await h.stop();
      unhandled.stop();
    }
    expect(unhandled.reasons).toEqual([]);
  });
});
