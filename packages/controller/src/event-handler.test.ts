import type { HasObjectMeta } from '@kubets/apimachinery';
import { deletedFinalStateUnknown } from '@kubets/cache';
import { thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  type EventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  informerEventHandler,
  type OwnerType,
  predicateFuncs,
  type ReconcileRequest,
  requestFor,
  requestFromKey,
  requestKey,
} from './index.js';

const named = (name: string, namespace?: string): HasObjectMeta => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

describe('informerEventHandler', () => {
  /** A watch of each object itself, behind `predicate`; what it enqueued. */
  function handlerWith(predicate = predicateFuncs<HasObjectMeta>({})) {
    const queued: string[] = [];
    const seen: string[] = [];
    const spy = predicateFuncs<HasObjectMeta>({
      create: (e) => {
        seen.push(`create initial=${e.isInInitialList}`);
        return predicate.create(e);
      },
      update: (e) => {
        seen.push('update');
        return predicate.update(e);
      },
      delete: (e) => {
        seen.push(`delete unknown=${e.deleteStateUnknown}`);
        return predicate.delete(e);
      },
    });
    const handler = informerEventHandler(enqueueRequestForObject, [spy], {
      add: (r: ReconcileRequest) => void queued.push(requestKey(r)),
    });
    return { handler, queued, seen };
  }

  it('maps adds, the new side of updates, deletes and tombstones to requests', () => {
    const { handler, queued, seen } = handlerWith();
    handler.onAdd?.(named('a', 'ns'), false);
    handler.onAdd?.(named('listed', 'ns'), true);
    handler.onUpdate?.(named('old', 'ns'), named('new', 'ns'));
    handler.onDelete?.(named('d'));
    handler.onDelete?.(deletedFinalStateUnknown('ns/t', named('t', 'ns')));
    handler.onDelete?.(deletedFinalStateUnknown<HasObjectMeta>('ns/empty', undefined));
    expect(queued).toEqual(['ns/a', 'ns/listed', 'ns/new', 'd', 'ns/t']);
    expect(seen).toEqual([
      'create initial=false',
      'create initial=true',
      'update',
      'delete unknown=false',
      'delete unknown=true',
    ]);
  });

  it.each([
    {
      kind: 'create',
      fire: (h: ReturnType<typeof handlerWith>['handler']) => h.onAdd?.(named('x'), false),
    },
    {
      kind: 'update',
      fire: (h: ReturnType<typeof handlerWith>['handler']) => h.onUpdate?.(named('x'), named('x')),
    },
    {
      kind: 'delete',
      fire: (h: ReturnType<typeof handlerWith>['handler']) => h.onDelete?.(named('x')),
    },
  ])('a predicate rejecting $kind events drops them', ({ kind, fire }) => {
    const { handler, queued } = handlerWith(predicateFuncs({ [kind]: () => false }));
    fire(handler);
    expect(queued).toEqual([]);
  });
});

describe('enqueueRequestForObject and enqueueRequestForOwner', () => {
  /** The requests `handler` queues for one create of `object`. */
  const createRequests = (handler: EventHandler<HasObjectMeta>, object: HasObjectMeta) => {
    const queued: ReconcileRequest[] = [];
    handler.create({ object }, { add: (r) => void queued.push(r) });
    return queued;
  };

  it('enqueueRequestForObject: the object itself; nothing for an object without a name', () => {
    expect(createRequests(enqueueRequestForObject, named('a', 'ns'))).toEqual([
      { namespace: 'ns', name: 'a' },
    ]);
    expect(createRequests(enqueueRequestForObject, named('node'))).toEqual([
      { namespace: '', name: 'node' },
    ]);
    expect(createRequests(enqueueRequestForObject, {})).toEqual([]);
  });

  const owned = (apiVersion: string, kind: string, controller: boolean): HasObjectMeta => ({
    metadata: {
      name: 'rs',
      namespace: 'ns',
      ownerReferences: [{ apiVersion, kind, name: 'web', uid: 'u', controller }],
    },
  });
  it.each([
    {
      name: 'its controller',
      object: owned('apps/v1', 'Deployment', true),
      namespaced: true,
      requests: [{ namespace: 'ns', name: 'web' }],
    },
    {
      name: 'another version of the group',
      object: owned('apps/v1beta2', 'Deployment', true),
      namespaced: true,
      requests: [{ namespace: 'ns', name: 'web' }],
    },
    {
      name: 'a cluster-scoped owner',
      object: owned('apps/v1', 'Deployment', true),
      namespaced: false,
      requests: [{ namespace: '', name: 'web' }],
    },
    {
      name: 'another kind',
      object: owned('apps/v1', 'StatefulSet', true),
      namespaced: true,
      requests: [],
    },
    {
      name: 'another group',
      object: owned('extensions/v1beta1', 'Deployment', true),
      namespaced: true,
      requests: [],
    },
    {
      name: 'an owner that is not the controller',
      object: owned('apps/v1', 'Deployment', false),
      namespaced: true,
      requests: [],
    },
    { name: 'no owner', object: named('rs', 'ns'), namespaced: true, requests: [] },
  ])('enqueueRequestForOwner, only the controller: $name', ({ object, namespaced, requests }) => {
    const handler = enqueueRequestForOwner(
      { group: 'apps', kind: 'Deployment', namespaced },
      { onlyControllerOwner: true },
    );
    expect(createRequests(handler, object)).toEqual(requests);
  });

  it('enqueueRequestForOwner refuses an owner type without a kind', () => {
    expect(
      String(thrownBy(() => enqueueRequestForOwner({ group: 'apps' } as unknown as OwnerType))),
    ).toContain('owner must name a group, a kind and whether it is namespaced');
  });
});

describe('requests', () => {
  it.each([
    { request: { namespace: 'ns', name: 'a' }, key: 'ns/a' },
    { request: { namespace: '', name: 'node-1' }, key: 'node-1' },
  ])('$key: requestKey and requestFromKey are inverses', ({ request, key }) => {
    expect(requestKey(request)).toBe(key);
    expect(requestFromKey(key)).toEqual(request);
  });

  it('refuses a malformed key and an object without a name', () => {
    expect(thrownBy(() => requestFromKey('a/b/c'))).toBeInstanceOf(TypeError);
    expect(String(thrownBy(() => requestFor({ metadata: {} })))).toContain(
      'cannot make a request for an object without metadata.name',
    );
  });
});
