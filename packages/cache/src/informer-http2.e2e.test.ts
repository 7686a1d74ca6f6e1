// An informer over HTTP/2 (`Config.http2` of @kubets/rest) against a real kube-apiserver: the
// list, the watch and the test's own writes share one negotiated h2 session.
import { loadConfig, PatchType, RESTClient, type Request } from '@kubets/rest';
import { createTestNamespace, eventually, MemoryLogger, useEnvtest } from '@kubets/test-utils';
import { expect, it } from 'vitest';
import type { TestConfigMap } from '../test/helpers.js';
import { listWatchFromClient, metaNamespaceKeyFunc, newSharedIndexInformer } from './index.js';

const logger = new MemoryLogger();

let core: RESTClient;
let namespace: string;

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  core = new RESTClient(
    { ...loadConfig({ kubeconfig }), qps: -1, http2: true, logger },
    { groupVersion: 'v1' },
  );
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
