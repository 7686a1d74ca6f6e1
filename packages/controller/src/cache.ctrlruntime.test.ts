// controller-runtime's pkg/cache/cache_test.go ("Cache test" › "as a Reader" and
// "as an Informer" › field indexes, "using UnsafeDisableDeepCopy") and
// informer_cache_unit_test.go, case by case, on the in-memory API server. Cases that do not
// apply are listed in docs/fidelity.md under "controller-runtime: cache".
import { isNotFound, isTimeout } from '@kubets/apimachinery';
import { type Clientset, coreV1Resources, type corev1 } from '@kubets/clientset';
import { eventually } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CacheNotStartedError,
  cacheByObject,
  fieldIndexName,
  keyToNamespacedKey,
  type Manager,
} from './index.js';
import { startInMemoryTestEnv, type TestEnv } from './testing.js';

const testNamespaceOne = 'test-namespace-1';
const testNamespaceTwo = 'test-namespace-2';
const testNamespaceThree = 'test-namespace-3';
const testNodeOne = 'test-node-1';
const testNodeTwo = 'test-node-2';
const pods = coreV1Resources.pods;
const podGvr = { group: '', version: 'v1', resource: 'pods' };

function podOf(
  name: string,
  namespace: string,
  restartPolicy: string,
  labels: Record<string, string> = {},
): corev1.Pod {
  return {
    metadata: { name, namespace, labels: { ...labels, 'test-label': name } },
    spec: {
      containers: [{ name: 'nginx', image: 'nginx' }],
      restartPolicy,
      activeDeadlineSeconds: 3,
    },
  };
}

// The pods of the Go BeforeEach: name, namespace, restart policy, extra labels.
const knownPods: corev1.Pod[] = [
  podOf('test-pod-1', testNamespaceOne, 'Never'),
  podOf('test-pod-2', testNamespaceTwo, 'Always'),
  podOf('test-pod-3', testNamespaceTwo, 'OnFailure', { 'common-label': 'common' }),
  podOf('test-pod-4', testNamespaceThree, 'Never', { 'common-label': 'common' }),
  podOf('test-pod-5', testNamespaceOne, 'Never'),
  podOf('test-pod-6', testNamespaceTwo, 'Always'),
];

const names = (objs: readonly { metadata?: { name?: string | undefined } | undefined }[]) =>
  objs.map((o) => o.metadata?.name).sort();

async function createKnownPods(clientset: Clientset): Promise<void> {
  for (const pod of knownPods) {
    await clientset
      .coreV1()
      .pods(pod.metadata?.namespace ?? '')
      .create(pod);
  }
  for (const name of [testNodeOne, testNodeTwo]) {
    await clientset.coreV1().nodes().create({ metadata: { name } });
  }
  // envtest's kube-apiserver makes the `kubernetes` Service; the in-memory server does not.
  await clientset
    .coreV1()
    .services('default')
    .create({ metadata: { name: 'kubernetes' }, spec: { ports: [{ port: 443 }] } });
}

// A manager stops once its runnables have: this one runs until the manager is stopped, so
// that a manager with no controllers keeps its cache.
function keepRunning(m: Manager): void {
  m.add({
    name: 'keep-running',
    run: (signal) =>
      new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
  });
}

