import { expect, it } from 'vitest';
import { type ContractEndpoint, rawWatch } from './contract-client.js';
import { cm, contractCalls, createOpenCrd, suffix } from './contract-helpers.js';

/**
 * What a list looks like item by item on kube-apiserver 1.20, and which field labels a
 * cluster-scoped list accepts.
 */

/** The list queries served by each storage path of 1.20 (watch cache, etcd). */
const LIST_QUERIES = ['', '?resourceVersion=0', '?limit=10'];

interface TypeMeta {
  kind?: string;
  apiVersion?: string;
}

function typeMetaOf(items: TypeMeta[]): TypeMeta[] {
  return items.map(({ kind, apiVersion }) => ({
    ...(kind !== undefined ? { kind } : {}),
    ...(apiVersion !== undefined ? { apiVersion } : {}),
  }));
}

/** Registers the tests in the caller's describe block. */
export function defineListShapeContract(getTarget: () => ContractEndpoint): void {
  const calls = contractCalls(getTarget);
  const { call, create, newNamespace } = calls;

  it('lists built-in objects without kind and apiVersion, custom resources with them', async () => {
    const ns = await newNamespace('list-shape');
    const names = { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' };
    const { group, collection: sprockets } = await createOpenCrd(calls, 'shape', names, ns);
    await create(
      `/api/v1/namespaces/${ns}/configmaps`,
      cm('a', { metadata: { labels: { x: 'y' } } }),
    );
    await create(
      `/api/v1/namespaces/${ns}/configmaps`,
      cm('b', { metadata: { labels: { x: 'y' } } }),
    );
    await create(sprockets, {
      apiVersion: `${group}/v1`,
      kind: 'Sprocket',
      metadata: { name: 's' },
    });
    const lists: [string, TypeMeta[]][] = [
      [`/api/v1/namespaces/${ns}/configmaps`, [{}, {}]],
      [`/api/v1/namespaces?fieldSelector=metadata.name%3D${ns}`, [{}]],
      [sprockets, [{ kind: 'Sprocket', apiVersion: `${group}/v1` }]],
    ];
    for (const [path, expected] of lists) {
      for (const query of LIST_QUERIES) {
        const sep = query && path.includes('?') ? `&${query.slice(1)}` : query;
        const res = await call('GET', `${path}${sep}`);
        expect({ path, query, items: typeMetaOf(res.json.items) }).toEqual({
          path,
          query,
          items: expected,
        });
      }
    }
    // A deletecollection answers with the deleted objects as a list.
    const deleted = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=x%3Dy`);
    expect(deleted.status).toBe(200);
    expect(typeMetaOf(deleted.json.items)).toEqual([{}, {}]);
  });

  it('sends watch events with kind and apiVersion, for built-in objects too', async () => {
    const ns = await newNamespace('watch-shape');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await create(path, cm('initial'));
    const w = await rawWatch(getTarget(), `${path}?watch=true`);
    expect(w.status).toBe(200);
    await create(path, cm('later'));
    const events = await w.take(2);
    w.close();
    expect(
      events.map((e) => ({ type: e.type, kind: e.object.kind, apiVersion: e.object.apiVersion })),
    ).toEqual([
      { type: 'ADDED', kind: 'ConfigMap', apiVersion: 'v1' },
      { type: 'ADDED', kind: 'ConfigMap', apiVersion: 'v1' },
    ]);
  });

  it('refuses metadata.namespace in a field selector of namespaces and nodes; other cluster-scoped lists match it against ""', async () => {
    for (const path of ['/api/v1/namespaces', '/api/v1/nodes']) {
      for (const selector of [
        'metadata.namespace%3Dx',
        'metadata.namespace%3D',
        'metadata.namespace!%3Dx',
      ]) {
        for (const extra of ['', '&limit=5', '&watch=true']) {
          const res = await call('GET', `${path}?fieldSelector=${selector}${extra}`);
          expect({ path, selector, extra, status: res.status, body: res.json }).toEqual({
            path,
            selector,
            extra,
            status: 400,
            body: {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: 'field label not supported: metadata.namespace',
              reason: 'BadRequest',
              code: 400,
            },
          });
        }
      }
    }
    const name = `shape-${suffix()}`;
    await create('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [],
    });
    const clusterRoles = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    for (const [selector, count] of [
      ['metadata.namespace%3D', 1],
      ['metadata.namespace%3Dx', 0],
      ['metadata.namespace!%3Dx', 1],
    ] as const) {
      const res = await call(
        'GET',
        `${clusterRoles}?fieldSelector=${selector},metadata.name%3D${name}`,
      );
      expect({ selector, status: res.status, count: res.json.items?.length }).toEqual({
        selector,
        status: 200,
        count,
      });
    }
  });
}
