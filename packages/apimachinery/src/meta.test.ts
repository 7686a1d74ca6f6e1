import { describe, expect, it } from 'vitest';
import {
  getAnnotations,
  getControllerOf,
  getLabels,
  getName,
  getNamespace,
  getOwnerReferences,
  getResourceVersion,
  getUID,
  isControlledBy,
  type KubeObject,
  type ObjectList,
  type OwnerReference,
  objectMetaFor,
  setListItemTypeMeta,
} from './meta.js';

const owner: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web-abc', namespace: 'default', uid: 'rs-uid' },
};

const controllerRef: OwnerReference = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name: 'web-abc',
  uid: 'rs-uid',
  controller: true,
};

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-abc-xyz',
    namespace: 'default',
    uid: 'pod-uid',
    resourceVersion: '42',
    creationTimestamp: '2024-01-01T00:00:00Z',
    labels: { app: 'web' },
    annotations: { note: 'hi' },
    ownerReferences: [
      { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' },
      controllerRef,
    ],
  },
  spec: { nodeName: 'n1' },
};

describe('accessors', () => {
  it('read metadata fields', () => {
    expect(getName(pod)).toBe('web-abc-xyz');
    expect(getNamespace(pod)).toBe('default');
    expect(getUID(pod)).toBe('pod-uid');
    expect(getResourceVersion(pod)).toBe('42');
    expect(getLabels(pod)).toEqual({ app: 'web' });
    expect(getAnnotations(pod)).toEqual({ note: 'hi' });
    expect(getOwnerReferences(pod)).toHaveLength(2);
  });

  it('tolerate missing metadata and missing fields', () => {
    for (const obj of [{}, { metadata: {} }, { metadata: undefined }]) {
      expect(getName(obj)).toBe('');
      expect(getNamespace(obj)).toBe('');
      expect(getUID(obj)).toBe('');
      expect(getResourceVersion(obj)).toBe('');
      expect(getLabels(obj)).toEqual({});
      expect(getAnnotations(obj)).toEqual({});
      expect(getOwnerReferences(obj)).toEqual([]);
      expect(getControllerOf(obj)).toBeUndefined();
    }
  });

  it('returns a frozen empty map so a caller cannot write into a shared default', () => {
    const labels = getLabels({});
    expect(Object.isFrozen(labels)).toBe(true);
    expect(getLabels({ metadata: {} })).toBe(labels);
  });
});

describe('controller references', () => {
  it('getControllerOf returns the reference marked controller', () => {
    expect(getControllerOf(pod)).toBe(controllerRef);
    expect(
      getControllerOf({
        metadata: { ownerReferences: [{ ...controllerRef, controller: false }] },
      }),
    ).toBeUndefined();
  });

  it('isControlledBy compares by UID', () => {
    expect(isControlledBy(pod, owner)).toBe(true);
    // Same name, new object: not the controller any more.
    expect(isControlledBy(pod, { metadata: { name: 'web-abc', uid: 'other-uid' } })).toBe(false);
    // A non-controller owner does not control.
    expect(isControlledBy(pod, { metadata: { uid: 'node-uid' } })).toBe(false);
    expect(isControlledBy(pod, {})).toBe(false);
    expect(isControlledBy({}, owner)).toBe(false);
  });
});

describe('objectMetaFor', () => {
  it('returns the metadata object itself', () => {
    expect(objectMetaFor(pod)).toBe(pod.metadata);
  });

  it.each([
    [null, 'expected a Kubernetes object, got null'],
    ['pod', 'expected a Kubernetes object, got the string "pod"'],
    [[1], 'expected a Kubernetes object, got an array'],
    [{ kind: 'Pod' }, 'Pod object has no usable metadata: "metadata" is undefined'],
    [{ metadata: 'x' }, 'object has no usable metadata: "metadata" is the string "x"'],
    [{ metadata: null }, '"metadata" is null'],
    [{ metadata: [] }, '"metadata" is an array'],
  ])('throws a TypeError for %j', (value, message) => {
    expect(() => objectMetaFor(value)).toThrow(TypeError);
    expect(() => objectMetaFor(value)).toThrow(message);
  });
});

describe('types', () => {
  it('model a list response as parsed JSON', () => {
    const list: ObjectList<KubeObject> = JSON.parse(
      '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c","remainingItemCount":3},"items":[{"metadata":{"name":"a"}}]}',
    );
    expect(list.metadata?.continue).toBe('c');
    expect(list.items.map(getName)).toEqual(['a']);
  });
});

describe('setListItemTypeMeta', () => {
  const item = (fields: Record<string, unknown> = {}) => ({ metadata: { name: 'a' }, ...fields });
  const cases: {
    name: string;
    list: ObjectList<Record<string, unknown>>;
    fallback?: { apiVersion?: string; kind?: string };
    want: Record<string, unknown>;
  }[] = [
    {
      name: "a built-in list's bare item gets the list's apiVersion and kind without List",
      list: { apiVersion: 'v1', kind: 'ConfigMapList', items: [item()] },
      want: item({ apiVersion: 'v1', kind: 'ConfigMap' }),
    },
    {
      name: 'a group version is kept whole',
      list: { apiVersion: 'apps/v1', kind: 'DeploymentList', items: [item()] },
      want: item({ apiVersion: 'apps/v1', kind: 'Deployment' }),
    },
    {
      name: 'an item with a kind of its own is left alone',
      list: { apiVersion: 'v1', kind: 'List', items: [item({ kind: 'Secret' })] },
      want: item({ kind: 'Secret' }),
    },
    {
      name: 'an item with an apiVersion of its own is left alone',
      list: { apiVersion: 'v1', kind: 'ConfigMapList', items: [item({ apiVersion: 'v2' })] },
      want: item({ apiVersion: 'v2' }),
    },
    {
      name: 'a list without type meta takes the fallback',
      list: { items: [item()] },
      fallback: { apiVersion: 'example.com/v1', kind: 'Widget' },
      want: item({ apiVersion: 'example.com/v1', kind: 'Widget' }),
    },
    {
      name: "the list's own type meta wins over the fallback",
      list: { apiVersion: 'v1', kind: 'PodList', items: [item()] },
      fallback: { apiVersion: 'v9', kind: 'Other' },
      want: item({ apiVersion: 'v1', kind: 'Pod' }),
    },
    {
      name: 'nothing known: the item stays bare',
      list: { items: [item()] },
      want: item(),
    },
  ];
  it.each(cases)('$name', ({ list, fallback, want }) => {
    expect(setListItemTypeMeta(list, fallback)).toBe(list);
    expect(list.items[0]).toEqual(want);
  });
});