describe('Cache test', () => {
  let env: TestEnv;
  let mgr: Manager;
  beforeAll(async () => {
    // controller-runtime's suite runs without client-go's mutation detector, and its
    // UnsafeDisableDeepCopy cases change a cached object on purpose.
    vi.stubEnv('KUBE_CACHE_MUTATION_DETECTOR', 'false');
    env = await startInMemoryTestEnv({
      namespaces: [testNamespaceOne, testNamespaceTwo, testNamespaceThree],
    });
    await createKnownPods(env.clientset);
    mgr = await env.startManager(keepRunning);
  });
  afterAll(async () => {
    await env.stop();
    vi.unstubAllEnvs();
  });

  describe('as a Reader', () => {
    describe('with structured objects', () => {
      it("should be able to list objects that haven't been watched previously", async () => {
        const services = await mgr.cache.list(coreV1Resources.services);
        expect(services).not.toHaveLength(0);
        expect(
          services.some(
            (s) => s.metadata?.name === 'kubernetes' && s.metadata.namespace === 'default',
          ),
        ).toBe(true);
      });

      it("should be able to get objects that haven't been watched previously", async () => {
        const svc = await mgr.cache.get(coreV1Resources.services, {
          namespace: 'default',
          name: 'kubernetes',
        });
        expect(svc.metadata?.name).toBe('kubernetes');
        expect(svc.metadata?.namespace).toBe('default');
      });

      it('should support filtering by labels in a single namespace', async () => {
        const out = await mgr.cache.list(pods, {
          namespace: testNamespaceTwo,
          matchingLabels: { 'test-label': 'test-pod-2' },
        });
        expect(out).toHaveLength(1);
        expect(out[0]?.metadata?.labels?.['test-label']).toBe('test-pod-2');
      });

      it('should support filtering by labels from multiple namespaces', async () => {
        const another = podOf('test-pod-2', testNamespaceOne, 'Always');
        await env.clientset.coreV1().pods(testNamespaceOne).create(another);
        try {
          const labels = { 'test-label': 'test-pod-2' };
          await eventually(
            async () => (await mgr.cache.list(pods, { matchingLabels: labels })).length === 2,
            { what: 'both test-pod-2 in the cache' },
          );
          const out = await mgr.cache.list(pods, { matchingLabels: labels });
          expect(out).toHaveLength(2);
          for (const pod of out) expect(pod.metadata?.labels?.['test-label']).toBe('test-pod-2');
        } finally {
          await env.clientset.coreV1().pods(testNamespaceOne).delete('test-pod-2');
          await eventually(
            async () => (await mgr.cache.list(pods, { namespace: testNamespaceOne })).length === 2,
            { what: 'the extra pod gone from the cache' },
          );
        }
      });

      it('should be able to list objects with GVK populated', async () => {
        const out = await mgr.cache.list(pods);
        expect(out).toHaveLength(6);
        for (const pod of out) {
          expect({ apiVersion: pod.apiVersion, kind: pod.kind }).toEqual({
            apiVersion: 'v1',
            kind: 'Pod',
          });
        }
      });

      it('should be able to list objects by namespace', async () => {
        const out = await mgr.cache.list(pods, { namespace: testNamespaceOne });
        expect(out).toHaveLength(2);
        for (const pod of out) expect(pod.metadata?.namespace).toBe(testNamespaceOne);
      });

      it('should deep copy the object unless told otherwise', async () => {
        const key = { name: 'test-pod-2', namespace: testNamespaceTwo };
        const out = await mgr.cache.get(pods, key);
        expect(out).toEqual(await env.clientset.coreV1().pods(testNamespaceTwo).get('test-pod-2'));
        if (out.spec) out.spec.activeDeadlineSeconds = 4;
        const again = await mgr.cache.get(pods, key);
        expect(again.spec?.activeDeadlineSeconds).toBe(3);
      });

      it('should not deep copy the object if UnsafeDisableDeepCopy is enabled', async () => {
        const key = { name: 'test-pod-2', namespace: testNamespaceTwo };
        const out1 = await mgr.cache.get(pods, key, { unsafeDisableDeepCopy: true });
        const out2 = await mgr.cache.get(pods, key, { unsafeDisableDeepCopy: true });
        expect(out1).toBe(out2);
        const byName = (list: corev1.Pod[]) =>
          [...list].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
        const list1 = byName(
          await mgr.cache.list(pods, { namespace: testNamespaceOne, unsafeDisableDeepCopy: true }),
        );
        const list2 = byName(
          await mgr.cache.list(pods, { namespace: testNamespaceOne, unsafeDisableDeepCopy: true }),
        );
        expect(list1).toHaveLength(list2.length);
        list1.forEach((pod, i) => {
          expect(pod).toBe(list2[i]);
        });
      });

      it('should return an error if the object is not found', async () => {
        const err = await mgr.cache
          .get(coreV1Resources.services, { namespace: testNamespaceOne, name: 'unknown' })
          .catch((e: unknown) => e);
        expect(isNotFound(err)).toBe(true);
      });

      it('should return an error if getting object in unwatched namespace', async () => {
        await expect(
          mgr.cache.get(coreV1Resources.services, { namespace: 'unknown', name: 'unknown' }),
        ).rejects.toThrow('services "unknown" not found');
      });

      it('should return an error when context is cancelled', async () => {
        // Only a read that waits for a new informer to sync can be cancelled: the first
        // read of a resource not cached yet, as in the Go test's fresh cache.
        const err = await mgr.cache
          .list(coreV1Resources.endpoints, {
            namespace: testNamespaceOne,
            signal: AbortSignal.abort(),
          })
          .catch((e: unknown) => e);
        expect(isTimeout(err)).toBe(true);
      });

      it('should set the Limit option and limit number of objects to Limit when List is called', async () => {
        expect(await mgr.cache.list(pods, { limit: 3 })).toHaveLength(3);
      });

      it('should return a limited result set matching the correct label', async () => {
        const out = await mgr.cache.list(pods, {
          matchingLabels: { 'common-label': 'common' },
          limit: 1,
        });
        expect(out).toHaveLength(1);
        expect(out[0]?.metadata?.labels?.['common-label']).toBe('common');
      });

      it('should return an error if pagination is used', async () => {
        // kubets' list returns an array, with no continue token to hand back: a token of
        // any kind is rejected with controller-runtime's message.
        await expect(mgr.cache.list(pods)).resolves.toHaveLength(6);
        await expect(mgr.cache.list(pods, { continue: 'continue-not-supported' })).rejects.toThrow(
          /^continue list option is not supported by the cache$/,
        );
      });

      it('should return an error if the continue list options is set', async () => {
        await expect(mgr.cache.list(pods, { continue: 'token' })).rejects.toThrow();
      });
    });

    describe('with unstructured objects', () => {
      it("should be able to list objects that haven't been watched previously", async () => {
        const services = await mgr.cache.list('v1/services');
        expect(services.some((s) => s.metadata?.name === 'kubernetes')).toBe(true);
      });

      it("should be able to get objects that haven't been watched previously", async () => {
        const svc = await mgr.cache.get('v1/services', {
          namespace: 'default',
          name: 'kubernetes',
        });
        expect(svc.metadata?.name).toBe('kubernetes');
        expect(svc.metadata?.namespace).toBe('default');
      });

      it('should support filtering by labels in a single namespace', async () => {
        const out = await mgr.cache.list(podGvr, {
          namespace: testNamespaceTwo,
          matchingLabels: { 'test-label': 'test-pod-2' },
        });
        expect(names(out)).toEqual(['test-pod-2']);
      });

      it('should support filtering by labels from multiple namespaces', async () => {
        const out = await mgr.cache.list(podGvr, { labelSelector: 'common-label=common' });
        expect(names(out)).toEqual(['test-pod-3', 'test-pod-4']);
      });

      it('should be able to list objects by namespace', async () => {
        const out = await mgr.cache.list(podGvr, { namespace: testNamespaceOne });
        expect(names(out)).toEqual(['test-pod-1', 'test-pod-5']);
      });

      it('should deep copy the object unless told otherwise', async () => {
        const key = { name: 'test-pod-2', namespace: testNamespaceTwo };
        const out = await mgr.cache.get(podGvr, key);
        (out.spec as { activeDeadlineSeconds: number }).activeDeadlineSeconds = 4;
        const again = await mgr.cache.get(podGvr, key);
        expect((again.spec as { activeDeadlineSeconds: number }).activeDeadlineSeconds).toBe(3);
      });

      it('should return an error if the object is not found', async () => {
        const err = await mgr.cache
          .get('v1/services', { namespace: testNamespaceOne, name: 'unknown' })
          .catch((e: unknown) => e);
        expect(isNotFound(err)).toBe(true);
      });

      // The Go spec's body: pods from one namespace only (listed twice), nodes still
      // listed, and got whatever namespace the key names.
      const expectPodsOfNamespaceOneOnly = async (
        namespaced: Manager,
        podResource: typeof pods | typeof podGvr,
      ) => {
        for (let i = 0; i < 2; i++) {
          const out = await namespaced.cache.list(podResource as typeof pods);
          expect(out).toHaveLength(2);
          for (const pod of out) expect(pod.metadata?.namespace).toBe(testNamespaceOne);
        }
        // Nodes by descriptor: a bare group/version/resource does not say that nodes are
        // cluster-scoped, and the dynamic informer of a namespaced manager would list them
        // in its namespace (docs/fidelity.md).
        expect(await namespaced.cache.list(coreV1Resources.nodes)).not.toHaveLength(0);
        for (const namespace of ['', 'random']) {
          const node = await namespaced.cache.get(coreV1Resources.nodes, {
            namespace,
            name: testNodeOne,
          });
          expect(node.metadata?.name).toBe(testNodeOne);
        }
      };

      it('should be able to restrict cache to a namespace by using the global DefaultNamespaces setting', async () => {
        // kubets' manager takes one namespace for all namespaced informers (`namespace`).
        const namespaced = await env.startManager(keepRunning, { namespace: testNamespaceOne });
        await expectPodsOfNamespaceOneOnly(namespaced, podGvr);
      });

      it('should be able to restrict cache to a namespace by using the per-gvk setting', async () => {
        // Typed here: byObject settings apply to the typed informers (docs/fidelity.md).
        const namespaced = await env.startManager(keepRunning, {
          cache: { byObject: [{ resource: pods, namespace: testNamespaceOne }] },
        });
        await expectPodsOfNamespaceOneOnly(namespaced, pods);
      });

      it('should not deep copy the object if UnsafeDisableDeepCopy is enabled', async () => {
        const key = { name: 'test-pod-2', namespace: testNamespaceTwo };
        const out1 = await mgr.cache.get(podGvr, key, { unsafeDisableDeepCopy: true });
        const out2 = await mgr.cache.get(podGvr, key, { unsafeDisableDeepCopy: true });
        expect(out1).toBe(out2);
        const list1 = await mgr.cache.list(podGvr, {
          namespace: testNamespaceOne,
          unsafeDisableDeepCopy: true,
        });
        const list2 = await mgr.cache.list(podGvr, {
          namespace: testNamespaceOne,
          unsafeDisableDeepCopy: true,
        });
        expect(names(list1)).toEqual(names(list2));
        for (const pod of list1) expect(list2).toContain(pod);
      });

      it('should return an error if getting object in unwatched namespace', async () => {
        await expect(
          mgr.cache.get('v1/services', { namespace: 'unknown', name: 'unknown' }),
        ).rejects.toThrow('not found');
      });

      it('should return an error if pagination is used', async () => {
        await expect(mgr.cache.list(podGvr)).resolves.toHaveLength(6);
        await expect(
          mgr.cache.list(podGvr, { continue: 'continue-not-supported' }),
        ).rejects.toThrow(/^continue list option is not supported by the cache$/);
      });

      it('test multinamespaced cache for cluster scoped resources', async () => {
        // Cluster-scoped objects are found by name, whatever namespace the key names.
        const ns = await mgr.cache.get('v1/namespaces', {
          namespace: testNamespaceOne,
          name: testNamespaceOne,
        });
        expect(ns.metadata?.name).toBe(testNamespaceOne);
      });

      it('should return an error if the continue list options is set', async () => {
        await expect(mgr.cache.list(podGvr, { continue: 'token' })).rejects.toThrow(
          'continue list option is not supported by the cache',
        );
      });
    });
  });

  describe('as an Informer', () => {
    it('should error when starting the cache a second time', async () => {
      // The cache starts with its manager, which refuses a second start.
      await expect(mgr.start(new AbortController().signal)).rejects.toThrow(
        'the manager was already started',
      );
    });

    describe('with structured objects', () => {
      it('should be able to index an object field then retrieve objects by that field', async () => {
        const indexed = await env.startManager((m) => {
          keepRunning(m);
          m.cache.indexField(pods, 'spec.restartPolicy', (pod) => [pod.spec?.restartPolicy ?? '']);
        });
        const out = await indexed.cache.list(pods, {
          matchingFields: { 'spec.restartPolicy': 'OnFailure' },
        });
        expect(names(out)).toEqual(['test-pod-3']);
      });

      it('should be able not to change indexer values after indexing cluster-scope objects', async () => {
        const indexerValues = ['a', 'b', 'c'];
        const indexed = await env.startManager((m) => {
          keepRunning(m);
          m.cache.indexField(coreV1Resources.namespaces, 'fixedValues', () => indexerValues);
        });
        const out = await indexed.cache.list(coreV1Resources.namespaces, {
          matchingFields: { fixedValues: 'a' },
        });
        expect(out).not.toHaveLength(0);
        expect(indexerValues).toEqual(['a', 'b', 'c']);
      });

      it('should be able to matching fields with multiple indexes', async () => {
        const indexed = await env.startManager((m) => {
          keepRunning(m);
          m.cache.indexField(pods, 'indexByLabel', (pod) => [
            pod.metadata?.labels?.['common-label'] ?? '',
          ]);
          m.cache.indexField(pods, 'indexByPolicy', (pod) => [pod.spec?.restartPolicy ?? '']);
        });
        const byLabel = await indexed.cache.list(pods, {
          matchingFields: { indexByLabel: 'common' },
        });
        expect(byLabel).toHaveLength(2);
        const byPolicy = await indexed.cache.list(pods, {
          matchingFields: { indexByPolicy: 'Never' },
        });
        expect(byPolicy).toHaveLength(3);
        const both = await indexed.cache.list(pods, {
          matchingFields: { indexByLabel: 'common', indexByPolicy: 'Never' },
        });
        expect(names(both)).toEqual(['test-pod-4']);
      });
    });

    describe('with unstructured objects', () => {
      it('should be able to index an object field then retrieve objects by that field', async () => {
        const indexed = await env.startManager((m) => {
          keepRunning(m);
          m.cache.indexField(podGvr, 'spec.restartPolicy', (pod) => [
            String((pod.spec as { restartPolicy?: string } | undefined)?.restartPolicy ?? ''),
          ]);
        });
        const out = await indexed.cache.list(podGvr, {
          matchingFields: { 'spec.restartPolicy': 'OnFailure' },
        });
        expect(names(out)).toEqual(['test-pod-3']);
      });
    });
  });

  describe('using UnsafeDisableDeepCopy', () => {
    describe('with ListOptions', () => {
      it('should be able to change object in informer cache', async () => {
        const out = await mgr.cache.list(pods, { unsafeDisableDeepCopy: true });
        const pod3 = out.find((p) => p.metadata?.name === 'test-pod-3');
        const labels = pod3?.metadata?.labels;
        if (labels === undefined) throw new Error('test-pod-3 has no labels');
        labels.UnsafeDisableDeepCopy = 'true';
        const out2 = await mgr.cache.list(pods, { unsafeDisableDeepCopy: true });
        const again = out2.find((p) => p.metadata?.name === 'test-pod-3');
        expect(again?.metadata?.labels?.UnsafeDisableDeepCopy).toBe('true');
        delete labels.UnsafeDisableDeepCopy;
      });
    });

    describe('with GetOptions', () => {
      it('should be able to change object in informer cache', async () => {
        const key = { name: 'test-pod-2', namespace: testNamespaceTwo };
        const out = await mgr.cache.get(pods, key, { unsafeDisableDeepCopy: true });
        const labels = out.metadata?.labels;
        if (labels === undefined) throw new Error('test-pod-2 has no labels');
        labels.UnsafeDisableDeepCopy = 'true';
        const out2 = await mgr.cache.get(pods, key, { unsafeDisableDeepCopy: true });
        expect(out2.metadata?.labels?.UnsafeDisableDeepCopy).toBe('true');
        delete labels.UnsafeDisableDeepCopy;
      });
    });
  });
});

