import { describe, expect, it } from 'vitest';
import {
  fromUnstructured,
  isUnstructured,
  nestedBool,
  nestedField,
  nestedFieldCopy,
  nestedFloat64,
  nestedInt64,
  nestedMap,
  nestedSlice,
  nestedString,
  nestedStringMap,
  nestedStringSlice,
  removeNestedField,
  setNestedField,
  toTypedList,
  type Unstructured,
  UnstructuredConversionError,
  UnstructuredFieldError,
  type UnstructuredList,
} from './unstructured.js';

function deployment(): Unstructured {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 3,
      paused: false,
      progressDeadlineSeconds: 600.5,
      selector: { matchLabels: { app: 'web' } },
      template: { spec: { containers: [{ name: 'c', image: 'nginx', args: ['-g', 'x'] }] } },
      nothing: null,
    },
  };
}

describe('nested field helpers', () => {
  it('reads typed values and returns undefined for missing paths', () => {
    const obj = deployment();
    expect(nestedInt64(obj, 'spec', 'replicas')).toBe(3);
    expect(nestedBool(obj, 'spec', 'paused')).toBe(false);
    expect(nestedFloat64(obj, 'spec', 'progressDeadlineSeconds')).toBe(600.5);
    expect(nestedString(obj, 'metadata', 'name')).toBe('web');
    expect(nestedStringMap(obj, 'metadata', 'labels')).toEqual({ app: 'web' });
    expect(nestedString(obj, 'spec', 'strategy', 'type')).toBeUndefined();
    expect(nestedString(obj, 'status')).toBeUndefined();
    expect(nestedField(obj, 'spec', 'nothing')).toBeNull();
    expect(nestedSlice(obj, 'spec', 'nothing')).toBeUndefined();
    expect(nestedMap(obj, 'spec', 'nothing')).toBeUndefined();
    expect(nestedField(obj)).toBe(obj);
  });

  it('throws a TypeError naming the path and the type found when a value has the wrong type', () => {
    const obj = deployment();
    expect(() => nestedString(obj, 'spec', 'replicas')).toThrow(UnstructuredFieldError);
    expect(() => nestedString(obj, 'spec', 'replicas')).toThrow(
      '.spec.replicas accessor error: 3 is of type number, expected string',
    );
    expect(() => nestedInt64(obj, 'spec', 'progressDeadlineSeconds')).toThrow(
      'expected an integer',
    );
    expect(() => nestedString(obj, 'spec', 'replicas', 'deeper')).toThrow(
      '.spec.replicas accessor error: 3 is of type number, expected an object',
    );
    expect(() => nestedStringSlice(obj, 'spec', 'template')).toThrow(
      'expected an array of strings',
    );
    expect(() => nestedMap(obj, 'spec', 'replicas')).toThrow(TypeError);
  });

  it('copies maps and slices but not nestedField', () => {
    const obj = deployment();
    const containers = nestedSlice(obj, 'spec', 'template', 'spec', 'containers');
    (containers?.[0] as { image: string }).image = 'changed';
    expect(JSON.stringify(obj)).not.toContain('changed');

    const selector = nestedMap(obj, 'spec', 'selector');
    (selector as { matchLabels: Record<string, string> }).matchLabels.app = 'x';
    expect(nestedStringMap(obj, 'spec', 'selector', 'matchLabels')).toEqual({ app: 'web' });

    const copy = nestedFieldCopy(obj, 'spec', 'selector') as { matchLabels: object };
    expect(copy).not.toBe(nestedField(obj, 'spec', 'selector'));
    expect(nestedField(obj, 'spec', 'selector')).toBe((obj.spec as { selector: object }).selector);
    expect(nestedStringSlice(obj, 'spec', 'missing')).toBeUndefined();
  });

  it('sets values, creating objects on the way and copying the value', () => {
    const obj = deployment();
    const labels = { tier: 'front' };
    setNestedField(obj, labels, 'spec', 'template', 'metadata', 'labels');
    labels.tier = 'changed';
    expect(nestedStringMap(obj, 'spec', 'template', 'metadata', 'labels')).toEqual({
      tier: 'front',
    });
    setNestedField(obj, 5, 'spec', 'replicas');
    expect(nestedInt64(obj, 'spec', 'replicas')).toBe(5);
    setNestedField(obj, 'x', 'spec', 'nothing', 'below');
    expect(nestedString(obj, 'spec', 'nothing', 'below')).toBe('x');
    expect(() => setNestedField(obj, 1, 'spec', 'replicas', 'x')).toThrow(
      '.spec.replicas accessor error: value cannot be set because 5 is of type number, not an object',
    );
    expect(() => setNestedField(obj, 1)).toThrow(TypeError);
  });

  it('removes fields and ignores missing ones', () => {
    const obj = deployment();
    removeNestedField(obj, 'spec', 'selector', 'matchLabels');
    expect(nestedField(obj, 'spec', 'selector')).toEqual({});
    removeNestedField(obj, 'status', 'conditions');
    removeNestedField(obj, 'spec', 'replicas', 'x');
    expect(nestedInt64(obj, 'spec', 'replicas')).toBe(3);
  });
});

interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace?: string };
  spec: { containers: { name: string; image: string }[] };
  status?: { phase?: string };
}

function pod(name: string): Unstructured {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Pending' },
  };
}

describe('conversion to typed objects', () => {
  it('checks apiVersion and kind and returns the object typed, copied on request', () => {
    const obj = pod('a');
    expect(isUnstructured(obj)).toBe(true);
    expect(isUnstructured({ kind: 'Pod' })).toBe(false);
    const typed = fromUnstructured<Pod>(obj, { apiVersion: 'v1', kind: 'Pod' });
    expect(typed.spec.containers[0]?.image).toBe('busybox');
    expect(typed).toBe(obj);
    const copy = fromUnstructured<Pod>(obj, { kind: 'Pod', clone: true });
    expect(copy).toEqual(obj);
    expect(copy).not.toBe(obj);
  });

  it('names the object and every mismatch', () => {
    expect(() => fromUnstructured<Pod>(deployment(), { apiVersion: 'v1', kind: 'Pod' })).toThrow(
      'cannot convert object "default/web": apiVersion is "apps/v1", expected "v1"; kind is "Deployment", expected "Pod"',
    );
    expect(() => fromUnstructured<Pod>('nope', { kind: 'Pod' })).toThrow(
      UnstructuredConversionError,
    );
    expect(() => fromUnstructured<Pod>({ metadata: {} }, { kind: 'Pod' })).toThrow(
      'kind is missing',
    );
  });

  it('converts a list, checking the list and each item', () => {
    const list: UnstructuredList = {
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '5' },
      items: [pod('a'), pod('b')],
    };
    const typed = toTypedList<Pod>(list, { apiVersion: 'v1', kind: 'Pod' });
    expect(typed.kind).toBe('PodList');
    expect(typed.metadata.resourceVersion).toBe('5');
    expect(typed.items.map((p) => `${p.metadata.name} ${p.status?.phase}`)).toEqual([
      'a Pending',
      'b Pending',
    ]);
    expect(typed.items[0]).toBe(list.items[0]);
    expect(
      toTypedList<Pod>(list, { apiVersion: 'v1', kind: 'Pod', clone: true }).items[0],
    ).not.toBe(list.items[0]);

    // Items without type meta (a raw typed list) are what the list says they are.
    const raw = { apiVersion: 'v1', kind: 'PodList', items: [{ metadata: { name: 'c' } }] };
    expect(toTypedList<Pod>(raw, { apiVersion: 'v1', kind: 'Pod' }).items).toHaveLength(1);

    expect(() => toTypedList<Pod>(list, { apiVersion: 'apps/v1', kind: 'Deployment' })).toThrow(
      'cannot convert list: apiVersion is "v1", expected "apps/v1"; kind is "PodList", expected "DeploymentList"',
    );
    const mixed = { ...list, items: [pod('a'), deployment()] };
    expect(() => toTypedList<Pod>(mixed, { apiVersion: 'v1', kind: 'Pod' })).toThrow(
      'cannot convert item 1 "default/web": apiVersion is "apps/v1", expected "v1"',
    );
  });
});
