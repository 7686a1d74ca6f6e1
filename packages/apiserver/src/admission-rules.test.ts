import { describe, expect, it } from 'vitest';
import {
  type AdmissionAttributes,
  type AdmissionOperation,
  type AdmissionResource,
  matchedResource,
  namespaceSelectorMatches,
  objectSelectorMatches,
  ruleMatches,
  webhooksOf,
} from './admission-rules.js';
import type { JsonObject } from './patch.js';

const pods: AdmissionResource = { group: '', version: 'v1', resource: 'pods' };
const deployments: AdmissionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespaces: AdmissionResource = { group: '', version: 'v1', resource: 'namespaces' };
const nodes: AdmissionResource = { group: '', version: 'v1', resource: 'nodes' };

const rule = (overrides: JsonObject = {}): JsonObject => ({
  operations: ['*'],
  apiGroups: ['*'],
  apiVersions: ['*'],
  resources: ['*'],
  ...overrides,
});

describe('ruleMatches', () => {
  const cases: {
    name: string;
    rule: JsonObject;
    operation?: AdmissionOperation;
    resource?: AdmissionResource;
    subresource?: string;
    namespace?: string;
    want: boolean;
  }[] = [
    { name: 'everything', rule: rule(), want: true },
    { name: 'operation listed', rule: rule({ operations: ['UPDATE', 'CREATE'] }), want: true },
    { name: 'operation not listed', rule: rule({ operations: ['DELETE'] }), want: false },
    { name: 'no operations', rule: rule({ operations: [] }), want: false },
    { name: 'core group', rule: rule({ apiGroups: [''] }), want: true },
    { name: 'other group', rule: rule({ apiGroups: ['apps'] }), want: false },
    {
      name: 'named group',
      rule: rule({ apiGroups: ['apps'] }),
      resource: deployments,
      want: true,
    },
    { name: 'version listed', rule: rule({ apiVersions: ['v1'] }), want: true },
    { name: 'version not listed', rule: rule({ apiVersions: ['v1beta1'] }), want: false },
    { name: 'resource named', rule: rule({ resources: ['pods'] }), want: true },
    { name: 'other resource', rule: rule({ resources: ['services'] }), want: false },
    {
      name: '* is no subresource',
      rule: rule({ resources: ['*'] }),
      subresource: 'status',
      want: false,
    },
    {
      name: 'pods is not pods/status',
      rule: rule({ resources: ['pods'] }),
      subresource: 'status',
      want: false,
    },
    {
      name: 'pods/status',
      rule: rule({ resources: ['pods/status'] }),
      subresource: 'status',
      want: true,
    },
    {
      name: 'pods/status is not the pod',
      rule: rule({ resources: ['pods/status'] }),
      want: false,
    },
    {
      name: 'pods/* is every subresource of pods',
      rule: rule({ resources: ['pods/*'] }),
      subresource: 'ephemeralcontainers',
      want: true,
    },
    {
      // kube-apiserver matches a `*` subresource against the main resource too.
      name: 'pods/* is also the pod itself',
      rule: rule({ resources: ['pods/*'] }),
      want: true,
    },
    {
      name: '*/status is every status',
      rule: rule({ resources: ['*/status'] }),
      resource: deployments,
      subresource: 'status',
      want: true,
    },
    {
      name: '*/* is everything with a subresource',
      rule: rule({ resources: ['*/*'] }),
      subresource: 'status',
      want: true,
    },
    {
      name: '*/* is everything without one',
      rule: rule({ resources: ['*/*'] }),
      want: true,
    },
    { name: 'scope * namespaced', rule: rule({ scope: '*' }), want: true },
    {
      name: 'scope * cluster',
      rule: rule({ scope: '*' }),
      resource: nodes,
      namespace: '',
      want: true,
    },
    { name: 'Namespaced in a namespace', rule: rule({ scope: 'Namespaced' }), want: true },
    {
      name: 'Namespaced for a cluster object',
      rule: rule({ scope: 'Namespaced' }),
      resource: nodes,
      namespace: '',
      want: false,
    },
    {
      name: 'Namespaced never a namespace',
      rule: rule({ scope: 'Namespaced' }),
      resource: namespaces,
      namespace: 'default',
      want: false,
    },
    { name: 'Cluster in a namespace', rule: rule({ scope: 'Cluster' }), want: false },
    {
      name: 'Cluster for a cluster object',
      rule: rule({ scope: 'Cluster' }),
      resource: nodes,
      namespace: '',
      want: true,
    },
    {
      name: 'Cluster for a namespace',
      rule: rule({ scope: 'Cluster' }),
      resource: namespaces,
      namespace: 'default',
      want: true,
    },
  ];
  it.each(cases)('$name', (c) => {
    expect(
      ruleMatches(
        c.rule,
        c.operation ?? 'CREATE',
        c.resource ?? pods,
        c.subresource ?? '',
        c.namespace ?? 'default',
      ),
    ).toBe(c.want);
  });
});

const attributes = (overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  resource: pods,
  subresource: '',
  namespace: 'default',
  object: { metadata: { name: 'p' } },
  oldObject: null,
  ...overrides,
});

const hookFrom = (webhook: JsonObject) =>
  webhooksOf([
    { metadata: { name: 'config' }, webhooks: [{ name: 'w.example.com', ...webhook }] },
  ])[0] as ReturnType<typeof webhooksOf>[number];