const transformed = (value: string) => (obj: unknown) => {
  const meta = (obj as { metadata?: { annotations?: Record<string, string> } }).metadata;
  if (meta === undefined || meta.annotations?.transformed !== undefined) return obj;
  meta.annotations = { ...meta.annotations, transformed: value };
  return obj;
};

describe('Cache with transformers', () => {
  let env: TestEnv;
  let mgr: Manager;
  beforeAll(async () => {
    env = await startInMemoryTestEnv({
      namespaces: [testNamespaceOne, testNamespaceTwo, testNamespaceThree],
    });
    await createKnownPods(env.clientset);
    mgr = await env.startManager(keepRunning, {
      cache: {
        defaultTransform: transformed('default'),
        byObject: [cacheByObject(pods, { transform: transformed('explicit') })],
      },
    });
  });
  afterAll(async () => {
    await env.stop();
  });

  describe('with structured objects', () => {
    it('should apply transformers to explicitly specified GVKS', async () => {
      const out = await mgr.cache.list(pods);
      expect(out).toHaveLength(6);
      for (const pod of out) expect(pod.metadata?.annotations?.transformed).toBe('explicit');
    });

    it('should apply default transformer to objects when none is specified', async () => {
      const svc = await mgr.cache.get(coreV1Resources.services, {
        namespace: 'default',
        name: 'kubernetes',
      });
      expect(svc.metadata?.annotations?.transformed).toBe('default');
    });
  });

  describe('with unstructured objects', () => {
    it('should apply default transformer to objects when none is specified', async () => {
      const svc = await mgr.cache.get('v1/services', { namespace: 'default', name: 'kubernetes' });
      expect(svc.metadata?.annotations?.transformed).toBe('default');
    });
  });
});

