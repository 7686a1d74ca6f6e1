// The reconciler against the embedded API server: one reconcile at a time (what each call
// does to the server and to the external records), then the whole controller on a Manager
// (what only its watches show). The harness is test/harness.ts.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isNotFound } from '@kubets/apimachinery';
import type { corev1 } from '@kubets/clientset';
import { findStatusCondition } from '@kubets/controller';
import { eventually, rejectionOf } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { mydemo, useOperatorTest } from '../test/harness.ts';
import { finalizerName, specProblem } from './operator.ts';
import { DirectoryRecords, type ExternalRecords } from './records.ts';

const at = '2026-11-24T10:00:00Z'; // the harness's clock

// type, reason, message and object of each Event.
const summary = (events: readonly corev1.Event[]) =>
  events.map((e) => [
    e.type,
    e.reason,
    e.message,
    `${e.involvedObject.kind}/${e.involvedObject.name}`,
  ]);

describe('one reconcile', () => {
  const t = useOperatorTest();

  it('adds the finalizer, creates the Deployment, Service and record, and reports the status', async () => {
    const { clientset, mydemos, records } = t();
    const created = await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080 }));
    await t().reconcile('web');

    const live = await mydemos.get('web');
    expect(live.metadata?.finalizers).toEqual([finalizerName]);
    const owner = {
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
      name: 'web',
      uid: created.metadata?.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    const deployment = await clientset.appsV1().deployments('default').get('web');
    expect(deployment.metadata?.ownerReferences).toEqual([owner]);
    expect(deployment.spec?.replicas).toBe(1);
    // The server fills in its defaults (pull policy, termination message, resources) as
    // kube-apiserver does; the operator sets the rest.
    expect(deployment.spec?.template.spec?.containers).toMatchObject([
      {
        name: 'mydemo',
        image: 'nginx:1.25',
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      },
    ]);
    const service = await clientset.coreV1().services('default').get('web');
    expect(service.metadata?.ownerReferences).toEqual([owner]);
    expect(service.spec?.ports).toEqual([
      { name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' },
    ]);
    expect(service.spec?.selector).toEqual(deployment.spec?.selector.matchLabels);
    expect(await records.list()).toEqual([
      {
        namespace: 'default',
        name: 'web',
        uid: created.metadata?.uid,
        ip: '10.0.0.7',
        port: 8080,
        service: 'web.default.svc',
      },
    ]);
    expect(live.status).toEqual({
      observedGeneration: 1,
      availableReplicas: 0,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          message: 'the Deployment, the Service and the external record match the spec',
          observedGeneration: 1,
          lastTransitionTime: at,
        },
        {
          type: 'Available',
          status: 'False',
          reason: 'ReplicasUnavailable',
          message: '0/1 replicas available',
          observedGeneration: 1,
          lastTransitionTime: at,
        },
      ],
    });
    // The reconcile returned once the cache had its writes: the next one starts from them.
    expect(t().cached('web')?.metadata?.resourceVersion).toBe(live.metadata?.resourceVersion);
    expect(summary(await t().events())).toEqual([
      ['Normal', 'Synced', 'Mydemo synced successfully', 'Mydemo/web'],
    ]);
  });

  it('changes nothing the second time', async () => {
    const { clientset, mydemos, logger } = t();
    await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080 }));
    await t().reconcile('web');
    const versions = async () => [
      (await mydemos.get('web')).metadata?.resourceVersion,
      (await clientset.appsV1().deployments('default').get('web')).metadata?.resourceVersion,
      (await clientset.coreV1().services('default').get('web')).metadata?.resourceVersion,
    ];
    const before = await versions();
    logger.lines.length = 0;
    await t().reconcile('web');
    expect(await versions()).toEqual(before);
    expect(logger.lines).toEqual([]);
    expect((await t().events()).map((e) => e.reason)).toEqual(['Synced']); // the first only
  });

  it('follows a spec change: children, record, observedGeneration; Ready keeps its transition time', async () => {
    const { clientset, mydemos, records } = t();
    await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080 }));
    await t().reconcile('web');
    const live = await mydemos.get('web');
    await mydemos.update({
      ...live,
      spec: { ip: '10.0.0.8', port: 9090, replicas: 3, image: 'httpd:2' },
    });
    await t().reconcile('web');

    const deployment = await clientset.appsV1().deployments('default').get('web');
    expect(deployment.spec?.replicas).toBe(3);
    expect(deployment.spec?.template.spec?.containers[0]).toMatchObject({
      image: 'httpd:2',
      ports: [{ containerPort: 9090 }],
    });
    const service = await clientset.coreV1().services('default').get('web');
    expect(service.spec?.ports?.[0]).toMatchObject({ port: 9090, targetPort: 9090 });
    expect(await records.get('default', 'web')).toMatchObject({ ip: '10.0.0.8', port: 9090 });
    const status = (await mydemos.get('web')).status;
    expect(status?.observedGeneration).toBe(2);
    expect(findStatusCondition(status?.conditions, 'Ready')).toMatchObject({
      status: 'True',
      observedGeneration: 2,
      lastTransitionTime: at,
    });
    expect(findStatusCondition(status?.conditions, 'Available')?.message).toBe(
      '0/3 replicas available',
    );
  });

  it('reports Available once the Deployment has its pods', async () => {
    const { clientset, mydemos } = t();
    await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080, replicas: 2 }));
    await t().reconcile('web');
    const deployments = clientset.appsV1().deployments('default');
    const deployment = await deployments.get('web');
    // What kube-controller-manager's deployment controller would write.
    await deployments.updateStatus({
      ...deployment,
      status: { replicas: 2, availableReplicas: 2 },
    });
    await t().reconcile('web');
    const status = (await mydemos.get('web')).status;
    expect(status?.availableReplicas).toBe(2);
    expect(findStatusCondition(status?.conditions, 'Available')).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
      message: '2/2 replicas available',
    });
  });

  it('refuses an invalid spec in the status, creating nothing', async () => {
    const { clientset, mydemos, records, logger } = t();
    await mydemos.create(mydemo('bad', { ip: '10.0.0.7', port: 70_000 }));
    expect(await t().reconcile('bad')).toBeUndefined(); // not retried: only a new spec helps
    const status = (await mydemos.get('bad')).status;
    expect(status?.conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'InvalidSpec',
        message: 'invalid spec: spec.port 70000 is outside 1-65535',
        observedGeneration: 1,
        lastTransitionTime: at,
      },
    ]);
    expect(
      isNotFound(await rejectionOf(clientset.appsV1().deployments('default').get('bad'))),
    ).toBe(true);
    expect(await records.list()).toEqual([]);
    expect(logger.lines).toContainEqual({
      level: 'warn',
      message: 'Invalid spec',
      fields: { problem: 'spec.port 70000 is outside 1-65535' },
    });
    await t().reconcile('bad'); // the refusal is reported already
    expect(summary(await t().events())).toEqual([
      ['Warning', 'InvalidSpec', 'spec.port 70000 is outside 1-65535', 'Mydemo/bad'],
    ]);
  });

  it('on deletion removes the record and the children, then the finalizer', async () => {
    const { clientset, mydemos, records } = t();
    await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080 }));
    await t().reconcile('web');
    await mydemos.delete('web');
    expect((await mydemos.get('web')).metadata?.deletionTimestamp).toBeDefined(); // held by the finalizer
    await t().reconcile('web');
    for (const read of [
      () => mydemos.get('web'),
      () => clientset.appsV1().deployments('default').get('web'),
      () => clientset.coreV1().services('default').get('web'),
    ]) {
      expect(isNotFound(await rejectionOf(read()))).toBe(true);
    }
    expect(await records.list()).toEqual([]);
    expect(t().cached('web')).toBeUndefined();
    expect((await t().events()).map((e) => e.reason)).toEqual(['Synced', 'CleanedUp']);
    expect(await t().reconcile('web')).toBeUndefined(); // gone: nothing to do
  });

  it('refuses to take over a Deployment another controller owns, and leaves it on deletion', async () => {
    const { clientset, mydemos } = t();
    await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080 }));
    const deployments = clientset.appsV1().deployments('default');
    const foreignOwner = {
      apiVersion: 'example.com/v1',
      kind: 'Other',
      name: 'other',
      uid: '4a0c1f0e-0000-4000-8000-000000000001',
      controller: true,
    };
    await deployments.create({
      metadata: { name: 'web', ownerReferences: [foreignOwner] },
      spec: {
        selector: { matchLabels: { app: 'other' } },
        template: {
          metadata: { labels: { app: 'other' } },
          spec: { containers: [{ name: 'other', image: 'other:1' }] },
        },
      },
    });
    await expect(t().reconcile('web')).rejects.toThrow(
      'object default/web is already owned by another Other controller other',
    );
    await mydemos.delete('web');
    await t().reconcile('web');
    expect(isNotFound(await rejectionOf(mydemos.get('web')))).toBe(true);
    expect((await deployments.get('web')).metadata?.ownerReferences).toEqual([foreignOwner]);
  });
});