describe('webhooksOf', () => {
  it('orders webhooks by configuration name, then as listed, and fills the v1 defaults', () => {
    const hooks = webhooksOf([
      { metadata: { name: 'b' }, webhooks: [{ name: 'b1' }, { name: 'b2' }] },
      { metadata: { name: 'a' }, webhooks: [{ name: 'a1' }] },
    ]);
    expect(hooks.map((h) => [h.uid, h.name])).toEqual([
      ['a/0', 'a1'],
      ['b/0', 'b1'],
      ['b/1', 'b2'],
    ]);
    expect(hooks[0]).toMatchObject({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
    });
  });
});

describe('matchedResource', () => {
  const v1beta1 = { ...deployments, version: 'v1beta1' };
  const onlyBeta = { rules: [rule({ apiVersions: ['v1beta1'] })] };
  const cases: {
    name: string;
    webhook: JsonObject;
    equivalents: AdmissionResource[];
    want: AdmissionResource | undefined;
  }[] = [
    {
      name: 'the request resource when a rule matches it',
      webhook: { rules: [rule()] },
      equivalents: [v1beta1],
      want: deployments,
    },
    {
      name: 'Equivalent: another version a rule matches',
      webhook: onlyBeta,
      equivalents: [v1beta1],
      want: v1beta1,
    },
    {
      name: 'Exact: never another version',
      webhook: { ...onlyBeta, matchPolicy: 'Exact' },
      equivalents: [v1beta1],
      want: undefined,
    },
    {
      name: 'Equivalent: nothing when no version matches',
      webhook: onlyBeta,
      equivalents: [],
      want: undefined,
    },
  ];
  it.each(cases)('$name', (c) => {
    expect(
      matchedResource(hookFrom(c.webhook), attributes({ resource: deployments }), c.equivalents),
    ).toEqual(c.want);
  });
});

describe('objectSelectorMatches', () => {
  const labelled = (labels: Record<string, string>) => ({ metadata: { labels } });
  const cases: {
    name: string;
    selector: JsonObject | undefined;
    object: JsonObject | null;
    oldObject: JsonObject | null;
    want: boolean;
  }[] = [
    {
      name: 'empty selector, no objects',
      selector: undefined,
      object: null,
      oldObject: null,
      want: true,
    },
    {
      name: 'new object matches',
      selector: { matchLabels: { a: '1' } },
      object: labelled({ a: '1' }),
      oldObject: null,
      want: true,
    },
    {
      name: 'old object matches',
      selector: { matchLabels: { a: '1' } },
      object: labelled({ a: '2' }),
      oldObject: labelled({ a: '1' }),
      want: true,
    },
    {
      name: 'neither matches',
      selector: { matchLabels: { a: '1' } },
      object: labelled({ a: '2' }),
      oldObject: labelled({}),
      want: false,
    },
    {
      name: 'DoesNotExist on an unlabelled object',
      selector: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] },
      object: { metadata: {} },
      oldObject: null,
      want: true,
    },
    {
      name: 'a selector never matches a delete without objects',
      selector: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] },
      object: null,
      oldObject: null,
      want: false,
    },
  ];
  it.each(cases)('$name', (c) => {
    const hook = hookFrom(c.selector ? { objectSelector: c.selector } : {});
    expect(
      objectSelectorMatches(hook, attributes({ object: c.object, oldObject: c.oldObject })),
    ).toBe(c.want);
  });
});

describe('namespaceSelectorMatches', () => {
  const labels: Record<string, Record<string, string>> = { team: { team: 'a' }, plain: {} };
  const lookup = (name: string) => labels[name];
  const selector = { matchLabels: { team: 'a' } };
  const cases: {
    name: string;
    selector: JsonObject | undefined;
    attributes: Partial<AdmissionAttributes>;
    want: boolean;
  }[] = [
    { name: 'empty selector', selector: undefined, attributes: { namespace: 'plain' }, want: true },
    { name: 'labelled namespace', selector, attributes: { namespace: 'team' }, want: true },
    { name: 'unlabelled namespace', selector, attributes: { namespace: 'plain' }, want: false },
    { name: 'missing namespace', selector, attributes: { namespace: 'gone' }, want: false },
    {
      name: 'cluster-scoped objects always',
      selector,
      attributes: { resource: nodes, namespace: '' },
      want: true,
    },
    {
      name: 'a namespace being created: its new labels',
      selector,
      attributes: {
        resource: namespaces,
        namespace: '',
        object: { metadata: { name: 'new', labels: { team: 'a' } } },
      },
      want: true,
    },
    {
      name: 'a namespace being updated: its new labels, not the stored ones',
      selector,
      attributes: {
        operation: 'UPDATE',
        resource: namespaces,
        namespace: 'team',
        object: { metadata: { name: 'team', labels: {} } },
      },
      want: false,
    },
    {
      name: 'a namespace being deleted: its stored labels',
      selector,
      attributes: { operation: 'DELETE', resource: namespaces, namespace: 'team', object: null },
      want: true,
    },
  ];
  it.each(cases)('$name', (c) => {
    const hook = hookFrom(c.selector ? { namespaceSelector: c.selector } : {});
    expect(namespaceSelectorMatches(hook, attributes(c.attributes), lookup)).toBe(c.want);
  });
});
