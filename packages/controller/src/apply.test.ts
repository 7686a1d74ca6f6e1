import type { ApplyConfiguration, ApplyOptions, corev1 } from '@kubets/clientset';
import { deploymentOf, rejectionOf, thrownBy } from '@kubets/test-utils';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import {
  type ApplyClient,
  type ApplyStatusClient,
  serverSideApply,
  serverSideApplyStatus,
} from './index.js';

const shared = useSharedApiServer();

const managersOf = (obj: { metadata?: { managedFields?: { manager?: string }[] } }) =>
  (obj.metadata?.managedFields ?? []).map((f) => f.manager).sort();

describe('serverSideApply', () => {
  it('applies as the field manager, forcing ownership by default; force: false lets a conflict surface', async () => {
    const namespace = await shared.createNamespace('apply-a');
    const cms = shared.clientset.coreV1().configMaps(namespace);
    const applied = await serverSideApply(
      cms,
      { metadata: { name: 'cfg', namespace }, data: { mode: 'on' } },
      { fieldManager: 'mirror' },
    );
    expectTypeOf(applied).toEqualTypeOf<corev1.ConfigMap>();
    expect(applied.data).toEqual({ mode: 'on' });
    expect(managersOf(applied)).toEqual(['mirror']);

    // Someone else takes the field over; the controller's next apply takes it back.
    await cms.apply(
      { metadata: { name: 'cfg' }, data: { mode: 'off' } },
      { fieldManager: 'kubectl', force: true },
    );
    const conflict = await rejectionOf(
      serverSideApply(
        cms,
        { metadata: { name: 'cfg', namespace }, data: { mode: 'on' } },
        { fieldManager: 'mirror', force: false },
      ),
    );
    expect(conflict).toMatchObject({ code: 409 });
    const retaken = await serverSideApply(
      cms,
      { metadata: { name: 'cfg', namespace }, data: { mode: 'on' } },
      { fieldManager: 'mirror' },
    );
    expect(retaken.data).toEqual({ mode: 'on' });

    // A field the manager no longer sends is removed.
    await serverSideApply(
      cms,
      { metadata: { name: 'cfg', namespace }, data: { mode: 'on', extra: 'x' } },
      { fieldManager: 'mirror' },
    );
    const pruned = await serverSideApply(
      cms,
      { metadata: { name: 'cfg', namespace }, data: { mode: 'on' } },
      { fieldManager: 'mirror' },
    );
    expect(pruned.data).toEqual({ mode: 'on' });
  });

  it('leaves metadata.managedFields out, so an object read back can be applied again', async () => {
    const namespace = await shared.createNamespace('apply-b');
    const cms = shared.clientset.coreV1().configMaps(namespace);
    const sent: unknown[] = [];
    const recording = {
      apply: (obj: ApplyConfiguration<corev1.ConfigMap>, options: ApplyOptions) => {
        sent.push({ obj, options });
        return cms.apply(obj, options);
      },
    };
    const first = await serverSideApply(
      recording,
      { metadata: { name: 'cfg', namespace }, data: { a: '1' } },
      { fieldManager: 'mirror' },
    );
    expect(first.metadata?.managedFields).toHaveLength(1);
    const again = await serverSideApply(
      recording,
      { ...first, data: { a: '2' } },
      { fieldManager: 'mirror', force: false },
    );
    expect(again.data).toEqual({ a: '2' });
    expect(sent[1]).toMatchObject({ options: { fieldManager: 'mirror', force: false } });
    expect((sent[1] as { obj: corev1.ConfigMap }).obj.metadata).not.toHaveProperty('managedFields');
    expect(first.metadata?.managedFields).toHaveLength(1); // the caller's object is left as it was
  });

  it('serverSideApplyStatus applies the status subresource only', async () => {
    const namespace = await shared.createNamespace('apply-c');
    const deployments = shared.clientset.appsV1().deployments(namespace);
    await deployments.create(deploymentOf('web', 1));
    const applied = await serverSideApplyStatus(
      deployments,
      { metadata: { name: 'web', namespace }, status: { observedGeneration: 1 } },
      { fieldManager: 'web-controller' },
    );
    expect(applied.status?.observedGeneration).toBe(1);
    expect(applied.spec?.replicas).toBe(1);
    const ignoredSpec = await serverSideApplyStatus(
      deployments,
      { metadata: { name: 'web', namespace }, spec: { replicas: 5 } },
      { fieldManager: 'web-controller' },
    );
    expect(ignoredSpec.spec?.replicas).toBe(1);
  });

  it.each([
    { name: 'no options', options: undefined, got: 'undefined' },
    { name: 'an empty field manager', options: { fieldManager: '' }, got: '""' },
  ])('refuses $name, before any request', ({ options, got }) => {
    const never: ApplyClient<corev1.ConfigMap> & ApplyStatusClient<corev1.ConfigMap> = {
      apply: () => Promise.reject(new Error('sent')),
      applyStatus: () => Promise.reject(new Error('sent')),
    };
    const obj = { metadata: { name: 'x' } };
    const calls = [
      () => serverSideApply(never, obj, options as never),
      () => serverSideApplyStatus(never, obj, options as never),
    ];
    for (const call of calls) {
      expect(String(thrownBy(call))).toContain(
        `needs options.fieldManager, the name that owns the applied fields (e.g. the controller's name), got ${got}`,
      );
    }
  });
});
