// controller-runtime's pkg/builder/controller_test.go, the cases about what a controller
// watches (for, owns, watches, predicates), each named after the Go Describe/It it ports, on
// the in-memory API server where Go runs envtest; each case has a namespace of its own where
// Go tells its objects apart by a name suffix. The cases of webhooks, metadata projections,
// custom request types and Go's type checks are listed in docs/fidelity.md.
import type { HasObjectMeta } from '@kubets/apimachinery';
import { appsV1Resources, type appsv1 } from '@kubets/clientset';
import { eventually } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { type TestManager, useManagers } from '../test/managers.js';
import { useSharedApiServer } from '../test/server.js';
import {
  controller,
  enqueueRequestForOwner,
  predicateFuncs,
  type TypedControllerBuilder,
} from './index.js';

const shared = useSharedApiServer();
const newManager = useManagers(shared);

/**
 * Go's doReconcileTest: completes `builder` with a reconciler recording its requests, starts
 * the manager, creates a Deployment and waits for its reconcile, then creates a ReplicaSet
 * it controls and waits for the Deployment's next reconcile.
 */
async function doReconcileTest(
  { mgr, namespace, reconciled: requests, record, start }: TestManager,
  builder: TypedControllerBuilder<appsv1.Deployment>,
) {
  builder.complete(record);
  void start();

  const deployName = 'deploy-name';
  const deployKey = `${namespace}/${deployName}`;
  const template = {
    metadata: { labels: { foo: 'bar' } },
    spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
  };
  const dep = await mgr.clientset
    .appsV1()
    .deployments(namespace)
    .create({
      metadata: { namespace, name: deployName },
      spec: { selector: { matchLabels: { foo: 'bar' } }, template },
    });
  await eventually(() => requests.includes(deployKey), { what: 'the Deployment reconcile' });
  requests.splice(0);

  await mgr.clientset
    .appsV1()
    .replicaSets(namespace)
    .create({
      metadata: {
        namespace,
        name: 'rs-name',
        labels: { foo: 'bar' },
        ownerReferences: [
          {
            name: deployName,
            kind: 'Deployment',
            apiVersion: 'apps/v1',
            controller: true,
            uid: dep.metadata?.uid ?? '',
          },
        ],
      },
      spec: { selector: { matchLabels: { foo: 'bar' } }, template },
    });
  await eventually(() => requests.includes(deployKey), { what: 'the ReplicaSet reconcile' });
}

describe('application', () => {
  describe('New', () => {
    it('should return success if given valid objects', async () => {
      const { mgr } = await newManager();
      const instance = controller(mgr)
        .for(appsV1Resources.replicaSets)
        .owns(appsV1Resources.replicaSets)
        .complete(() => {});
      expect(instance.name).toBe('replicaset');
    });

    it('should allow multiple controllers for the same kind', async () => {
      const { mgr } = await newManager();
      const ctrl1 = controller(mgr)
        .for(appsV1Resources.deployments)
        .owns(appsV1Resources.replicaSets)
        .complete(() => {});
      const ctrl2 = controller(mgr)
        .for(appsV1Resources.deployments)
        .named('test-default-validator-1')
        .owns(appsV1Resources.replicaSets)
        .complete(() => {});
      expect([ctrl1.name, ctrl2.name]).toEqual(['deployment', 'test-default-validator-1']);
    });
  });

  describe('Start with ControllerManagedBy', () => {
    it('should Reconcile Owns objects', async () => {
      const test = await newManager();
      const { mgr } = test;
      const bldr = controller(mgr)
        .for(appsV1Resources.deployments)
        .named('deployment-0')
        .owns(appsV1Resources.replicaSets);
      await doReconcileTest(test, bldr);
    });

    it('should Reconcile Owns objects for every owner', async () => {
      const test = await newManager();
      const { mgr } = test;
      const bldr = controller(mgr)
        .for(appsV1Resources.deployments)
        .named('deployment-1')
        .owns(appsV1Resources.replicaSets, { matchEveryOwner: true });
      await doReconcileTest(test, bldr);
    });

    it('should Reconcile Watches objects', async () => {
      const test = await newManager();
      const { mgr } = test;
      const bldr = controller(mgr)
        .for(appsV1Resources.deployments)
        .watches(
          // The equivalent of owns.
          appsV1Resources.replicaSets,
          enqueueRequestForOwner(appsV1Resources.deployments, { onlyControllerOwner: true }),
        );
      await doReconcileTest(test, bldr);
    });
  });

  describe('Set custom predicates', () => {
    it('should execute registered predicates only for assigned kind', async () => {
      const test = await newManager();
      const { mgr } = test;
      let deployPrctExecuted = false;
      let replicaSetPrctExecuted = false;
      let allPrctExecuted = 0;
      const isDeployment = (o: HasObjectMeta) => o.metadata?.name === 'deploy-name';
      const isReplicaSet = (o: HasObjectMeta) => o.metadata?.name === 'rs-name';
      const deployPrct = predicateFuncs<appsv1.Deployment>({
        create: (e) => {
          // Called only for the Deployment.
          expect(isDeployment(e.object)).toBe(true);
          deployPrctExecuted = true;
          return true;
        },
      });
      const replicaSetPrct = predicateFuncs<appsv1.ReplicaSet>({
        create: (e) => {
          // Called only for the ReplicaSet.
          expect(isReplicaSet(e.object)).toBe(true);
          replicaSetPrctExecuted = true;
          return true;
        },
      });
      const allPrct = predicateFuncs<HasObjectMeta>({
        create: (e) => {
          // Called for every registered kind.
          expect(isDeployment(e.object) || isReplicaSet(e.object)).toBe(true);
          allPrctExecuted++;
          return true;
        },
      });
      const bldr = controller(mgr)
        .for(appsV1Resources.deployments, { predicates: [deployPrct] })
        .named('deployment-3')
        .owns(appsV1Resources.replicaSets, { predicates: [replicaSetPrct] })
        .withEventFilter(allPrct);
      await doReconcileTest(test, bldr);
      expect(deployPrctExecuted).toBe(true);
      expect(replicaSetPrctExecuted).toBe(true);
      expect(allPrctExecuted).toBeGreaterThanOrEqual(2);
    });
  });
});