describe('Cache with selectors', () => {
  let env: TestEnv;
  let mgr: Manager;
  beforeAll(async () => {
    env = await startInMemoryTestEnv({ namespaces: [testNamespaceOne, testNamespaceTwo] });
    for (const [idx, namespace] of [testNamespaceOne, testNamespaceTwo].entries()) {
      await env.clientset
        .coreV1()
        .serviceAccounts(namespace)
        .create({ metadata: { name: `test-sa-${idx}` } });
      await env.clientset
        .coreV1()
        .services(namespace)
        .create({ metadata: { name: `test-svc-${idx}` }, spec: { ports: [{ port: 1 }] } });
    }
    mgr = await env.startManager(keepRunning, {
      cache: {
        defaultFieldSelector: `metadata.namespace=${testNamespaceTwo}`,
        byObject: [
          {
            resource: coreV1Resources.serviceAccounts,
            fieldSelector: `metadata.namespace=${testNamespaceOne}`,
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await env.stop();
  });

  it(`Should list serviceaccounts and find exactly one in namespace ${testNamespaceOne}`, async () => {
    const sas = await mgr.cache.list(coreV1Resources.serviceAccounts);
    expect(sas).toHaveLength(1);
    expect(sas[0]?.metadata?.namespace).toBe(testNamespaceOne);
  });

  it(`Should list services and find exactly one in namespace ${testNamespaceTwo}`, async () => {
    const svcs = await mgr.cache.list(coreV1Resources.services);
    expect(svcs).toHaveLength(1);
    expect(svcs[0]?.metadata?.namespace).toBe(testNamespaceTwo);
  });
});

// pkg/cache/internal/cache_reader.go's index helpers and the reader's field-selector rules.
describe('informerCache', () => {
  it('FieldIndexName prefixes field:', () => {
    expect(fieldIndexName('spec.nodeName')).toBe('field:spec.nodeName');
  });

  it('KeyToNamespacedKey scopes a value to a namespace or to all of them', () => {
    expect(keyToNamespacedKey('ns', 'v')).toBe('ns/v');
    expect(keyToNamespacedKey('', 'v')).toBe('__all_namespaces/v');
  });

  describe('with a running manager', () => {
    let env: TestEnv;
    let mgr: Manager;
    beforeAll(async () => {
      env = await startInMemoryTestEnv({
        namespaces: [testNamespaceOne, testNamespaceTwo, testNamespaceThree],
      });
      await createKnownPods(env.clientset);
      mgr = await env.startManager((m) => {
        keepRunning(m);
        m.cache.indexField(pods, 'spec.restartPolicy', (pod) => [pod.spec?.restartPolicy ?? '']);
      });
    });
    afterAll(async () => {
      await env.stop();
    });

    it('matchingFields combined with a namespace lists that namespace only', async () => {
      const out = await mgr.cache.list(pods, {
        namespace: testNamespaceOne,
        matchingFields: { 'spec.restartPolicy': 'Never' },
      });
      expect(names(out)).toEqual(['test-pod-1', 'test-pod-5']);
    });

    it('a field selector string on an indexed field selects as matchingFields does', async () => {
      const out = await mgr.cache.list(pods, { fieldSelector: 'spec.restartPolicy==Always' });
      expect(names(out)).toEqual(['test-pod-2', 'test-pod-6']);
    });

    it('non-exact field matches are not supported by the cache', async () => {
      await expect(
        mgr.cache.list(pods, { fieldSelector: 'spec.restartPolicy!=Always' }),
      ).rejects.toThrow('non-exact field matches are not supported by the cache');
    });

    it('a field without an index is an error naming the index', async () => {
      await expect(
        mgr.cache.list(pods, { matchingFields: { 'spec.nodeName': 'node-1' } }),
      ).rejects.toThrow('index with name field:spec.nodeName does not exist');
      await expect(
        mgr.cache.list(pods, {
          matchingFields: { 'spec.restartPolicy': 'Never', 'spec.nodeName': 'node-1' },
        }),
      ).rejects.toThrow('index with name field:spec.nodeName does not exist');
    });

    it('an index registered after start indexes what is cached already', async () => {
      mgr.cache.indexField(pods, 'metadata.name', (pod) => [pod.metadata?.name ?? '']);
      const out = await mgr.cache.list(pods, { matchingFields: { 'metadata.name': 'test-pod-4' } });
      expect(names(out)).toEqual(['test-pod-4']);
      expect(() =>
        mgr.cache.indexField(pods, 'metadata.name', (pod) => [pod.metadata?.name ?? '']),
      ).toThrow('field:metadata.name');
    });
  });

  it('TestReaderWaitsForCacheSync', async () => {
    const env = await startInMemoryTestEnv();
    try {
      const mgr = await env.startManager(keepRunning);
      // The services informer cannot sync while every services request fails.
      env.server.faults.respondWith(500, { match: '/services', times: Number.POSITIVE_INFINITY });
      const list = await mgr.cache
        .list(coreV1Resources.services, { signal: AbortSignal.timeout(200) })
        .catch((e: unknown) => e);
      expect(isTimeout(list)).toBe(true);
      const key = { name: 'default', namespace: 'kubernetes' };
      const get = await mgr.cache
        .get(coreV1Resources.services, key, { signal: AbortSignal.timeout(200) })
        .catch((e: unknown) => e);
      expect(isTimeout(get)).toBe(true);
      env.server.faults.reset();
      await expect(mgr.cache.list(coreV1Resources.services)).resolves.toEqual([]);
      const missing = await mgr.cache.get(coreV1Resources.services, key).catch((e: unknown) => e);
      expect(isNotFound(missing)).toBe(true);
    } finally {
      await env.stop();
    }
  });

  it('TestIndexFieldDoesNotBlock', async () => {
    const env = await startInMemoryTestEnv();
    try {
      const mgr = await env.startManager(keepRunning);
      env.server.faults.respondWith(500, { match: '/pods', times: Number.POSITIVE_INFINITY });
      // Not synced yet (every pods list fails): indexField still returns at once.
      const unsynced = mgr.cache
        .list(pods, { signal: AbortSignal.timeout(100) })
        .catch((e: unknown) => e);
      expect(mgr.cache.indexField(pods, 'testField', () => ['test-value'])).toBeUndefined();
      expect(isTimeout(await unsynced)).toBe(true);
    } finally {
      await env.stop();
    }
  });

  it('reading before the manager started is ErrCacheNotStarted', async () => {
    const env = await startInMemoryTestEnv();
    try {
      const { Manager } = await import('./index.js');
      const idle = new Manager(env.config);
      await expect(idle.cache.list(pods)).rejects.toBeInstanceOf(CacheNotStartedError);
      await expect(idle.cache.get(pods, { namespace: 'default', name: 'x' })).rejects.toThrow(
        'the cache is not started, can not read objects',
      );
    } finally {
      await env.stop();
    }
  });

  it('cache options that cannot hold are errors naming the setting', async () => {
    const env = await startInMemoryTestEnv();
    try {
      const { Manager } = await import('./index.js');
      const make = (cache: ConstructorParameters<typeof Manager>[1]) => () =>
        new Manager(env.config, cache);
      expect(
        make({ cache: { byObject: [{ resource: coreV1Resources.nodes, namespace: 'a' }] } }),
      ).toThrow(
        'cache.byObject[v1/nodes]: nodes are cluster-scoped, but a namespace was given (a)',
      );
      expect(make({ cache: { byObject: [{ resource: pods }, { resource: pods }] } })).toThrow(
        'cache.byObject[v1/pods] is given twice',
      );
      expect(make({ cache: { byObject: [{ resource: pods, labelSelector: 'a in (b' }] } })).toThrow(
        'cache.byObject[v1/pods].labelSelector',
      );
      expect(make({ cache: { defaultFieldSelector: 'a~b' } })).toThrow('defaultFieldSelector');
      expect(make({ cache: { byObject: [{ resource: 'v1/pods' as never }] } })).toThrow(
        'cache.byObject entries need a resource descriptor',
      );
    } finally {
      await env.stop();
    }
  });

  it('bad input is an error naming what was wrong', async () => {
    const env = await startInMemoryTestEnv();
    try {
      const { Manager } = await import('./index.js');
      const idle = new Manager(env.config);
      expect(() => idle.cache.indexField(pods, '', () => [])).toThrow(
        'indexField needs a field name',
      );
      expect(() =>
        idle.cache.indexField(pods, 'spec.x', 'nope' as unknown as () => string[]),
      ).toThrow('indexField(spec.x) needs a function');
      expect(() => idle.cache.indexField({ kind: 'Pod' } as never, 'spec.x', () => [])).toThrow(
        'cache.indexField(...) needs a resource descriptor',
      );
      await expect(idle.cache.get(pods, { name: '' })).rejects.toThrow(
        'cache get needs a key with a name',
      );
      await expect(idle.cache.list(pods, { limit: -1 })).rejects.toThrow('cache list limit');
    } finally {
      await env.stop();
    }
  });
});
