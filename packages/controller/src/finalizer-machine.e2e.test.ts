// The finalizer machine's guarded patches on kube-apiserver, which answers a JSON patch whose
// `test` fails with 422 and a bare "the server rejected our request due to an error in our
// request": `finalizer` turns that into a Conflict that names the object.
import { isConflict, isInvalid } from '@kubets/apimachinery';
import { Clientset, type corev1 } from '@kubets/clientset';
import { loadConfig, PatchType } from '@kubets/rest';
import { configMapOf, createTestNamespace, rejectionOf, useEnvtest } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { finalizer } from './index.js';

const FIN = 'example.com/cleanup';
let clientset: Clientset;
let namespace: string;

useEnvtest(async ({ kubeconfigPath: kubeconfig }) => {
  clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: -1, timeoutMs: 10_000 });
  namespace = await createTestNamespace(clientset.coreV1().namespaces(), 'fin');
});

describe('finalizer on kube-apiserver', () => {
  it.each([
    { name: 'its finalizers changed', before: ['other.io/x'] },
    { name: 'it was written', before: undefined },
  ])(
    'adding to an object that changed since it was read ($name) is a Conflict naming it',
    async ({ before }) => {
      const configMaps = clientset.coreV1().configMaps(namespace);
      const cm: corev1.ConfigMap = configMapOf(`add-${before ? 'list' : 'rv'}`, { k: 'v' });
      if (before) cm.metadata = { ...cm.metadata, finalizers: before };
      const stale = await configMaps.create(cm);
      await configMaps.update({
        ...structuredClone(stale),
        metadata: { ...stale.metadata, finalizers: [...(before ?? []), 'third.io/y'] },
      });
      const err = await rejectionOf(
        finalizer(configMaps, stale, FIN, { apply: () => 1, cleanup: () => 2 }),
      );
      expect(isConflict(err)).toBe(true);
      expect(String(err)).toContain(
        `ConfigMap ${namespace}/${stale.metadata?.name}: the object changed since it was read (at resourceVersion ${stale.metadata?.resourceVersion})`,
      );
      // What kube-apiserver answered, kept as the cause.
      const cause = (err as Error).cause;
      expect(isInvalid(cause)).toBe(true);
      expect(String(cause)).toContain(
        'the server rejected our request due to an error in our request',
      );
    },
  );

  it('removing a finalizer that moved since the object was read is a Conflict naming it', async () => {
    const configMaps = clientset.coreV1().configMaps(namespace);
    const cm: corev1.ConfigMap = configMapOf('remove-moved', { k: 'v' });
    cm.metadata = { ...cm.metadata, finalizers: ['other.io/x', FIN] };
    const created = await configMaps.create(cm);
    await configMaps.delete(created.metadata?.name ?? '');
    const stale = await configMaps.get(created.metadata?.name ?? '');
    await configMaps.update({
      ...structuredClone(stale),
      metadata: { ...stale.metadata, finalizers: [FIN] },
    });
    const err = await rejectionOf(
      finalizer(configMaps, stale, FIN, { apply: () => 1, cleanup: () => 2 }),
    );
    expect(isConflict(err)).toBe(true);
    expect(String(err)).toContain(`the guarded patch to remove the finalizer ${FIN} was refused`);
    expect((await configMaps.get(stale.metadata?.name ?? '')).metadata?.finalizers).toEqual([FIN]);
    await configMaps.patch(stale.metadata?.name ?? '', PatchType.MergePatch, {
      metadata: { finalizers: null },
    });
  });
});
