import type { HasObjectMeta, OwnerReference } from '@kubets/apimachinery';
import { thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  AlreadyOwnedError,
  hasOwnerReference,
  isAlreadyOwnedError,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './index.js';

// The owner of controller-runtime's controllerutil tests: an extensions/v1beta1 Deployment.
const deployment = (namespace?: string) => ({
  apiVersion: 'extensions/v1beta1',
  kind: 'Deployment',
  metadata: { name: 'foo', uid: 'foo-uid', ...(namespace ? { namespace } : {}) },
});
const replicaSet = (namespace?: string, ownerReferences?: OwnerReference[]): HasObjectMeta => ({
  metadata: {
    name: 'foo',
    ...(namespace ? { namespace } : {}),
    ...(ownerReferences ? { ownerReferences } : {}),
  },
});
const ref = (apiVersion: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion,
  kind: 'Deployment',
  name: 'foo',
  uid: 'foo-uid',
  ...extra,
});

describe('setControllerReference', () => {
  it.each([
    {
      name: 'sets the reference on an object without owners',
      object: replicaSet(),
      owner: deployment(),
      expected: [ref('extensions/v1beta1', { controller: true, blockOwnerDeletion: true })],
    },
    {
      name: 'does not duplicate an existing reference to the same owner',
      object: replicaSet('default', [
        ref('extensions/v1beta1', { controller: false, blockOwnerDeletion: true }),
      ]),
      owner: deployment('default'),
      expected: [ref('extensions/v1beta1', { controller: true, blockOwnerDeletion: true })],
    },
    {
      name: 'replaces a reference to another version of the owner',
      object: replicaSet('default', [
        ref('extensions/v1alpha1', { controller: true, blockOwnerDeletion: true }),
      ]),
      owner: deployment('default'),
      expected: [ref('extensions/v1beta1', { controller: true, blockOwnerDeletion: true })],
    },
    {
      name: 'accepts a cluster-scoped owner of a namespaced object',
      object: replicaSet('default'),
      owner: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'n1-uid' } },
      expected: [
        {
          apiVersion: 'v1',
          kind: 'Node',
          name: 'n1',
          uid: 'n1-uid',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
  ])('$name', ({ object, owner, expected }) => {
    setControllerReference(owner, object);
    expect(object.metadata?.ownerReferences).toEqual(expected);
  });

  it('sets blockOwnerDeletion as asked', () => {
    const rs = replicaSet();
    setControllerReference(deployment(), rs, { blockOwnerDeletion: false });
    expect(rs.metadata?.ownerReferences).toEqual([
      ref('extensions/v1beta1', { controller: true, blockOwnerDeletion: false }),
    ]);
  });

  it('refuses an object already controlled by another owner, and leaves it as it was', () => {
    const other = ref('extensions/v1beta1', { name: 'bar', uid: 'bar-uid', controller: true });
    const rs = replicaSet('default', [other]);
    const err = thrownBy(() => setControllerReference(deployment('default'), rs));
    expect(err).toBeInstanceOf(AlreadyOwnedError);
    expect(isAlreadyOwnedError(err)).toBe(true);
    expect((err as AlreadyOwnedError).owner).toBe(other);
    expect(String(err)).toContain('already owned by another Deployment controller bar');
    expect(rs.metadata?.ownerReferences).toEqual([other]);
  });

  it.each([
    {
      name: 'a cross-namespace owner',
      object: replicaSet('namespace1'),
      owner: deployment('namespace2'),
      message:
        "cross-namespace owner references are disallowed, owner's namespace namespace2, obj's namespace namespace1",
    },
    {
      name: 'a namespaced owner of a cluster-scoped object',
      object: { metadata: { name: 'pv' } },
      owner: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'foo', namespace: 'default', uid: 'u' },
      },
      message:
        "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace default",
    },
    {
      name: 'an owner without type meta or uid',
      object: replicaSet(),
      owner: { metadata: { name: 'foo' } },
      message: 'owner foo has no apiVersion, kind, metadata.uid',
    },
  ])('refuses $name', ({ object, owner, message }) => {
    const err = thrownBy(() => setControllerReference(owner, object));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toContain(message);
    expect(object.metadata).not.toHaveProperty('ownerReferences');
  });
});

describe('setOwnerReference', () => {
  it('adds a plain reference, with blockOwnerDeletion only when asked', () => {
    const rs = replicaSet();
    setOwnerReference(deployment(), rs);
    expect(rs.metadata?.ownerReferences).toEqual([ref('extensions/v1beta1')]);
    setOwnerReference(deployment(), rs, { blockOwnerDeletion: true });
    expect(rs.metadata?.ownerReferences).toEqual([
      ref('extensions/v1beta1', { blockOwnerDeletion: true }),
    ]);
  });

  it('keeps other owners and the controller flag of the same owner', () => {
    const other = ref('apps/v1', { kind: 'StatefulSet', name: 'bar', uid: 'bar-uid' });
    const rs = replicaSet('default', [other]);
    setControllerReference(deployment('default'), rs);
    setOwnerReference(deployment('default'), rs);
    expect(rs.metadata?.ownerReferences).toEqual([
      other,
      ref('extensions/v1beta1', { controller: true }),
    ]);
  });

  it('is refused across namespaces, as the controller reference', () => {
    expect(thrownBy(() => setOwnerReference(deployment('a'), replicaSet('b')))).toBeInstanceOf(
      TypeError,
    );
  });
});

describe('hasOwnerReference and removeOwnerReference', () => {
  it('find and remove the reference to one owner only', () => {
    const other = ref('apps/v1', { kind: 'StatefulSet', name: 'bar', uid: 'bar-uid' });
    const rs = replicaSet('default', [other]);
    expect(hasOwnerReference(deployment('default'), rs)).toBe(false);
    expect(removeOwnerReference(deployment('default'), rs)).toBe(false);
    setControllerReference(deployment('default'), rs);
    expect(hasOwnerReference(deployment('default'), rs)).toBe(true);
    expect(removeOwnerReference(deployment('default'), rs)).toBe(true);
    expect(rs.metadata?.ownerReferences).toEqual([other]);
  });
});
