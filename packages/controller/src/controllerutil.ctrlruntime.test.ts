// controller-runtime's pkg/controller/controllerutil/controllerutil_test.go, case by case:
// each `it` is named after the Go Describe/It it ports, with the Go inputs and expectations
// kept. Where Go returns an error, kubets throws; where Go's remove helpers return an error
// for "nothing to remove", kubets' return false (docs/fidelity.md). An owner carries its
// apiVersion and kind, as objects read from the API server do, where Go looks them up in a
// scheme; "not in the scheme" is an owner without them. CreateOrUpdate and CreateOrPatch run
// on the in-memory API server where Go runs envtest.
import type { HasObjectMeta, OwnerReference } from '@kubets/apimachinery';
import type { appsv1 } from '@kubets/clientset';
import { rejectionOf, statusError, thrownBy } from '@kubets/test-utils';
import { beforeEach, describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import {
  AlreadyOwnedError,
  addFinalizer,
  containsFinalizer,
  createOrPatch,
  createOrUpdate,
  hasControllerReference,
  hasOwnerReference,
  type OwnerObject,
  removeControllerReference,
  removeFinalizer,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './index.js';

const shared = useSharedApiServer();

type Meta = HasObjectMeta & { metadata: NonNullable<HasObjectMeta['metadata']> };
const replicaSet = (meta: Meta['metadata'] = {}): Meta => ({ metadata: { ...meta } });
/** An extensions/v1beta1 Deployment, as Go's owner. */
const deployment = (meta: Meta['metadata']): OwnerObject & Meta => ({
  apiVersion: 'extensions/v1beta1',
  kind: 'Deployment',
  metadata: { ...meta },
});
const depRef = (extra: Partial<OwnerReference>): OwnerReference => ({
  name: 'foo',
  kind: 'Deployment',
  apiVersion: 'extensions/v1beta1',
  uid: 'foo-uid',
  ...extra,
});

describe('Controllerutil', () => {
  describe('SetOwnerReference', () => {
    it('should set ownerRef on an empty list', () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid' });
      setOwnerReference(dep, rs);
      expect(rs.metadata.ownerReferences).toEqual([depRef({})]);
    });

    it('should set the BlockOwnerDeletion if it is specified as an option', () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid' });
      setOwnerReference(dep, rs, { blockOwnerDeletion: true });
      expect(rs.metadata.ownerReferences).toEqual([depRef({ blockOwnerDeletion: true })]);
    });

    it('should not duplicate owner references', () => {
      const rs = replicaSet({ ownerReferences: [depRef({})] });
      const dep = deployment({ name: 'foo', uid: 'foo-uid' });
      setOwnerReference(dep, rs);
      expect(rs.metadata.ownerReferences).toEqual([depRef({})]);
    });

    it('should update the reference', () => {
      const rs = replicaSet({
        ownerReferences: [depRef({ apiVersion: 'extensions/v1alpha1', uid: 'foo-uid-1' })],
      });
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      setOwnerReference(dep, rs);
      expect(rs.metadata.ownerReferences).toEqual([depRef({ uid: 'foo-uid-2' })]);
    });

    it('should remove the owner reference', () => {
      const rs = replicaSet({
        ownerReferences: [depRef({ apiVersion: 'extensions/v1alpha1', uid: 'foo-uid-1' })],
      });
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      setOwnerReference(dep, rs);
      expect(rs.metadata.ownerReferences).toEqual([depRef({ uid: 'foo-uid-2' })]);
      expect(removeOwnerReference(dep, rs)).toBe(true);
      expect(rs.metadata.ownerReferences).toEqual([]);
    });

    it('should remove the owner reference established by the SetControllerReference function', () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid' });
      setControllerReference(dep, rs);
      expect(rs.metadata.ownerReferences).toEqual([
        depRef({ controller: true, blockOwnerDeletion: true }),
      ]);
      expect(removeOwnerReference(dep, rs)).toBe(true);
      expect(rs.metadata.ownerReferences).toEqual([]);
    });

    it("should error when trying to remove the reference that doesn't exist", () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      expect(removeOwnerReference(dep, rs)).toBe(false);
      expect(rs.metadata.ownerReferences ?? []).toEqual([]);
    });

    it("should error when trying to remove the reference that doesn't abide by the scheme", () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      setOwnerReference(dep, rs);
      const unknown = { metadata: dep.metadata } as OwnerObject;
      expect(thrownBy(() => removeOwnerReference(unknown, rs))).toBeInstanceOf(TypeError);
      expect(rs.metadata.ownerReferences).toHaveLength(1);
    });

    it('should error when trying to remove the owner when setting the owner as a non runtime.Object', () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      setOwnerReference(dep, rs);
      expect(
        String(thrownBy(() => removeOwnerReference(undefined as unknown as OwnerObject, rs))),
      ).toContain('the owner must be an object');
      expect(rs.metadata.ownerReferences).toHaveLength(1);
    });

    it("should error when trying to remove an owner that doesn't exist", () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      const dep2 = deployment({ name: 'bar', uid: 'bar-uid-3' });
      setOwnerReference(dep, rs);
      expect(removeOwnerReference(dep2, rs)).toBe(false);
      expect(rs.metadata.ownerReferences).toHaveLength(1);
    });

    it('should return true when HasControllerReference evaluates owner reference set by SetControllerReference', () => {
      const rs = replicaSet();
      setControllerReference(deployment({ name: 'foo', uid: 'foo-uid-2' }), rs);
      expect(hasControllerReference(rs)).toBe(true);
    });

    it('should return false when HasControllerReference evaluates owner reference set by SetOwnerReference', () => {
      const rs = replicaSet();
      setOwnerReference(deployment({ name: 'foo', uid: 'foo-uid-2' }), rs);
      expect(hasControllerReference(rs)).toBe(false);
    });

    it("should error when RemoveControllerReference owner's controller is set to false", () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      setOwnerReference(dep, rs);
      expect(removeControllerReference(dep, rs)).toBe(false);
      expect(rs.metadata.ownerReferences).toHaveLength(1);
    });

    it('should error when RemoveControllerReference passed in owner is not the owner', () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      const dep2 = deployment({ name: 'foo-2', uid: 'foo-uid-42' });
      setControllerReference(dep, rs);
      setOwnerReference(dep2, rs);
      expect(removeControllerReference(dep2, rs)).toBe(false);
      expect(rs.metadata.ownerReferences).toHaveLength(2);
    });

    it("should not error when RemoveControllerReference owner's controller is set to true", () => {
      const rs = replicaSet();
      const dep = deployment({ name: 'foo', uid: 'foo-uid-2' });
      setControllerReference(dep, rs);
      expect(removeControllerReference(dep, rs)).toBe(true);
      expect(rs.metadata.ownerReferences).toEqual([]);
    });
  });

  describe('SetControllerReference', () => {
    it('should set the OwnerReference if it can find the group version kind', () => {
      const rs = replicaSet();
      setControllerReference(deployment({ name: 'foo', uid: 'foo-uid' }), rs);
      expect(rs.metadata.ownerReferences).toEqual([
        depRef({ controller: true, blockOwnerDeletion: true }),
      ]);
    });

    it("should return an error if it can't find the group version kind of the owner", () => {
      const rs = replicaSet();
      const dep = { metadata: { name: 'foo' } } as OwnerObject;
      expect(thrownBy(() => setControllerReference(dep, rs))).toBeInstanceOf(TypeError);
    });

    it("should return an error if the owner isn't a runtime.Object", () => {
      const rs = replicaSet();
      const errMetaObj = { metadata: {} } as OwnerObject;
      expect(thrownBy(() => setControllerReference(errMetaObj, rs))).toBeInstanceOf(TypeError);
    });

    it('should return an error if object is already owned by another controller', () => {
      const rsOwners = [
        depRef({ name: 'bar', uid: 'bar-uid', controller: true, blockOwnerDeletion: true }),
      ];
      const rs = replicaSet({ name: 'foo', namespace: 'default', ownerReferences: rsOwners });
      const dep = deployment({ name: 'foo', namespace: 'default', uid: 'foo-uid' });
      expect(thrownBy(() => setControllerReference(dep, rs))).toBeInstanceOf(AlreadyOwnedError);
    });

    // An existing reference to the same owner is replaced by the controller reference, whose
    // apiVersion is the new owner's.
    it.each([
      {
        name: 'should not duplicate existing owner reference',
        existing: depRef({ controller: false, blockOwnerDeletion: true }),
      },
      {
        name: "should replace the owner reference if it's already present",
        existing: depRef({
          apiVersion: 'extensions/v1alpha1',
          controller: true,
          blockOwnerDeletion: true,
        }),
      },
      {
        name: 'should not return any error if the existing owner has a different version',
        existing: depRef({
          apiVersion: 'extensions/v1alpha1',
          controller: false,
          blockOwnerDeletion: true,
        }),
      },
    ])('$name', ({ existing }) => {
      const rs = replicaSet({ name: 'foo', namespace: 'default', ownerReferences: [existing] });
      const dep = deployment({ name: 'foo', namespace: 'default', uid: 'foo-uid' });
      setControllerReference(dep, rs);
      expect(rs.metadata.ownerReferences).toEqual([
        depRef({ controller: true, blockOwnerDeletion: true }),
      ]);
    });

    it("should return an error if it's setting a cross-namespace owner reference", () => {
      const rs = replicaSet({ name: 'foo', namespace: 'namespace1' });
      const dep = deployment({ name: 'foo', namespace: 'namespace2', uid: 'foo-uid' });
      expect(String(thrownBy(() => setControllerReference(dep, rs)))).toContain(
        'cross-namespace owner references are disallowed',
      );
    });

    it("should return an error if it's owner is namespaced resource but dependant is cluster-scoped resource", () => {
      const pv = { metadata: { name: 'foo' } };
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'foo', namespace: 'default', uid: 'foo-uid' },
      };
      expect(String(thrownBy(() => setControllerReference(pod, pv)))).toContain(
        'cluster-scoped resource must not have a namespace-scoped owner',
      );
    });

    it('should set the BlockOwnerDeletion if it is specified as an option', () => {
      const rs = replicaSet();
      setControllerReference(deployment({ name: 'foo', uid: 'foo-uid' }), rs, {
        blockOwnerDeletion: false,
      });
      expect(rs.metadata.ownerReferences).toEqual([
        depRef({ controller: true, blockOwnerDeletion: false }),
      ]);
    });
  });

  // CreateOrUpdate and CreateOrPatch share their setup and most cases.
  let counter = 0;
  const deplSpec = (): appsv1.DeploymentSpec => ({
    selector: { matchLabels: { foo: 'bar' } },
    template: {
      metadata: { labels: { foo: 'bar' } },
      spec: { containers: [{ name: 'busybox', image: 'busybox' }] },
    },
  });
  const deployments = () => shared.clientset.appsV1().deployments('default');
  const specr = (d: appsv1.Deployment) => {
    d.spec = deplSpec();
  };
  const deploymentScaler = (replicas: number) => (d: appsv1.Deployment) => {
    d.spec = { ...(d.spec as appsv1.DeploymentSpec), replicas };
  };
  const deploymentStatusr = (status: appsv1.DeploymentStatus) => (d: appsv1.Deployment) => {
    d.status = status;
  };
  const deploymentIdentity = () => {};
  const deploymentRenamer = (d: appsv1.Deployment) => {
    d.metadata = { ...d.metadata, name: `${d.metadata?.name}-1` };
  };
  const deploymentNamespaceChanger = (d: appsv1.Deployment) => {
    d.metadata = { ...d.metadata, namespace: `${d.metadata?.namespace}-1` };
  };
  const errorReader = {
    get: () => Promise.reject(statusError(500, 'InternalError', 'unexpected error')),
    create: () => Promise.reject(new Error('not called')),
    update: () => Promise.reject(new Error('not called')),
    patch: () => Promise.reject(new Error('not called')),
  };

  describe.each([
    { describe: 'CreateOrUpdate', write: createOrUpdate, updated: 'updates' },
    { describe: 'CreateOrPatch', write: createOrPatch, updated: 'patches' },
  ])('$describe', ({ write, updated }) => {
    let deploy: appsv1.Deployment;
    const name = () => deploy.metadata?.name ?? '';
    beforeEach(() => {
      deploy = { metadata: { name: `deploy-${++counter}`, namespace: 'default' } };
    });

    it("creates a new object if one doesn't exists", async () => {
      expect(await write(deployments(), deploy, specr)).toBe('created');
      const fetched = await deployments().get(name());
      expect(fetched.spec?.template.spec?.containers).toHaveLength(1);
      expect(fetched.spec?.template.spec?.containers[0]).toMatchObject({
        name: 'busybox',
        image: 'busybox',
      });
    });

    it(`${updated} existing object`, async () => {
      expect(await write(deployments(), deploy, specr)).toBe('created');
      expect(await write(deployments(), deploy, deploymentScaler(2))).toBe('updated');
      const fetched = await deployments().get(name());
      expect(fetched.spec?.replicas).toBe(2);
      // assertLocalDeployWasUpdated (CreateOrPatch), which holds for both.
      expect(fetched.metadata?.resourceVersion).toBe(deploy.metadata?.resourceVersion);
      expect(fetched.spec).toEqual(deploy.spec);
      expect(fetched.status).toEqual(deploy.status);
    });

    it(`${updated} only changed objects`, async () => {
      expect(await write(deployments(), deploy, specr)).toBe('created');
      expect(await write(deployments(), deploy, deploymentIdentity)).toBe('unchanged');
      const fetched = await deployments().get(name());
      expect(fetched.metadata?.resourceVersion).toBe(deploy.metadata?.resourceVersion);
      expect(fetched.spec).toEqual(deploy.spec);
    });

    it('errors when MutateFn changes object name on creation', async () => {
      const err = await rejectionOf(
        write(deployments(), deploy, (d) => {
          specr(d);
          deploymentRenamer(d);
        }),
      );
      expect(String(err)).toContain("mutate must not change the object's name or namespace");
    });

    it('errors when MutateFn renames an object', async () => {
      expect(await write(deployments(), deploy, specr)).toBe('created');
      const err = await rejectionOf(write(deployments(), deploy, deploymentRenamer));
      expect(String(err)).toContain("mutate must not change the object's name or namespace");
    });

    it('errors when object namespace changes', async () => {
      expect(await write(deployments(), deploy, specr)).toBe('created');
      const err = await rejectionOf(write(deployments(), deploy, deploymentNamespaceChanger));
      expect(String(err)).toContain("mutate must not change the object's name or namespace");
    });

    it('aborts immediately if there was an error initially retrieving the object', async () => {
      let mutated = false;
      const err = await rejectionOf(
        write(errorReader, deploy, () => {
          mutated = true;
        }),
      );
      expect(String(err)).toContain('unexpected error');
      expect(mutated).toBe(false);
    });
  });

  describe('CreateOrPatch, the status', () => {
    let deploy: appsv1.Deployment;
    beforeEach(() => {
      deploy = { metadata: { name: `deploy-${++counter}`, namespace: 'default' } };
    });
    const assertLocalDeployWasUpdated = async () => {
      const fetched = await deployments().get(deploy.metadata?.name ?? '');
      expect(fetched.metadata?.resourceVersion).toBe(deploy.metadata?.resourceVersion);
      expect(fetched.spec).toEqual(deploy.spec);
      expect(fetched.status).toEqual(deploy.status);
      return fetched;
    };

    it('patches only changed status', async () => {
      expect(await createOrPatch(deployments(), deploy, specr)).toBe('created');
      const status = { readyReplicas: 1, replicas: 3 };
      expect(await createOrPatch(deployments(), deploy, deploymentStatusr(status))).toBe(
        'updatedStatusOnly',
      );
      await assertLocalDeployWasUpdated();
    });

    /** Go's "patches resource and status", which "patches resource and not empty status" begins with. */
    const patchesResourceAndStatus = async () => {
      expect(await createOrPatch(deployments(), deploy, specr)).toBe('created');
      const status = { readyReplicas: 1, replicas: 3 };
      expect(
        await createOrPatch(deployments(), deploy, (d) => {
          deploymentScaler(3)(d);
          deploymentStatusr(status)(d);
        }),
      ).toBe('updatedStatus');
      await assertLocalDeployWasUpdated();
    };

    it('patches resource and status', patchesResourceAndStatus);

    it('patches resource and not empty status', async () => {
      await patchesResourceAndStatus();
      expect(
        await createOrPatch(deployments(), deploy, (d) => {
          deploymentScaler(5)(d);
          d.status = { ...d.status, conditions: [{ type: 'Progressing', status: 'True' }] };
        }),
      ).toBe('updatedStatus');
      // assertLocalDeployStatusWasUpdated
      const fetched = await assertLocalDeployWasUpdated();
      expect(fetched.spec?.replicas).toBe(5);
      expect(fetched.status?.conditions).toHaveLength(1);
    });
  });

  describe('Finalizers', () => {
    // As in Go, the cases run in order on one object.
    const testFinalizer = 'foo.bar.baz';
    const testFinalizer1 = `${testFinalizer}1`;
    const deploy: Meta = { metadata: { finalizers: [] } };
    const finalizers = () => deploy.metadata.finalizers;

    describe('AddFinalizer', () => {
      it('should add the finalizer when not present', () => {
        addFinalizer(deploy, testFinalizer);
        expect(finalizers()).toEqual([testFinalizer]);
      });
      it('should not add the finalizer when already present', () => {
        addFinalizer(deploy, testFinalizer);
        expect(finalizers()).toEqual([testFinalizer]);
      });
    });

    describe('RemoveFinalizer', () => {
      it('should remove finalizer if present', () => {
        removeFinalizer(deploy, testFinalizer);
        expect(finalizers()).toEqual([]);
      });
      it('should remove all equal finalizers if present', () => {
        deploy.metadata.finalizers = [...(finalizers() ?? []), testFinalizer, testFinalizer];
        removeFinalizer(deploy, testFinalizer);
        expect(finalizers()).toEqual([]);
      });
    });

    describe("AddFinalizer, which returns an indication of whether it modified the object's list of finalizers,", () => {
      describe("the object's list of finalizers has no instances of the input finalizer", () => {
        it('should return true', () => {
          deploy.metadata.finalizers = [];
          expect(addFinalizer(deploy, testFinalizer)).toBe(true);
        });
        it("should add the input finalizer to the object's list of finalizers", () => {
          expect(finalizers()).toEqual([testFinalizer]);
        });
      });
      describe("the object's list of finalizers has an instance of the input finalizer", () => {
        it('should return false', () => {
          expect(addFinalizer(deploy, testFinalizer)).toBe(false);
        });
        it("should not modify the object's list of finalizers", () => {
          expect(finalizers()).toEqual([testFinalizer]);
        });
      });
    });

    describe("RemoveFinalizer, which returns an indication of whether it modified the object's list of finalizers,", () => {
      describe("the object's list of finalizers has no instances of the input finalizer", () => {
        it('should return false', () => {
          expect(removeFinalizer(deploy, testFinalizer1)).toBe(false);
        });
        it("should not modify the object's list of finalizers", () => {
          expect(finalizers()).toEqual([testFinalizer]);
        });
      });
      describe("the object's list of finalizers has one instance of the input finalizer", () => {
        it('should return true', () => {
          expect(removeFinalizer(deploy, testFinalizer)).toBe(true);
        });
        it("should remove the instance of the input finalizer from the object's list of finalizers", () => {
          expect(finalizers()).toEqual([]);
        });
      });
      describe("the object's list of finalizers has multiple instances of the input finalizer", () => {
        it('should return true', () => {
          deploy.metadata.finalizers = [...(finalizers() ?? []), testFinalizer, testFinalizer];
          expect(removeFinalizer(deploy, testFinalizer)).toBe(true);
        });
        it("should remove each instance of the input finalizer from the object's list of finalizers", () => {
          expect(finalizers()).toEqual([]);
        });
      });
    });

    describe('ContainsFinalizer', () => {
      it('should check that finalizer is present', () => {
        addFinalizer(deploy, testFinalizer);
        expect(containsFinalizer(deploy, testFinalizer)).toBe(true);
      });
      it('should check that finalizer is not present after RemoveFinalizer call', () => {
        removeFinalizer(deploy, testFinalizer);
        expect(containsFinalizer(deploy, testFinalizer)).toBe(false);
      });
    });

    describe('HasOwnerReference', () => {
      it('should return true if the object has the owner reference', () => {
        const rs = replicaSet({ name: 'foo', uid: 'foo-uid' });
        const dep = deployment({ name: 'foo', uid: 'foo-uid' });
        setOwnerReference(dep, rs);
        expect(hasOwnerReference(dep, rs)).toBe(true);
      });
      it('should return false if the object does not have the owner reference', () => {
        const rs = replicaSet({ name: 'foo', uid: 'foo-uid' });
        const dep = deployment({ name: 'foo', uid: 'foo-uid' });
        expect(hasOwnerReference(dep, rs)).toBe(false);
      });
    });
  });
});
