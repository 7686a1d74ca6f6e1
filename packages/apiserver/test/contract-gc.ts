import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { cm, contractCalls } from './contract-helpers.js';

/** A contract target, and whether it runs a garbage collector. */
export type GcTarget = ContractEndpoint & {
  /**
   * Whether the server runs a garbage collector (the in-memory one, opted in). envtest runs no
   * kube-controller-manager, so it has none.
   */
  garbageCollector: boolean;
};

const NO_GC = 'envtest runs no kube-controller-manager, so no garbage collector';

/**
 * Garbage collection of owned objects (issue 18 item 3): what kube-controller-manager's
 * garbage collector does, shown where the target runs one (the in-memory server with
 * `garbageCollector: true`); without one (envtest), the test that shows owned objects staying
 * runs instead. docs/embedded-server.md names these tests.
 */
export function defineGarbageCollectorContract(getTarget: () => GcTarget): void {
  const { call, create, newNamespace, eventually } = contractCalls(getTarget);
  let path = '';
  beforeAll(async () => {
    path = `/api/v1/namespaces/${await newNamespace('gc')}/configmaps`;
  });

  /** Creates a ConfigMap owned by the ConfigMaps `owners`. */
  const createOwned = async (name: string, owners: Array<Record<string, unknown>>, extra = {}) =>
    create(path, {
      ...cm(name),
      metadata: {
        name,
        ownerReferences: owners.map((o) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: (o.metadata as { name: string }).name,
          uid: (o.metadata as { uid: string }).uid,
          blockOwnerDeletion: true,
        })),
        ...extra,
      },
    });
  const gone = async (name: string): Promise<boolean> =>
    (await call('GET', `${path}/${name}`)).status === 404;

  describe('garbage collection of owned objects', () => {
    it(`keeps the dependents of a deleted owner without a garbage collector (${NO_GC})`, async (ctx) => {
      if (getTarget().garbageCollector) ctx.skip();
      const owner = (await create(path, cm('kept-owner'))).json;
      await createOwned('kept-dependent', [owner]);
      await call('DELETE', `${path}/kept-owner`);
      expect(await gone('kept-owner')).toBe(true);
      expect(await gone('kept-dependent')).toBe(false);
    });

    it('deletes dependents whose owners are all gone, and drops references to gone owners (embedded only)', async (ctx) => {
      if (!getTarget().garbageCollector) ctx.skip();
      const a = (await create(path, cm('owner-a'))).json;
      const b = (await create(path, cm('owner-b'))).json;
      await createOwned('of-a', [a]);
      await createOwned('of-a-and-b', [a, b]);
      await call('DELETE', `${path}/owner-a`);
      await eventually(() => gone('of-a'), true);
      const both = await call('GET', `${path}/of-a-and-b`);
      expect(both.status).toBe(200);
      expect(both.json.metadata.ownerReferences.map((r: { name: string }) => r.name)).toEqual([
        'owner-b',
      ]);
      // An object created with only a gone owner is collected too.
      await createOwned('late', [a]);
      await eventually(() => gone('late'), true);
    });

    it('deletes the dependents first on Foreground, waiting for blocking ones (embedded only)', async (ctx) => {
      if (!getTarget().garbageCollector) ctx.skip();
      const owner = (await create(path, cm('fg-owner'))).json;
      await createOwned('fg-held', [owner], { finalizers: ['contract.kubets.io/hold'] });
      await createOwned('fg-plain', [owner]);
      const res = await call('DELETE', `${path}/fg-owner`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' },
      });
      expect(res.status).toBe(200);
      await eventually(() => gone('fg-plain'), true);
      const waiting = await call('GET', `${path}/fg-owner`);
      expect(waiting.json.metadata.finalizers).toEqual(['foregroundDeletion']);
      const held = await call('GET', `${path}/fg-held`);
      expect(held.json.metadata.deletionTimestamp).toBeDefined();
      await call('PATCH', `${path}/fg-held`, {
        body: [{ op: 'remove', path: '/metadata/finalizers' }],
        contentType: 'application/json-patch+json',
      });
      await eventually(() => gone('fg-held'), true);
      await eventually(() => gone('fg-owner'), true);
    });

    it('removes the owner from its dependents on Orphan (embedded only)', async (ctx) => {
      if (!getTarget().garbageCollector) ctx.skip();
      const owner = (await create(path, cm('orphan-owner'))).json;
      await createOwned('orphaned', [owner]);
      await call('DELETE', `${path}/orphan-owner`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' },
      });
      await eventually(() => gone('orphan-owner'), true);
      const orphan = await call('GET', `${path}/orphaned`);
      expect(orphan.status).toBe(200);
      expect(orphan.json.metadata.ownerReferences).toBeUndefined();
    });
  });
}