describe('a reconcile cut short by a stop', () => {
  const t = useOperatorTest();

  it("ends with the stop's reason (which the controller does not count as an error), and the next reconcile does the work", async () => {
    const { clientset, mydemos, logger } = t();
    await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080 }));
    const stopped = new AbortController();
    const reason = new Error('stopping');
    stopped.abort(reason);
    expect(await rejectionOf(t().reconcile('web', stopped.signal))).toBe(reason);
    expect(logger.lines).toEqual([]);
    expect((await mydemos.get('web')).metadata?.finalizers).toBeUndefined();
    await t().reconcile('web');
    expect((await clientset.appsV1().deployments('default').get('web')).metadata?.name).toBe('web');
  });
});

describe('a cleanup that fails', () => {
  let failures = 1;
  const t = useOperatorTest({
    records: (records): ExternalRecords => ({
      put: (record) => records.put(record),
      get: (namespace, name) => records.get(namespace, name),
      list: () => records.list(),
      remove: async (namespace, name) => {
        if (failures-- > 0) throw new Error('the registry is unreachable');
        return records.remove(namespace, name);
      },
    }),
  });

  it('keeps the finalizer, so the Mydemo stays until a retry succeeds', async () => {
    const { mydemos, records } = t();
    await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080 }));
    await t().reconcile('web');
    await mydemos.delete('web');
    await expect(t().reconcile('web')).rejects.toThrow('the registry is unreachable');
    expect((await mydemos.get('web')).metadata?.finalizers).toEqual([finalizerName]);
    expect(await records.list()).toHaveLength(1);
    await t().reconcile('web'); // the controller's retry
    expect(isNotFound(await rejectionOf(mydemos.get('web')))).toBe(true);
    expect(await records.list()).toEqual([]);
  });
});

