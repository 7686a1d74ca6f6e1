import { beforeAll, expect, it } from 'vitest';
import type { ContractEndpoint, RawResponse } from './contract-client.js';
import { contractCalls, createOpenCrd } from './contract-helpers.js';

/**
 * The order of an object's keys on the wire. kube-apiserver decodes a custom resource into a
 * map and encodes it as Go's encoding/json writes a map: keys sorted at every level, metadata
 * and managedFields included. A built-in object is a Go struct: its fields in struct order.
 * (A client comparing `JSON.stringify` of what it wrote with what it read sees the difference.)
 */
export function defineKeyOrderContract(getTarget: () => ContractEndpoint): void {
  const calls = contractCalls(getTarget);
  let ns = '';
  let collection = '';
  let group = '';
  beforeAll(async () => {
    ns = await calls.newNamespace('keyorder');
    ({ group, collection } = await createOpenCrd(
      calls,
      'keyorder',
      { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      ns,
    ));
  });

  /** The object's keys at every level, in the order its JSON text has them. */
  const keyOrder = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(keyOrder);
    if (value === null || typeof value !== 'object') return value;
    return Object.entries(value).map(([key, inner]) => [key, keyOrder(inner)]);
  };
  const sortedKeyOrder = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sortedKeyOrder);
    if (value === null || typeof value !== 'object') return value;
    return Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeyOrder((value as Record<string, unknown>)[key])]);
  };
  const expectSortedEverywhere = (res: RawResponse, what: string): void => {
    expect(res.status, `${what}: ${res.text}`).toBeLessThan(300);
    const parsed: unknown = JSON.parse(res.text);
    expect(keyOrder(parsed), what).toEqual(sortedKeyOrder(parsed));
  };
  // Written with no key in order, nested objects and objects inside lists included.
  const unsorted = (name: string) => ({
    spec: {
      zone: 'b',
      replicas: 2,
      config: { timeout: '5s', alpha: { omega: 1, beta: [{ yes: true, no: false }] } },
    },
    metadata: { name, labels: { tier: 'web', app: 'shop' }, annotations: { zz: '1', aa: '2' } },
    kind: 'Gadget',
    apiVersion: `${group}/v1`,
    status: { ready: true, phase: 'Up' },
  });

  it('returns a custom resource with its keys sorted at every level, metadata included, from every verb', async () => {
    const path = `${collection}/sorted`;
    expectSortedEverywhere(await calls.create(collection, unsorted('sorted')), 'create');
    const got = await calls.call('GET', path);
    expectSortedEverywhere(got, 'get');
    const list = await calls.call('GET', collection);
    expect(list.json.items).toHaveLength(1);
    expectSortedEverywhere(list, 'list');
    const patched = await calls.call('PATCH', path, {
      contentType: 'application/merge-patch+json',
      body: { spec: { mid: { z: 1, a: 2 } } },
    });
    expectSortedEverywhere(patched, 'merge patch');
    const replaced = { ...unsorted('sorted'), metadata: { ...patched.json.metadata } };
    expectSortedEverywhere(await calls.call('PUT', path, { body: replaced }), 'update');
  });

  it('returns a built-in object in its Go struct order: kind, apiVersion, metadata, then the rest', async () => {
    const res = await calls.create(`/api/v1/namespaces/${ns}/configmaps`, {
      data: { only: 'one' },
      metadata: { labels: { app: 'shop' }, name: 'struct-order' },
      apiVersion: 'v1',
      kind: 'ConfigMap',
    });
    expect(Object.keys(JSON.parse(res.text))).toEqual(['kind', 'apiVersion', 'metadata', 'data']);
    expect(Object.keys(res.json.metadata)).toEqual([
      'name',
      'namespace',
      'uid',
      'resourceVersion',
      'creationTimestamp',
      'labels',
      'managedFields',
    ]);
    expect(Object.keys(res.json.metadata.managedFields[0])).toEqual([
      'manager',
      'operation',
      'apiVersion',
      'time',
      'fieldsType',
      'fieldsV1',
    ]);
  });

  it('returns a built-in object’s maps with their keys sorted (labels, data, selectors) and FieldsV1 sorted, on every write', async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const sent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'maps', labels: { zeta: '1', alpha: '2' }, annotations: { z: '', a: '' } },
      data: { zz: '1', aa: '2', mm: '3' },
    };
    const created = await calls.create(path, sent);
    const merge = { contentType: 'application/merge-patch+json' };
    const patched = await calls.call('PATCH', `${path}/maps`, {
      ...merge,
      body: { data: { bb: '4' }, metadata: { labels: { beta: '3' } } },
    });
    const applied = await calls.call('PATCH', `${path}/applied?fieldManager=a`, {
      contentType: 'application/apply-patch+yaml',
      body: JSON.stringify({ ...sent, metadata: { ...sent.metadata, name: 'applied' } }),
    });
    for (const [write, res, data, labels] of [
      ['create', created, ['aa', 'mm', 'zz'], ['alpha', 'zeta']],
      ['patch', patched, ['aa', 'bb', 'mm', 'zz'], ['alpha', 'beta', 'zeta']],
      ['apply', applied, ['aa', 'mm', 'zz'], ['alpha', 'zeta']],
    ] as const) {
      const body = JSON.parse(res.text);
      expect({
        write,
        data: Object.keys(body.data),
        labels: Object.keys(body.metadata.labels),
      }).toEqual({
        write,
        data,
        labels,
      });
      expect(Object.keys(body.metadata.annotations)).toEqual(['a', 'z']);
    }
    const fields = JSON.parse(created.text).metadata.managedFields[0].fieldsV1;
    expect(Object.keys(fields)).toEqual(['f:data', 'f:metadata']);
    expect(Object.keys(fields['f:data'])).toEqual(['.', 'f:aa', 'f:mm', 'f:zz']);
    expect(Object.keys(fields['f:metadata'])).toEqual(['f:annotations', 'f:labels']);
    const pod = await calls.create(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sorted' },
      spec: {
        nodeSelector: { zone: 'a', disk: 'ssd' },
        containers: [{ name: 'c', image: 'busybox:1' }],
      },
    });
    const podBody = JSON.parse(pod.text);
    expect(Object.keys(podBody.spec.nodeSelector)).toEqual(['disk', 'zone']);
    const container =
      podBody.metadata.managedFields[0].fieldsV1['f:spec']['f:containers']['k:{"name":"c"}'];
    expect(Object.keys(container)).toEqual([
      '.',
      'f:image',
      'f:imagePullPolicy',
      'f:name',
      'f:resources',
      'f:terminationMessagePath',
      'f:terminationMessagePolicy',
    ]);
  });
}
