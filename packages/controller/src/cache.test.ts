import { coreV1Resources } from '@kubets/clientset';
import type { Config } from '@kubets/rest';
import { eventually } from '@kubets/test-utils';
import { expect, it } from 'vitest';
import { cacheByObject, Manager } from './index.js';
import { startInMemoryTestEnv } from './testing.js';

// A manager stops once its runnables have: this one keeps it (and its cache) running.
function keepRunning(mgr: Manager): void {
  mgr.add({
    name: 'keep-running',
    run: (signal) =>
      new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
  });
}

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

// The second example of that section, verbatim.
// Caches only the web Pods of namespace web, without their managed fields.
export function webPodsManager(config: Config): Manager {
  return new Manager(config, {
    cache: {
      byObject: [
        cacheByObject(coreV1Resources.pods, {
          namespace: 'web',
          labelSelector: 'app=web',
          transform: (pod) => {
            delete pod.metadata?.managedFields;
            return pod;
          },
        }),
      ],
    },
  });
}

it('the README example of byObject: one namespace, a label selector and a transform', async () => {
  await using env = await startInMemoryTestEnv({ namespaces: ['web'] });
  const pod = (name: string, namespace: string, app: string) => ({
    metadata: { name, namespace, labels: { app } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  for (const p of [pod('a', 'web', 'web'), pod('b', 'web', 'db'), pod('c', 'default', 'web')]) {
    await env.clientset.coreV1().pods(p.metadata.namespace).create(p);
  }
  // Server-side apply gives the Pod a managedFields entry for the transform to drop.
  await env.clientset
    .coreV1()
    .pods('web')
    .apply(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a', namespace: 'web', annotations: { x: 'y' } },
      },
      { fieldManager: 'readme' },
    );
  expect(
    (await env.clientset.coreV1().pods('web').get('a')).metadata?.managedFields,
  ).not.toHaveLength(0);
  const mgr = webPodsManager(env.config);
  keepRunning(mgr);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    await eventually(async () => (await mgr.cache.list(coreV1Resources.pods)).length === 1, {
      what: 'the web Pod in the cache',
    });
    const [cached] = await mgr.cache.list(coreV1Resources.pods);
    expect(cached?.metadata?.name).toBe('a');
    expect(cached?.metadata?.annotations).toEqual({ x: 'y' });
    expect(cached?.metadata?.managedFields).toBeUndefined();
  } finally {
    stop.abort();
    await running;
  }
});

it('the README example of mgr.cache: a field index and a list by field, labels and namespace', async () => {
  await using env = await startInMemoryTestEnv({ namespaces: ['other'] });
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
    keepRunning(m);
  });
  const signal = new AbortController().signal;
  await eventually(async () => (await webPodsOn(mgr, 'node-a', signal)).length === 2, {
    what: 'the web Pods of node-a in the cache',
  });
  expect(await webPodsOn(mgr, 'node-a', signal)).toEqual(['web-1', 'web-4']);
  expect(await webPodsOn(mgr, 'node-b', signal)).toEqual(['web-2']);
  expect(await webPodsOn(mgr, 'node-c', signal)).toEqual([]);
});
