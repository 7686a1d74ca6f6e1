// An informer over HTTP/2 (the default of @kubets/rest, `Config.http2`) against a real
// kube-apiserver: the list, the watch and the test's own writes share one negotiated h2
// session, and a watch whose connection goes silent is noticed within a minute.

import { FakeClock } from '@kubets/apimachinery/testing';
import { loadConfig, PatchType, RESTClient, type Request } from '@kubets/rest';
import {
  ChaosProxy,
  createTestNamespace,
  eventually,
  MemoryLogger,
  useEnvtest,
} from '@kubets/test-utils';
import { expect, it } from 'vitest';
import type { TestConfigMap } from '../test/helpers.js';
import { listWatchFromClient, metaNamespaceKeyFunc, newSharedIndexInformer } from './index.js';

const logger = new MemoryLogger();

let core: RESTClient;
let namespace: string;

let kubeconfigPath: string;

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  kubeconfigPath = kubeconfig;
  core = new RESTClient({ ...loadConfig({ kubeconfig }), qps: -1, logger }, { groupVersion: 'v1' });
  namespace = await createTestNamespace(
    { create: (ns: object) => core.post().resource('namespaces').body(ns).do() },
    'cache-h2',
  );
});

it('lists, watches and sees adds and updates over one HTTP/2 session', async () => {
  const configMaps = (request: Request) => request.namespace(namespace).resource('configmaps');
  const create = (name: string) =>
    configMaps(core.post())
      .body({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: '0' } })
      .do();
  await create('before');
  const informer = newSharedIndexInformer<TestConfigMap>(
    listWatchFromClient<TestConfigMap>(core, 'configmaps', namespace),
    'configmaps',
  );
  const seen: string[] = [];
  informer.addEventHandler({
    onAdd: (cm) => void seen.push(`add ${metaNamespaceKeyFunc(cm)}`),
    onUpdate: (_old, cm) => void seen.push(`update ${metaNamespaceKeyFunc(cm)} ${cm.data?.v}`),
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  try {
    await eventually(() => informer.hasSynced(), { what: 'the informer to sync' });
    await create('after');
    const patch = configMaps(core.patch(PatchType.MergePatch));
    await patch
      .name('before')
      .body({ data: { v: '1' } })
      .do();
    await eventually(
      () =>
        expect(seen).toEqual([
          `add ${namespace}/before`,
          `add ${namespace}/after`,
          `update ${namespace}/before 1`,
        ]),
      { what: 'the informer to see the add and the update' },
    );
  } finally {
    stop.abort();
    await running;
  }
  expect(logger.text().filter((line) => line.startsWith('debug HTTP/2 session opened'))).toEqual([
    expect.stringContaining('"protocol":"h2"'),
  ]);
  const raw = await configMaps(core.get()).doRaw();
  expect(raw.httpVersion).toBe('2.0');
});

it('watches again within a minute (fake clock) when its connection goes silent, with default options', async () => {
  const proxy = await ChaosProxy.start(core.baseUrl);
  const clock = new FakeClock();
  const proxiedLogger = new MemoryLogger();
  const viaProxy = new RESTClient(
    {
      ...loadConfig({ kubeconfig: kubeconfigPath }),
      host: proxy.url(),
      qps: -1,
      logger: proxiedLogger,
    },
    { groupVersion: 'v1', clock },
  );
  const informer = newSharedIndexInformer<TestConfigMap>(
    listWatchFromClient<TestConfigMap>(viaProxy, 'configmaps', namespace),
    'configmaps',
    { clock, logger: proxiedLogger, random: () => 0.5 },
  );
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  try {
    await eventually(() => informer.hasSynced(), { what: 'the informer to sync' });
    const createConfigMap = (name: string) =>
      core
        .post()
        .namespace(namespace)
        .resource('configmaps')
        .body({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })
        .do();
    const seen = (name: string) => informer.getStore().getByKey(`${namespace}/${name}`);
    // An event through the watch: it is open.
    await createConfigMap('before-silence');
    await eventually(() => expect(seen('before-silence')).toBeDefined(), {
      what: 'an event through the open watch',
    });
    // The flow is dropped on the way: nothing more arrives, nothing closes.
    expect(proxy.blackhole()).toBeGreaterThan(0);
    const started = clock.now();
    await createConfigMap('while-silent');
    // 30 to 35 s without a frame earn a PING, unanswered for 15 s: by 55 s the session is
    // closed and its watch ended.
    await clock.advance(55_000);
    await eventually(
      () => proxiedLogger.text().some((line) => line.includes('no answer to a PING')),
      { what: 'the silent session to be closed' },
    );
    // The watch is asked for again after a backoff (the client's retry or the reflector's),
    // from where it was: the object created while the connection was silent arrives.
    await clock.advance(5_000);
    expect(clock.now() - started).toBeLessThanOrEqual(60_000);
    await eventually(() => expect(seen('while-silent')).toBeDefined(), {
      what: 'the object created while the watch was silent',
    });
  } finally {
    stop.abort();
    await running;
    await proxy.close();
  }
});
