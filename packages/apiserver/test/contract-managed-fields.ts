import { expect, it } from 'vitest';
import type { ContractEndpoint, RawResponse } from './contract-client.js';
import { contractCalls, createOpenCrd } from './contract-helpers.js';

/**
 * `metadata.managedFields` as kube-apiserver 1.20 records them: after a create or update, a map
 * or list that was not there before is listed itself (`"."`) beside its members; an Apply lists
 * what its configuration declares, which for a custom resource is every map but its metadata.
 * Entries are ordered Apply first, then by time and manager.
 */

type Entries = [manager: string, operation: string, fields: unknown][];
// biome-ignore lint/suspicious/noExplicitAny: FieldsV1 trees are walked freely in these tests.
type Fields = Record<string, any>;

function entries(res: RawResponse): Entries {
  const list = (res.json.metadata.managedFields ?? []) as {
    manager: string;
    operation: string;
    fieldsV1: unknown;
  }[];
  return list.map((e) => [e.manager, e.operation, e.fieldsV1]);
}

const APPLY = { contentType: 'application/apply-patch+yaml' };

type Entry = Entries[number];

/** Each write's entries: its own, the earlier managers' kept, Apply first (see history()). */
function expectHistory(
  got: Record<string, Entries>,
  creator: Entry,
  updater: Entry,
  applier: Entry,
) {
  expect(got).toEqual({
    created: [creator],
    updated: [creator, updater],
    applied: [applier, creator, updater],
    appliedNew: [applier],
  });
}

