// Streaming lists (client-go WatchListClient, on by default) against the real kube-apiserver
// of envtest (1.20): the server refuses them, and the reflector lists with paged lists instead.

import type { WatchQueryOptions } from '@kubets/apimachinery';
import { isInvalid, isStatusError, type WatchEvent } from '@kubets/apimachinery';
import { loadConfig, RESTClient } from '@kubets/rest';
import { createTestNamespace, eventually, useEnvtest } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import type { TestConfigMap } from '../test/helpers.js';
import {
  type ListerWatcher,
  listWatchFromClient,
  newSharedIndexInformer,
  newStore,
  Reflector,
} from './index.js';

type ConfigMap = TestConfigMap;

let core: RESTClient;

useEnvtest(({ kubeconfigPath: kubeconfig }) => {
  core = new RESTClient({ ...loadConfig({ kubeconfig }), qps: -1 }, { groupVersion: 'v1' });
});

/** Generous deadline for the cache to converge; never a timing assertion. */
const convergeMs = 60_000;

/** One request of a list-watch, and how the server answered it. */
interface Call {
  kind: 'list' | 'watch';
  options: WatchQueryOptions;
  refusal?: unknown;
}

/** The REST list-watch of configmaps in `ns`, recording every request and every refusal. */
function recordingListWatch(ns: string): { lw: ListerWatcher<ConfigMap>; calls: Call[] } {
  const inner = listWatchFromClient<ConfigMap>(core, 'configmaps', ns);
  const calls: Call[] = [];
  const lw: ListerWatcher<ConfigMap> = {
    list: (options, signal, hints) => {
      calls.push({ kind: 'list', options: { ...options } });
      return inner.list(options, signal, hints);
    },
    watch: async (options, signal): Promise<AsyncIterable<WatchEvent<ConfigMap>>> => {
      const call: Call = { kind: 'watch', options: { ...options } };
      calls.push(call);
      try {
        return await inner.watch(options, signal);
      } catch (err) {
        call.refusal = err;
        throw err;
      }
    },
  };
  return { lw, calls };
}

function createNamespace(): Promise<string> {
  const namespaces = { create: (ns: object) => core.post().resource('namespaces').body(ns).do() };
  return createTestNamespace(namespaces, 'streaming-list');
}

function createConfigMap(ns: string, name: string): Promise<ConfigMap> {
  const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} };
  return core.post().namespace(ns).resource('configmaps').body(cm).do<ConfigMap>();
}

/** kube-apiserver 1.20's answer to a streaming list: 422 Invalid ListOptions. */
function expectRefusedAsByKubeApiserver120(refusal: unknown): void {
  expect(isInvalid(refusal)).toBe(true);
  expect(isStatusError(refusal) && refusal.status.details?.kind).toBe('ListOptions');
  expect(String(refusal)).toMatch(/resourceVersionMatch is forbidden for watch/);
}

describe('streaming lists against kube-apiserver 1.20', () => {
  it('an informer with default options asks for a streaming list, is refused (422), lists paged and syncs', async () => {
    const ns = await createNamespace();
    for (const name of ['a', 'b']) await createConfigMap(ns, name);
    const { lw, calls } = recordingListWatch(ns);
    const informer = newSharedIndexInformer(lw, 'configmaps');
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    try {
      await eventually(() => informer.hasSynced(), { what: 'the sync', timeoutMs: convergeMs });
      expect(informer.getStore().listKeys().sort()).toEqual([`${ns}/a`, `${ns}/b`]);
      const [streaming, list, watch] = calls;
      expect(streaming).toMatchObject({
        kind: 'watch',
        options: {
          sendInitialEvents: true,
          resourceVersionMatch: 'NotOlderThan',
          allowWatchBookmarks: true,
          resourceVersion: '',
        },
      });
      expectRefusedAsByKubeApiserver120(streaming?.refusal);
      expect(list).toEqual({ kind: 'list', options: { resourceVersion: '0', limit: 500 } });
      await eventually(() => calls.length >= 3, { what: 'the watch', timeoutMs: convergeMs });
      expect(watch?.kind).toBe('watch');
      expect(watch?.options.sendInitialEvents).toBeUndefined();
      expect(watch?.refusal).toBeUndefined();

      // The fallback's watch delivers as any watch does.
      await createConfigMap(ns, 'c');
      await eventually(() => informer.getStore().listKeys().length === 3, {
        what: 'the add',
        timeoutMs: convergeMs,
      });
    } finally {
      ac.abort();
      await running;
    }
  });

  it('every list tries streaming first (as client-go does), then lists at the last resourceVersion', async () => {
    const ns = await createNamespace();
    await createConfigMap(ns, 'a');
    const { lw, calls } = recordingListWatch(ns);
    const store = newStore<ConfigMap>();
    const reflector = new Reflector(lw, store, { name: 'configmaps' });
    for (let round = 1; round <= 2; round++) {
      // One ListAndWatch, ended as soon as its plain watch is open.
      const ac = new AbortController();
      const before = calls.length;
      const listing = reflector.listAndWatch(ac.signal);
      await eventually(
        () => calls.slice(before).some((c) => c.kind === 'watch' && !c.options.sendInitialEvents),
        { what: `round ${round}'s watch`, timeoutMs: convergeMs },
      );
      ac.abort();
      await listing;
      const requests = calls.slice(before);
      expect(requests.map((c) => c.kind)).toEqual(['watch', 'list', 'watch']);
      expect(requests[0]?.options.sendInitialEvents).toBe(true);
      expectRefusedAsByKubeApiserver120(requests[0]?.refusal);
    }
    // The second round asked from where the first was, as client-go does.
    const secondStreaming = calls[3]?.options;
    expect(secondStreaming?.resourceVersion).toBe(calls[2]?.options.resourceVersion);
    expect(secondStreaming?.resourceVersion).not.toBe('');
    expect(calls[4]?.options.resourceVersion).toBe(secondStreaming?.resourceVersion);
    expect(store.list().map((cm) => cm.metadata.name)).toEqual(['a']);
  });
});
