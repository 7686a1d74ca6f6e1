// controller-runtime's pkg/builder/controller_test.go, the cases about what a controller
// watches (for, owns, watches, predicates), each named after the Go Describe/It it ports, on
// the in-memory API server where Go runs envtest; each case has a namespace of its own where
// Go tells its objects apart by a name suffix. The cases of webhooks, metadata projections,
// custom request types and Go's type checks are listed in docs/fidelity.md.
import type { HasObjectMeta, Logger } from '@kubets/apimachinery';
import { appsV1Resources, type appsv1 } from '@kubets/clientset';
import { newSharedInformerFactory } from '@kubets/informers';
import { eventually } from '@kubets/test-utils';
import type { RateLimiter } from '@kubets/workqueue';
import { describe, expect, it } from 'vitest';
import { type TestManager, useManagers } from '../test/managers.js';
import { useSharedApiServer } from '../test/server.js';
import {
  type Controller,
  type ControllerDeps,
  type ControllerMetricsRecorder,
  controller,
  enqueueRequestForOwner,
  predicateFuncs,
  type TypedControllerBuilder,
} from './index.js';

const shared = useSharedApiServer();
const newManager = useManagers(shared);
let optionsCounter = 0;

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

  describe('New, the options of the built controller', () => {
    // Go checks the options a fake controller constructor is given at Build; kubets' builder
    // has none to replace, so each case runs the built controller on an informer factory and
    // sees the option at work.
    const runBuilt = async (
      build: (deps: ControllerDeps) => Controller<appsv1.ReplicaSet>,
      until: () => boolean,
      metrics?: ControllerMetricsRecorder,
    ) => {
      const namespace = await shared.createNamespace(`options-${++optionsCounter}`);
      const informers = newSharedInformerFactory(shared.clientset, {
        defaultResyncMs: 0,
        namespace,
      });
      const ctl = build({ informers, ...(metrics ? { controllerMetrics: metrics } : {}) });
      const abort = new AbortController();
      informers.start(abort.signal);
      const running = ctl.run(abort.signal);
      await shared.clientset
        .appsV1()
        .replicaSets(namespace)
        .create({
          metadata: { name: 'rs', namespace },
          spec: {
            selector: { matchLabels: { foo: 'bar' } },
            template: {
              metadata: { labels: { foo: 'bar' } },
              spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
            },
          },
        });
      try {
        await eventually(until);
      } finally {
        abort.abort();
        await running;
        await informers.shutdown();
      }
    };
    const noop = () => {};

    it('should override max concurrent reconcilers during creation of controller', async () => {
      const maxConcurrentReconciles = 5;
      const started: [string, number][] = [];
      const metrics: ControllerMetricsRecorder = {
        started: (name, workers) => void started.push([name, workers]),
        activeWorkers: noop,
        reconciled: noop,
      };
      await runBuilt(
        (deps) =>
          controller(deps)
            .for(appsV1Resources.replicaSets)
            .named('replicaset-4')
            .owns(appsV1Resources.replicaSets)
            .withOptions({ maxConcurrentReconciles })
            .complete(noop),
        () => started.length > 0,
        metrics,
      );
      expect(started).toEqual([['replicaset-4', maxConcurrentReconciles]]);
    });

    it('should override rate limiter during creation of controller', async () => {
      const limited: string[] = [];
      const rateLimiter: RateLimiter<string> = {
        when: (item) => {
          limited.push(item);
          return 60_000;
        },
        forget: noop,
        numRequeues: () => 0,
      };
      await runBuilt(
        (deps) =>
          controller(deps)
            .for(appsV1Resources.replicaSets)
            .named('replicaset-2')
            .owns(appsV1Resources.replicaSets)
            .withOptions({ rateLimiter })
            .complete(() => ({ requeue: true })),
        () => limited.length > 0,
      );
      expect(limited[0]).toMatch(/\/rs$/);
    });

    it('should override logger during creation of controller', async () => {
      const lines: string[] = [];
      const logger: Logger = {
        debug: noop,
        info: (message, fields) => void lines.push(`${message} ${fields?.controller}`),
        warn: noop,
        error: noop,
      };
      await runBuilt(
        (deps) =>
          controller(deps)
            .for(appsV1Resources.replicaSets)
            .named('replicaset-0')
            .owns(appsV1Resources.replicaSets)
            .withOptions({ logger })
            .complete(noop),
        () => lines.includes('Starting workers replicaset-0'),
      );
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
