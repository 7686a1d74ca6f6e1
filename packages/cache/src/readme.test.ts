// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/cache/README.md shows this code verbatim, with `from './index.js'`
// written as `from '@kubets/cache'`. The cluster is the in-memory API server of
// @kubets/apiserver; `loadConfig()` finds it through KUBECONFIG, as kubectl would.
import { startApiServer } from '@kubets/apiserver';
import { afterAll, expect, it } from 'vitest';

const server = await startApiServer();
process.env.KUBECONFIG = server.kubeconfigPath;
afterAll(() => server.stop());
// The pod the informer finds; "mypod" does not exist.
await fetch(`${server.host}/api/v1/namespaces/default/pods`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default' },
    spec: { containers: [{ name: 'app', image: 'nginx' }] },
  }),
});

// readme:start
import type { KubeObject } from '@kubets/apimachinery';
import { loadConfig, RESTClient } from '@kubets/rest';
import {
  deletionHandlingMetaNamespaceKeyFunc,
  listWatchFromClient,
  metaNamespaceKeyFunc,
  newIndexerInformer,
  waitForCacheSync,
} from './index.js';

const config = loadConfig(); // as kubectl: KUBECONFIG, ~/.kube/config or in-cluster
const coreV1 = new RESTClient(config, { groupVersion: 'v1' });
const podListWatcher = listWatchFromClient<KubeObject>(coreV1, 'pods', 'default');

// Every change puts the pod's key into a queue: a Set here, a workqueue in a controller.
const queue = new Set<string>();
const enqueue = (key: string): void => {
  queue.add(key);
};
const { indexer, controller } = newIndexerInformer<KubeObject>(
  podListWatcher,
  {
    onAdd: (pod) => enqueue(metaNamespaceKeyFunc(pod)),
    onUpdate: (_old, pod) => enqueue(metaNamespaceKeyFunc(pod)),
    // May be a DeletedFinalStateUnknown tombstone: this key function handles both.
    onDelete: (pod) => enqueue(deletionHandlingMetaNamespaceKeyFunc(pod)),
  },
  0,
  {},
);

// Warm up the cache: we knew about "mypod" on our last run. It is gone, so the handler hears
// about its deletion (as a tombstone) once the cache has synced.
indexer.add({ metadata: { name: 'mypod', namespace: 'default' } });

const ac = new AbortController(); // ac.abort() stops the informer
void controller.run(ac.signal);
if (!(await waitForCacheSync(ac.signal, () => controller.hasSynced()))) {
  throw new Error('timed out waiting for caches to sync');
}
const web = indexer.getByKey('default/web'); // the pod, from the cache
const mypod = indexer.getByKey('default/mypod'); // undefined: it does not exist anymore
// readme:end
afterAll(() => ac.abort()); // hooks run last to first: the informer stops before the server

it('runs the README example: the cache holds the pods, the queue their keys', () => {
  expect(web?.metadata?.name).toBe('web');
  expect(mypod).toBeUndefined();
  expect(indexer.listKeys()).toEqual(['default/web']);
  expect([...queue].sort()).toEqual(['default/mypod', 'default/web']);
});