/** Registers the tests in the caller's describe block. */
export function defineManagedFieldsContract(getTarget: () => ContractEndpoint): void {
  const calls = contractCalls(getTarget);
  const { call, create, newNamespace } = calls;

  /** Creates, updates (a new map, a new key) and applies `obj`, returning each answer's entries. */
  async function history(
    base: string,
    obj: Record<string, unknown>,
    change: (o: Fields) => void,
    applied: Record<string, unknown>,
  ): Promise<{ created: Entries; updated: Entries; applied: Entries; appliedNew: Entries }> {
    const name = (obj.metadata as { name: string }).name;
    const created = await create(`${base}?fieldManager=creator`, obj);
    const next = created.json;
    change(next);
    const updated = await call('PUT', `${base}/${name}?fieldManager=updater`, { body: next });
    expect(updated.status).toBe(200);
    const config = { ...applied, metadata: { name, labels: { by: 'applier' } } };
    const appliedRes = await call('PATCH', `${base}/${name}?fieldManager=applier`, {
      ...APPLY,
      body: JSON.stringify(config),
    });
    expect(appliedRes.status).toBe(200);
    const fresh = `${name}-new`;
    const appliedNew = await call('PATCH', `${base}/${fresh}?fieldManager=applier`, {
      ...APPLY,
      body: JSON.stringify({ ...config, metadata: { ...config.metadata, name: fresh } }),
    });
    expect(appliedNew.status).toBe(201);
    return {
      created: entries(created),
      updated: entries(updated),
      applied: entries(appliedRes),
      appliedNew: entries(appliedNew),
    };
  }

  it('lists new maps with "." after a create and an update, not in an Apply of a built-in object', async () => {
    const ns = await newNamespace('mf-configmap');
    const got = await history(
      `/api/v1/namespaces/${ns}/configmaps`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } },
      (o) => {
        o.metadata.annotations = { note: 'n' };
        o.data.k2 = 'v2';
      },
      { apiVersion: 'v1', kind: 'ConfigMap', data: { k3: 'v3' } },
    );
    const creator: Entry = ['creator', 'Update', { 'f:data': { '.': {}, 'f:k': {} } }];
    const updater: Entry = [
      'updater',
      'Update',
      { 'f:data': { 'f:k2': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } } },
    ];
    const applier: Entry = [
      'applier',
      'Apply',
      { 'f:data': { 'f:k3': {} }, 'f:metadata': { 'f:labels': { 'f:by': {} } } },
    ];
    expectHistory(got, creator, updater, applier);
  });

  it('lists every new map of a custom resource with ".", and in an Apply all but its metadata', async () => {
    const ns = await newNamespace('mf-cr');
    const names = { plural: 'widgets', singular: 'widget', kind: 'Widget' };
    const { group, collection: base } = await createOpenCrd(calls, 'mf', names, ns);
    const type = { apiVersion: `${group}/v1`, kind: 'Widget' };
    const got = await history(
      base,
      { ...type, metadata: { name: 'w', labels: { app: 'x' } }, spec: { a: 1, n: { b: 1 } } },
      (o) => {
        o.metadata.annotations = { note: 'n' };
        o.spec.extra = { x: 1 };
        o.spec.n.c = 2;
      },
      { ...type, spec: { more: { y: 2, z: { w: 1 } } } },
    );
    const creator: Entry = [
      'creator',
      'Update',
      {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { '.': {}, 'f:a': {}, 'f:n': { '.': {}, 'f:b': {} } },
      },
    ];
    const updater: Entry = [
      'updater',
      'Update',
      {
        'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } },
        'f:spec': { 'f:extra': { '.': {}, 'f:x': {} }, 'f:n': { 'f:c': {} } },
      },
    ];
    const applier: Entry = [
      'applier',
      'Apply',
      {
        'f:metadata': { 'f:labels': { 'f:by': {} } },
        'f:spec': { '.': {}, 'f:more': { '.': {}, 'f:y': {}, 'f:z': { '.': {}, 'f:w': {} } } },
      },
    ];
    expectHistory(got, creator, updater, applier);
  });

  it('lists a pod’s and a deployment’s new maps and keyed lists with ".", but not containers; ports keyed by port and protocol', async () => {
    const ns = await newNamespace('mf-workloads');
    const container = {
      name: 'c',
      image: 'nginx',
      env: [{ name: 'A', value: '1' }],
      // Keyed by port and protocol: the same port twice, the first with the default protocol.
      ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'UDP' }],
    };
    const pod = await create(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { app: 'x' } },
      spec: { containers: [container], nodeSelector: { disk: 'ssd' } },
    });
    const deployment = await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', labels: { app: 'x' } },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [container] } },
      },
    });
    const labels = { 'f:labels': { '.': {}, 'f:app': {} } };
    const containerFields = (fields: Fields) => fields['f:containers']['k:{"name":"c"}'];
    const expectedContainer = {
      '.': {},
      'f:env': { '.': {}, 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
      'f:image': {},
      'f:imagePullPolicy': {},
      'f:name': {},
      'f:ports': {
        '.': {},
        'k:{"containerPort":80,"protocol":"TCP"}': {
          '.': {},
          'f:containerPort': {},
          'f:protocol': {},
        },
        'k:{"containerPort":80,"protocol":"UDP"}': {
          '.': {},
          'f:containerPort': {},
          'f:protocol': {},
        },
      },
      'f:resources': {},
      'f:terminationMessagePath': {},
      'f:terminationMessagePolicy': {},
    };
    // Fields 1.20 records differently for these kinds are left out (see docs/embedded-server.md).
    const podFields = entries(pod)[0]?.[2] as Fields;
    expect({
      metadata: podFields['f:metadata'],
      container: containerFields(podFields['f:spec']),
      nodeSelector: podFields['f:spec']['f:nodeSelector'],
    }).toEqual({
      metadata: labels,
      container: expectedContainer,
      nodeSelector: { '.': {}, 'f:disk': {} },
    });
    // An applied port without its protocol is keyed by the default one.
    const applied = await call('PATCH', `/api/v1/namespaces/${ns}/pods/ap?fieldManager=applier`, {
      ...APPLY,
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'ap' },
        spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] },
      }),
    });
    expect([applied.status, entries(applied)]).toEqual([
      201,
      [
        [
          'applier',
          'Apply',
          {
            'f:spec': {
              'f:containers': {
                'k:{"name":"c"}': {
                  '.': {},
                  'f:image': {},
                  'f:name': {},
                  'f:ports': {
                    'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                  },
                },
              },
            },
          },
        ],
      ],
    ]);
    const deploymentFields = entries(deployment)[0]?.[2] as Fields;
    const template = deploymentFields['f:spec']['f:template'];
    expect({
      metadata: deploymentFields['f:metadata'],
      // The template's null creationTimestamp is in no field set.
      templateMetadata: template['f:metadata'],
      container: containerFields(template['f:spec']),
    }).toEqual({
      metadata: labels,
      templateMetadata: labels,
      container: expectedContainer,
    });
  });

  it('shares a field two appliers set to the same value, and lets it go when one stops applying it', async () => {
    const ns = await newNamespace('mf-shared');
    const path = `/api/v1/namespaces/${ns}/configmaps/shared`;
    const apply = (manager: string, data?: Record<string, string>) =>
      call('PATCH', `${path}?fieldManager=${manager}`, {
        ...APPLY,
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'shared' },
          data,
        }),
      });
    const first = await apply('a', { x: '1', w: '2' });
    expect(first.status).toBe(201);
    const second = await apply('b', { x: '1' });
    expect(second.status).toBe(200);
    // Only ownership changed: still a write, with a new resourceVersion.
    expect(second.json.metadata.resourceVersion).not.toBe(first.json.metadata.resourceVersion);
    expect(entries(second)).toEqual([
      ['a', 'Apply', { 'f:data': { 'f:w': {}, 'f:x': {} } }],
      ['b', 'Apply', { 'f:data': { 'f:x': {} } }],
    ]);
    const again = await apply('b', { x: '1' });
    expect(again.json.metadata.resourceVersion).toBe(second.json.metadata.resourceVersion);
    // a stops applying x: b still owns it, so it stays; w was a's alone, so it goes.
    const released = await apply('a');
    expect(released.json.data).toEqual({ x: '1' });
    expect(entries(released)).toEqual([['b', 'Apply', { 'f:data': { 'f:x': {} } }]]);
  });
}