describe('the controller on a Manager', () => {
  const t = useOperatorTest();
  const poll = { intervalMs: 50 };

  it('converges, restores a changed or deleted Deployment, and cleans up on deletion', async () => {
    const { clientset, mydemos, records } = t();
    await t().startOperator();
    await mydemos.create(mydemo('web', { ip: '10.0.0.7', port: 8080 }));
    const deployments = clientset.appsV1().deployments('default');
    await eventually(async () => {
      const status = (await mydemos.get('web')).status;
      expect(findStatusCondition(status?.conditions, 'Ready')?.status).toBe('True');
    }, poll);
    expect(await records.get('default', 'web')).toMatchObject({ port: 8080 });

    const deployment = await deployments.get('web');
    await deployments.update({ ...deployment, spec: { ...deployment.spec!, replicas: 5 } });
    await eventually(
      async () => expect((await deployments.get('web')).spec?.replicas).toBe(1),
      poll,
    );

    const uid = (await deployments.get('web')).metadata?.uid;
    await deployments.delete('web');
    await eventually(async () => {
      const recreated = await deployments.get('web');
      expect(recreated.metadata?.uid).not.toBe(uid);
    }, poll);

    await mydemos.delete('web');
    await eventually(
      async () => expect(isNotFound(await rejectionOf(mydemos.get('web')))).toBe(true),
      poll,
    );
    expect(await records.list()).toEqual([]);
    expect(isNotFound(await rejectionOf(deployments.get('web')))).toBe(true);
  });
});

describe('specProblem', () => {
  it.each([
    [{ port: 8080 }, undefined],
    [{ port: 1, replicas: 0 }, undefined],
    [{ port: 65535, replicas: 3 }, undefined],
    [{}, 'spec.port (unset) is outside 1-65535'],
    [{ port: 0 }, 'spec.port 0 is outside 1-65535'],
    [{ port: 65536 }, 'spec.port 65536 is outside 1-65535'],
    [{ port: 80.5 }, 'spec.port 80.5 is outside 1-65535'],
    [{ port: 80, replicas: -1 }, 'spec.replicas -1 is not a whole number ≥ 0'],
  ])('%j: %s', (spec, problem) => {
    expect(specProblem(spec)).toBe(problem);
  });
});

describe('DirectoryRecords', () => {
  it('refuses an empty directory name', () => {
    expect(() => new DirectoryRecords('')).toThrow('DirectoryRecords needs a directory');
  });

  it.each([
    ['default', '../escape'],
    ['..', 'web'],
    ['default', 'a\tb'],
    ['default', 'a\0b'],
    ['default/x', 'web'],
    ['default', 'x'.repeat(254)],
  ])('refuses namespace %j, name %j before touching the file system', async (namespace, name) => {
    const records = new DirectoryRecords(join(tmpdir(), 'kubets-records-never-created'));
    await expect(records.get(namespace, name)).rejects.toThrow(/DirectoryRecords: invalid/);
    await expect(
      records.put({ namespace, name, uid: 'u', ip: '10.0.0.1', port: 80 } as never),
    ).rejects.toThrow(/DirectoryRecords: invalid/);
  });
});
