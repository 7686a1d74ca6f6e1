import { coreV1Resources } from '@kubets/clientset';
import { eventually } from '@kubets/test-utils';
import { expect, it } from 'vitest';
import type { Manager } from './index.js';
import { startTestEnv } from './testing.js';

// The example of README.md's "Reading from the cache", verbatim.
// Before mgr.start: index Pods by the node they run on.
export function indexPodsByNode(mgr: Manager): void {
  mgr.cache.indexField(coreV1Resources.pods, 'spec.nodeName', (pod) =>
    pod.spec?.nodeName ? [pod.spec.nodeName] : [],
  );
}

// While the manager runs (in a reconcile, say): the web Pods of one node, from the cache.
export async function webPodsOn(mgr: Manager, nodeName: string, signal: AbortSignal) {
  const pods = await mgr.cache.list(coreV1Resources.pods, {
    namespace: 'default',
    matchingLabels: { app: 'web' },
    matchingFields: { 'spec.nodeName': nodeName },
    signal,
  });
  return pods.map((pod) => pod.metadata?.name).sort();
}

it('the README example of mgr.cache: a field index and a list by field, labels and namespace', async () => {
  await using env = await startTestEnv({ namespaces: ['other'] });
  const pod = (name: string, namespace: string, nodeName: string, app: string) => ({
    metadata: { name, namespace, labels: { app } },
    spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }] },
  });
  const created = [
    pod('web-1', 'default', 'node-a', 'web'),
    pod('web-2', 'default', 'node-b', 'web'),
    pod('db-1', 'default', 'node-a', 'db'),
    pod('web-3', 'other', 'node-a', 'web'),
    pod('web-4', 'default', 'node-a', 'web'),
  ];
  for (const p of created) await env.clientset.coreV1().pods(p.metadata.namespace).create(p);
  const mgr = await env.startManager((m) => {
    indexPodsByNode(m);
    m.add({
      name: 'keep-running',
      run: (signal) =>
        new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
    });
  });
  const signal = new AbortController().signal;
  await eventually(async () => (await webPodsOn(mgr, 'node-a', signal)).length === 2, {
    what: 'the web Pods of node-a in the cache',
  });
  expect(await webPodsOn(mgr, 'node-a', signal)).toEqual(['web-1', 'web-4']);
  expect(await webPodsOn(mgr, 'node-b', signal)).toEqual(['web-2']);
  expect(await webPodsOn(mgr, 'node-c', signal)).toEqual([]);
});
