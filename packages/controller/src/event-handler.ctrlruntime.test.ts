// controller-runtime's pkg/handler/eventhandler_test.go, case by case: each `it` is named
// after the Go Describe/Context/It it ports, with the Go inputs and expectations kept. The
// queue records every add (stricter than Go's work queue, which would hide a duplicate).
// The owner type is a resource descriptor's group, kind and scope where Go gives a typed
// object, a scheme and a REST mapper. A missing object (Go's nil) is `undefined` here.
import type { HasObjectMeta, ObjectMeta, OwnerReference } from '@kubets/apimachinery';
import { appsV1Resources, autoscalingV1Resources, coreV1Resources } from '@kubets/clientset';
import { thrownBy } from '@kubets/test-utils';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type CreateEvent,
  type DeleteEvent,
  type EventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type GenericEvent,
  handlerFuncs,
  informerEventHandler,
  LOW_PRIORITY,
  type OwnerType,
  type ReconcileRequest,
  type RequestQueue,
  type UpdateEvent,
  withLowPriorityWhenUnchanged,
} from './index.js';

const missing = undefined as unknown as HasObjectMeta;

/** A queue that records each request added, in order. */
function recordingQueue(): RequestQueue & { readonly items: ReconcileRequest[] } {
  const items: ReconcileRequest[] = [];
  return { items, add: (request) => void items.push(request) };
}

const replicaSet = appsV1Resources.replicaSets;
const rsRef = (name: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name,
  uid: '',
  ...extra,
});

