import type { corev1 } from '@kubets/clientset';
import { configMapOf, deploymentOf, rejectionOf, statusError } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import { createOrPatch, createOrUpdate } from './index.js';

const shared = useSharedApiServer();

const configMaps = () => shared.clientset.coreV1().configMaps('default');
let counter = 0;
const uniqueName = () => `cm-${++counter}`;

// controller-runtime's CreateOrUpdate and CreateOrPatch specs, run for both.
describe.each([
  { helper: 'createOrUpdate', write: createOrUpdate },
  { helper: 'createOrPatch', write: createOrPatch },
])('$helper', ({ write }) => {
  it('creates the object when it does not exist', async () => {
    const name = uniqueName();
    const cm: corev1.ConfigMap = { metadata: { name, namespace: 'default' } };
    const result = await write(configMaps(), cm, (obj) => {
      obj.data = { key: 'v1' };
    });
    expect(result).toBe('created');
    expect(cm.metadata?.uid).toBeTruthy();
    expect((await configMaps().get(name)).data).toEqual({ key: 'v1' });
  });

  it('updates the existing object from its live state, and says unchanged when nothing changed', async () => {
    const name = uniqueName();
    await configMaps().create(configMapOf(name, { keep: 'yes', key: 'v1' }));
    const cm: corev1.ConfigMap = { metadata: { name, namespace: 'default' } };
    const setKey = (obj: corev1.ConfigMap) => {
      obj.data = { ...obj.data, key: 'v2' };
    };
    expect(await write(configMaps(), cm, setKey)).toBe('updated');
    expect(cm.data).toEqual({ keep: 'yes', key: 'v2' });
    const written = cm.metadata?.resourceVersion;
    expect(await write(configMaps(), cm, setKey)).toBe('unchanged');
    expect((await configMaps().get(name)).metadata?.resourceVersion).toBe(written);
  });

  it.each([
    {
      change: 'renames the object',
      mutate: (o: corev1.ConfigMap) => void Object.assign(o.metadata ?? {}, { name: 'other' }),
    },
    {
      change: 'moves it to another namespace',
      mutate: (o: corev1.ConfigMap) =>
        void Object.assign(o.metadata ?? {}, { namespace: 'kube-system' }),
    },
  ])('refuses a mutate that $change, on create and on update', async ({ mutate }) => {
    const name = uniqueName();
    const fresh = () => ({ metadata: { name, namespace: 'default' } });
    const onCreate = await rejectionOf(write(configMaps(), fresh(), mutate));
    expect(String(onCreate)).toContain("mutate must not change the object's name or namespace");
    await configMaps().create(configMapOf(name, {}));
    expect(String(await rejectionOf(write(configMaps(), fresh(), mutate)))).toContain(
      `default/${name} became`,
    );
  });

  it('stops at once when the first read fails for another reason than NotFound', async () => {
    let mutated = false;
    const failing = {
      get: () => Promise.reject(statusError(403, 'Forbidden', 'configmaps is forbidden')),
      create: () => Promise.reject(new Error('not called')),
      update: () => Promise.reject(new Error('not called')),
      patch: () => Promise.reject(new Error('not called')),
    };
    const err = await rejectionOf(
      write(failing, { metadata: { name: 'x', namespace: 'default' } }, () => {
        mutated = true;
      }),
    );
    expect(String(err)).toContain('forbidden');
    expect(mutated).toBe(false);
  });

  it('needs a name to read by', async () => {
    expect(String(await rejectionOf(write(configMaps(), { metadata: {} }, () => {})))).toContain(
      'needs metadata.name',
    );
  });
});

describe('createOrPatch and the status', () => {
  const deployments = () => shared.clientset.appsV1().deployments('default');
  const replicasAndStatus =
    (replicas?: number, observedGeneration?: number) =>
    (d: { spec?: { replicas?: number }; status?: { observedGeneration?: number } }) => {
      if (replicas !== undefined && d.spec) d.spec.replicas = replicas;
      if (observedGeneration !== undefined) d.status = { ...d.status, observedGeneration };
    };

  it.each([
    {
      name: 'patches only the object',
      mutate: replicasAndStatus(3),
      result: 'updated',
      replicas: 3,
      observed: undefined,
    },
    {
      name: 'patches only the status',
      mutate: replicasAndStatus(undefined, 7),
      result: 'updatedStatusOnly',
      replicas: 1,
      observed: 7,
    },
    {
      name: 'patches the object and the status',
      mutate: replicasAndStatus(2, 8),
      result: 'updatedStatus',
      replicas: 2,
      observed: 8,
    },
  ])('$name', async ({ mutate, result, replicas, observed }) => {
    const name = `dep-${++counter}`;
    await deployments().create(deploymentOf(name, 1, { namespace: 'default' }));
    const d = { metadata: { name, namespace: 'default' } };
    expect(await createOrPatch(deployments(), d, mutate)).toBe(result);
    const live = await deployments().get(name);
    expect(live.spec?.replicas).toBe(replicas);
    expect(live.status?.observedGeneration).toBe(observed);
  });

  it('refuses a status change through a client without patchStatus', async () => {
    const name = uniqueName();
    await configMaps().create(configMapOf(name, {}));
    const cms = configMaps();
    const client = {
      get: cms.get.bind(cms),
      create: cms.create.bind(cms),
      patch: cms.patch.bind(cms),
    };
    const err = await rejectionOf(
      createOrPatch(client, { metadata: { name, namespace: 'default' } }, (o) => {
        Object.assign(o, { status: { phase: 'x' } });
      }),
    );
    expect(String(err)).toContain(
      `the status of default/${name} changed but the client has no patchStatus`,
    );
  });
});