describe('Eventhandler', () => {
  let q: ReturnType<typeof recordingQueue>;
  let pod: HasObjectMeta & { metadata: ObjectMeta };
  beforeEach(() => {
    q = recordingQueue();
    pod = { metadata: { namespace: 'biz', name: 'baz' } };
  });
  const copyOf = (
    object: HasObjectMeta,
    meta: ObjectMeta,
  ): HasObjectMeta & { metadata: ObjectMeta } => ({
    metadata: { ...structuredClone(object.metadata), ...meta },
  });

  describe('EnqueueRequestForObject', () => {
    const instance = enqueueRequestForObject;

    it('should enqueue a Request with the Name / Namespace of the object in the CreateEvent.', () => {
      instance.create({ object: pod }, q);
      expect(q.items).toEqual([{ namespace: 'biz', name: 'baz' }]);
    });

    it('should enqueue a Request with the Name / Namespace of the object in the DeleteEvent.', () => {
      instance.delete({ object: pod, deleteStateUnknown: false }, q);
      expect(q.items).toEqual([{ namespace: 'biz', name: 'baz' }]);
    });

    it('should enqueue a Request with the Name / Namespace of one object in the UpdateEvent.', () => {
      const newPod = copyOf(pod, { name: 'baz2', namespace: 'biz2' });
      instance.update({ objectOld: pod, objectNew: newPod }, q);
      expect(q.items).toEqual([{ namespace: 'biz2', name: 'baz2' }]);
    });

    it('should enqueue a Request with the Name / Namespace of the object in the GenericEvent.', () => {
      instance.generic({ object: pod }, q);
      expect(q.items).toEqual([{ namespace: 'biz', name: 'baz' }]);
    });

    describe('for a runtime.Object without Object', () => {
      it('should do nothing if the Object is missing for a CreateEvent.', () => {
        instance.create({ object: missing }, q);
        expect(q.items).toEqual([]);
      });

      it('should do nothing if the Object is missing for a UpdateEvent.', () => {
        const newPod = copyOf(pod, { name: 'baz2', namespace: 'biz2' });
        instance.update({ objectNew: newPod, objectOld: missing }, q);
        expect(q.items.splice(0)).toEqual([{ namespace: 'biz2', name: 'baz2' }]);
        instance.update({ objectNew: missing, objectOld: pod }, q);
        expect(q.items).toEqual([{ namespace: 'biz', name: 'baz' }]);
      });

      it('should do nothing if the Object is missing for a DeleteEvent.', () => {
        instance.delete({ object: missing, deleteStateUnknown: false }, q);
        expect(q.items).toEqual([]);
      });

      it('should do nothing if the Object is missing for a GenericEvent.', () => {
        instance.generic({ object: missing }, q);
        expect(q.items).toEqual([]);
      });
    });
  });

  describe('EnqueueRequestsFromMapFunc', () => {
    const fooBarAndBizBaz = [
      { namespace: 'foo', name: 'bar' },
      { namespace: 'biz', name: 'baz' },
    ];
    /** A map function that expects `pod` and maps it to foo/bar and biz/baz. */
    const mapPod = () =>
      enqueueRequestsFromMapFunc((a: HasObjectMeta) => {
        expect(a).toEqual(pod);
        return fooBarAndBizBaz;
      });

    it('should enqueue a Request with the function applied to the CreateEvent.', () => {
      mapPod().create({ object: pod }, q);
      expect(q.items).toEqual(expect.arrayContaining(fooBarAndBizBaz));
      expect(q.items).toHaveLength(2);
    });

    it('should enqueue a Request with the function applied to the DeleteEvent.', () => {
      mapPod().delete({ object: pod, deleteStateUnknown: false }, q);
      expect(q.items).toEqual(expect.arrayContaining(fooBarAndBizBaz));
      expect(q.items).toHaveLength(2);
    });

    it('should enqueue a Request with the function applied to both objects in the UpdateEvent.', () => {
      const newPod = copyOf(pod, {});
      const instance = enqueueRequestsFromMapFunc((a: HasObjectMeta) => [
        { namespace: 'foo', name: `${a.metadata?.name}-bar` },
        { namespace: 'biz', name: `${a.metadata?.name}-baz` },
      ]);
      instance.update({ objectOld: pod, objectNew: newPod }, q);
      expect(q.items).toEqual([
        { namespace: 'foo', name: 'baz-bar' },
        { namespace: 'biz', name: 'baz-baz' },
      ]);
    });

    it('should enqueue a Request with the function applied to the GenericEvent.', () => {
      mapPod().generic({ object: pod }, q);
      expect(q.items).toEqual(expect.arrayContaining(fooBarAndBizBaz));
      expect(q.items).toHaveLength(2);
    });
  });

  describe('EnqueueRequestForOwner', () => {
    it('should enqueue a Request with the Owner of the object in the CreateEvent.', () => {
      const instance = enqueueRequestForOwner(replicaSet);
      pod.metadata.ownerReferences = [rsRef('foo-parent')];
      instance.create({ object: pod }, q);
      expect(q.items).toEqual([{ namespace: 'biz', name: 'foo-parent' }]);
    });

    it('should enqueue a Request with the Owner of the object in the DeleteEvent.', () => {
      const instance = enqueueRequestForOwner(replicaSet);
      pod.metadata.ownerReferences = [rsRef('foo-parent')];
      instance.delete({ object: pod, deleteStateUnknown: false }, q);
      expect(q.items).toEqual([{ namespace: 'biz', name: 'foo-parent' }]);
    });

    it('should enqueue a Request with the Owners of both objects in the UpdateEvent.', () => {
      const newPod = copyOf(pod, { name: 'baz2', namespace: 'biz2' });
      const instance = enqueueRequestForOwner(replicaSet);
      pod.metadata.ownerReferences = [rsRef('foo1-parent')];
      newPod.metadata.ownerReferences = [rsRef('foo2-parent')];
      instance.update({ objectOld: pod, objectNew: newPod }, q);
      expect(q.items).toEqual(
        expect.arrayContaining([
          { namespace: 'biz', name: 'foo1-parent' },
          { namespace: 'biz2', name: 'foo2-parent' },
        ]),
      );
      expect(q.items).toHaveLength(2);
    });

    it('should enqueue a Request with the one duplicate Owner of both objects in the UpdateEvent.', () => {
      const newPod = copyOf(pod, { name: 'baz2' });
      const instance = enqueueRequestForOwner(replicaSet);
      pod.metadata.ownerReferences = [rsRef('foo-parent')];
      newPod.metadata.ownerReferences = [rsRef('foo-parent')];
      instance.update({ objectOld: pod, objectNew: newPod }, q);
      expect(q.items).toEqual([{ namespace: 'biz', name: 'foo-parent' }]);
    });

    it('should enqueue a Request with the Owner of the object in the GenericEvent.', () => {
      const instance = enqueueRequestForOwner(replicaSet);
      pod.metadata.ownerReferences = [rsRef('foo-parent')];
      instance.generic({ object: pod }, q);
      expect(q.items).toEqual([{ namespace: 'biz', name: 'foo-parent' }]);
    });

    it('should not enqueue a Request if there are no owners matching Group and Kind.', () => {
      const instance = enqueueRequestForOwner(replicaSet, { onlyControllerOwner: true });
      pod.metadata.ownerReferences = [
        rsRef('foo1-parent', { apiVersion: 'extensions/v1' }), // wrong group
        rsRef('foo2-parent', { kind: 'Deployment' }), // wrong kind
      ];
      instance.create({ object: pod }, q);
      expect(q.items).toEqual([]);
    });

    it('should enqueue a Request if there are owners matching Group and Kind with a different version.', () => {
      const instance = enqueueRequestForOwner(autoscalingV1Resources.horizontalPodAutoscalers);
      pod.metadata.ownerReferences = [
        {
          name: 'foo-parent',
          kind: 'HorizontalPodAutoscaler',
          apiVersion: 'autoscaling/v2',
          uid: '',
        },
      ];
      instance.create({ object: pod }, q);
      expect(q.items).toEqual([{ namespace: 'biz', name: 'foo-parent' }]);
    });

    it('should enqueue a Request for a owner that is cluster scoped', () => {
      const instance = enqueueRequestForOwner(coreV1Resources.nodes);
      pod.metadata.ownerReferences = [{ name: 'node-1', kind: 'Node', apiVersion: 'v1', uid: '' }];
      instance.create({ object: pod }, q);
      expect(q.items).toEqual([{ namespace: '', name: 'node-1' }]);
    });

    it('should not enqueue a Request if there are no owners.', () => {
      enqueueRequestForOwner(replicaSet).create({ object: pod }, q);
      expect(q.items).toEqual([]);
    });

    describe('with the Controller field set to true', () => {
      it('should enqueue reconcile.Requests for only the first the Controller if there are multiple Controller owners.', () => {
        const instance = enqueueRequestForOwner(replicaSet, { onlyControllerOwner: true });
        pod.metadata.ownerReferences = [
          rsRef('foo1-parent'),
          rsRef('foo2-parent', { controller: true }),
          rsRef('foo3-parent'),
          rsRef('foo4-parent', { controller: true }),
          rsRef('foo5-parent'),
        ];
        instance.create({ object: pod }, q);
        expect(q.items).toEqual([{ namespace: 'biz', name: 'foo2-parent' }]);
      });

      it('should not enqueue reconcile.Requests if there are no Controller owners.', () => {
        const instance = enqueueRequestForOwner(replicaSet, { onlyControllerOwner: true });
        pod.metadata.ownerReferences = [
          rsRef('foo1-parent'),
          rsRef('foo2-parent'),
          rsRef('foo3-parent'),
        ];
        instance.create({ object: pod }, q);
        expect(q.items).toEqual([]);
      });

      it('should not enqueue reconcile.Requests if there are no owners.', () => {
        enqueueRequestForOwner(replicaSet, { onlyControllerOwner: true }).create(
          { object: pod },
          q,
        );
        expect(q.items).toEqual([]);
      });
    });

    describe('with the Controller field set to false', () => {
      it('should enqueue a reconcile.Requests for all owners.', () => {
        const instance = enqueueRequestForOwner(replicaSet);
        pod.metadata.ownerReferences = [
          rsRef('foo1-parent'),
          rsRef('foo2-parent'),
          rsRef('foo3-parent'),
        ];
        instance.create({ object: pod }, q);
        expect(q.items).toEqual(
          expect.arrayContaining([
            { namespace: 'biz', name: 'foo1-parent' },
            { namespace: 'biz', name: 'foo2-parent' },
            { namespace: 'biz', name: 'foo3-parent' },
          ]),
        );
        expect(q.items).toHaveLength(3);
      });
    });

    describe('with a nil object', () => {
      it('should do nothing.', () => {
        const instance = enqueueRequestForOwner(replicaSet);
        pod.metadata.ownerReferences = [rsRef('foo1-parent')];
        instance.create({ object: missing }, q);
        expect(q.items).toEqual([]);
      });
    });

    describe('with a nil OwnerType', () => {
      it('should panic', () => {
        expect(
          thrownBy(() => enqueueRequestForOwner(undefined as unknown as OwnerType)),
        ).toBeInstanceOf(TypeError);
      });
    });

    describe('with an invalid APIVersion in the OwnerReference', () => {
      it('should do nothing.', () => {
        const instance = enqueueRequestForOwner(replicaSet);
        pod.metadata.ownerReferences = [rsRef('foo1-parent', { apiVersion: 'apps/v1/fail' })];
        instance.create({ object: pod }, q);
        expect(q.items).toEqual([]);
      });
    });
  });

  describe('Funcs', () => {
    const failingFuncs: EventHandler<HasObjectMeta> = {
      create: () => {
        throw new Error('Did not expect CreateEvent to be called.');
      },
      delete: () => {
        throw new Error('Did not expect DeleteEvent to be called.');
      },
      update: () => {
        throw new Error('Did not expect UpdateEvent to be called.');
      },
      generic: () => {
        throw new Error('Did not expect GenericEvent to be called.');
      },
    };
    type Kind = keyof EventHandler<HasObjectMeta>;
    const eventOf = (kind: Kind): unknown =>
      ({
        create: { object: pod } satisfies CreateEvent<HasObjectMeta>,
        update: {
          objectOld: pod,
          objectNew: copyOf(pod, { name: 'baz2', namespace: 'biz2' }),
        } satisfies UpdateEvent<HasObjectMeta>,
        delete: { object: pod, deleteStateUnknown: false } satisfies DeleteEvent<HasObjectMeta>,
        generic: { object: pod } satisfies GenericEvent<HasObjectMeta>,
      })[kind];
    const fire = (handler: EventHandler<HasObjectMeta>, kind: Kind, event: unknown) =>
      (handler[kind] as (e: unknown, q: RequestQueue) => void)(event, q);

    it.each([
      ['Create', 'a CreateEvent', 'create'],
      ['Update', 'an UpdateEvent', 'update'],
      ['Delete', 'a DeleteEvent', 'delete'],
      ['Generic', 'a GenericEvent', 'generic'],
    ] as const)('should call %sFunc for %s if provided.', (_, __, kind) => {
      const evt = eventOf(kind);
      const calls: unknown[][] = [];
      const instance = handlerFuncs({
        ...failingFuncs,
        [kind]: (evt2: unknown, q2: RequestQueue) => void calls.push([evt2, q2]),
      });
      fire(instance, kind, evt);
      expect(calls).toHaveLength(1);
      expect(calls[0]?.[0]).toBe(evt);
      expect(calls[0]?.[1]).toBe(q);
    });

    it.each([
      ['Create', 'a CreateEvent', 'create'],
      ['Update', 'an UpdateEvent', 'update'],
      ['Delete', 'a DeleteEvent', 'delete'],
      ['Generic', 'a GenericEvent', 'generic'],
    ] as const)('should NOT call %sFunc for %s if NOT provided.', (_, __, kind) => {
      const { [kind]: _left, ...others } = failingFuncs;
      expect(() => fire(handlerFuncs(others), kind, eventOf(kind))).not.toThrow();
      expect(q.items).toEqual([]);
    });
  });

  describe('WithLowPriorityWhenUnchanged', () => {
    // kubets lowers the priority where the builder registers a handler on an informer:
    // withLowPriorityWhenUnchanged wraps the informer handler (informerEventHandler) of any
    // event handler, so every handler gets the Go wrapper's behaviour. The handlers that call
    // AddAfter, AddRateLimited or AddWithOpts themselves cannot be written (a handler's queue
    // has only `add`) and are listed in docs/fidelity.md.
    const myPod = (): HasObjectMeta => ({
      metadata: {
        name: 'my-pod',
        ownerReferences: [{ kind: 'Pod', name: 'my-pod', apiVersion: '', uid: '' }],
      },
    });
    // Go's TypedFuncs with a CreateFunc and an UpdateFunc that Add the object's request.
    const addingFuncs = (): EventHandler<HasObjectMeta> =>
      handlerFuncs({
        create: (e, wq) =>
          wq.add({
            namespace: e.object.metadata?.namespace ?? '',
            name: e.object.metadata?.name ?? '',
          }),
        update: (e, wq) =>
          wq.add({
            namespace: e.objectNew.metadata?.namespace ?? '',
            name: e.objectNew.metadata?.name ?? '',
          }),
      });
    const handlers: { name: string; handler: () => EventHandler<HasObjectMeta> }[] = [
      // Go's customHandler: the enqueue-for-object logic written out.
      { name: 'WithLowPriorityWhenUnchanged wrapper', handler: addingFuncs },
      { name: 'EnqueueRequestForObject', handler: () => enqueueRequestForObject },
      {
        name: 'EnqueueRequestForOwner',
        handler: () => enqueueRequestForOwner(coreV1Resources.pods),
      },
      {
        name: 'TypedEnqueueRequestForOwner',
        handler: () => enqueueRequestForOwner(coreV1Resources.pods),
      },
      { name: 'Funcs', handler: addingFuncs },
      {
        name: 'EnqueueRequestsFromMapFunc',
        handler: () =>
          enqueueRequestsFromMapFunc((obj: HasObjectMeta) => [
            { name: obj.metadata?.name ?? '', namespace: obj.metadata?.namespace ?? '' },
          ]),
      },
      { name: 'WithLowPriorityWhenUnchanged - Add', handler: addingFuncs },
    ];
    /** The handler under withLowPriorityWhenUnchanged, recording each add with its priority. */
    function lowered(handler: EventHandler<HasObjectMeta>) {
      const added: { priority: number | undefined; request: ReconcileRequest }[] = [];
      const informerHandler = withLowPriorityWhenUnchanged<HasObjectMeta>((priority) =>
        informerEventHandler(handler, [], { add: (request) => added.push({ priority, request }) }),
      );
      return { informerHandler, added };
    }
    const myPodRequest = { namespace: '', name: 'my-pod' };
    const withVersion = (resourceVersion: string): HasObjectMeta => {
      const object = myPod();
      return { metadata: { ...object.metadata, resourceVersion } };
    };

    describe.each(handlers)('handler is $name', ({ handler }) => {
      it('should lower the priority of a create request for an object that was part of the initial list', () => {
        const { informerHandler, added } = lowered(handler());
        informerHandler.onAdd?.(myPod(), true);
        expect(added).toEqual([{ priority: LOW_PRIORITY, request: myPodRequest }]);
      });

      it('should not lower the priority of a create request for an object that was not part of the initial list', () => {
        const { informerHandler, added } = lowered(handler());
        informerHandler.onAdd?.(myPod(), false);
        expect(added).toEqual([{ priority: undefined, request: myPodRequest }]);
      });

      it('should lower the priority of an update request with unchanged RV', () => {
        const { informerHandler, added } = lowered(handler());
        informerHandler.onUpdate?.(myPod(), myPod());
        expect(added).toEqual([{ priority: LOW_PRIORITY, request: myPodRequest }]);
      });

      it('should not lower the priority of an update request with changed RV', () => {
        const { informerHandler, added } = lowered(handler());
        informerHandler.onUpdate?.(myPod(), withVersion('1'));
        expect(added).toEqual([{ priority: undefined, request: myPodRequest }]);
      });

      it('should have no effect on create if the workqueue is not a priorityqueue', () => {
        handler().create({ object: myPod() }, q);
        expect(q.items).toEqual([{ namespace: '', name: 'my-pod' }]);
      });

      it('should have no effect on Update if the workqueue is not a priorityqueue', () => {
        handler().update({ objectOld: myPod(), objectNew: myPod() }, q);
        expect(q.items).toEqual([{ namespace: '', name: 'my-pod' }]);
      });
    });
  });
});
