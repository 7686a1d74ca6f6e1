import Type from 'typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { violations, websiteDeclaration } from '../test/website.js';
import {
  type CustomObjectOf,
  CustomResourceDefinitionError,
  defineCustomResource,
  pluralize,
} from './index.js';

const GROUP = 'example.com';
const ROOT = 'spec.validation.openAPIV3Schema';
const SPEC = `${ROOT}.properties[spec]`;

/** The error `defineCustomResource` throws for `declaration`. */
function refusal(declaration: Parameters<typeof defineCustomResource>[0]) {
  try {
    defineCustomResource(declaration);
  } catch (err) {
    if (err instanceof CustomResourceDefinitionError) return err;
    throw err;
  }
  throw new Error('the declaration was accepted');
}

describe('defineCustomResource', () => {
  const websites = defineCustomResource(websiteDeclaration(GROUP));

  it('writes the apiextensions.k8s.io/v1 CRD with v1 defaults set', () => {
    const { crd } = websites;
    expect(crd.metadata?.name).toBe('websites.example.com');
    expect(crd.spec.names).toEqual({
      plural: 'websites',
      singular: 'website',
      kind: 'Website',
      listKind: 'WebsiteList',
      shortNames: ['ws'],
      categories: ['all'],
    });
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.conversion).toEqual({ strategy: 'None' });
    const [v1] = crd.spec.versions;
    expect(v1).toMatchObject({
      name: 'v1',
      served: true,
      storage: true,
      subresources: {
        status: {},
        scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
      },
      additionalPrinterColumns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    });
  });

  it('gives the root schema type meta, metadata as kube-apiserver wants it, spec and status', () => {
    const root = websites.crd.spec.versions[0]?.schema?.openAPIV3Schema;
    expect(root?.type).toBe('object');
    expect(root?.required).toEqual(['spec']);
    expect(root?.properties?.apiVersion).toEqual({ type: 'string' });
    expect(root?.properties?.kind).toEqual({ type: 'string' });
    expect(root?.properties?.metadata).toEqual({ type: 'object' });
    expect(root?.properties?.status).toEqual({
      type: 'object',
      properties: { replicas: { type: 'integer' }, url: { type: 'string' } },
    });
  });

  it('turns the TypeBox schema into a structural OpenAPI v3 schema with the Kubernetes idioms', () => {
    const spec = websites.crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec;
    expect(spec).toEqual({
      type: 'object',
      required: ['image'],
      properties: {
        image: { type: 'string', pattern: '^[a-z0-9./:-]+$', description: 'The image to serve.' },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        tier: { type: 'string', default: 'free', enum: ['free', 'pro'] },
        ports: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'port'],
            properties: {
              name: { type: 'string' },
              port: { type: 'integer', minimum: 1, maximum: 65535 },
              protocol: { type: 'string', default: 'TCP' },
            },
          },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        },
        maxSurge: { 'x-kubernetes-int-or-string': true },
        hosts: {
          type: 'array',
          items: { type: 'string', format: 'hostname' },
          'x-kubernetes-list-type': 'set',
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        owner: { type: 'string', nullable: true },
      },
    });
  });

  it('gives each version a resource descriptor with its scope and subresources', () => {
    expect(websites.versions.v1).toEqual({
      group: 'example.com',
      version: 'v1',
      resource: 'websites',
      kind: 'Website',
      listKind: 'WebsiteList',
      namespaced: true,
      subresources: ['status', 'scale'],
    });
  });

  it('gives the object type from the same declaration', () => {
    type Website = CustomObjectOf<typeof websites.versions.v1>;
    expectTypeOf<Website['spec']['image']>().toEqualTypeOf<string>();
    expectTypeOf<Website['spec']['replicas']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Website['spec']['tier']>().toEqualTypeOf<'free' | 'pro' | undefined>();
    expectTypeOf<Website['spec']['maxSurge']>().toEqualTypeOf<number | string | undefined>();
    expectTypeOf<Website['spec']['owner']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<NonNullable<Website['spec']['ports']>[number]['name']>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<Website['status']>['url']>().toEqualTypeOf<string | undefined>();
    expectTypeOf(websites.versions.v1.namespaced).toEqualTypeOf<true>();
  });

  it('lists cluster-scoped resources and versions without status as such', () => {
    const clusters = defineCustomResource({
      group: GROUP,
      kind: 'ClusterPolicy',
      scope: 'Cluster',
      versions: {
        v1beta1: { spec: Type.Object({ a: Type.String() }), served: true, storage: false },
        v1: {
          spec: Type.Object({ a: Type.String(), b: Type.Optional(Type.String()) }),
          storage: true,
        },
      },
    });
    expect(clusters.crd.metadata?.name).toBe('clusterpolicies.example.com');
    expect(clusters.crd.spec.versions.map((v) => [v.name, v.storage])).toEqual([
      ['v1beta1', false],
      ['v1', true],
    ]);
    expect(clusters.versions.v1.namespaced).toBe(false);
    expect(clusters.versions.v1.subresources).toEqual([]);
    expectTypeOf(clusters.versions.v1.namespaced).toEqualTypeOf<false>();
  });

  it('restricts metadata.name only as kube-apiserver allows', () => {
    const named = defineCustomResource({
      group: GROUP,
      kind: 'Short',
      scope: 'Namespaced',
      versions: {
        v1: { spec: Type.Object({}), metadata: { name: Type.String({ maxLength: 20 }) } },
      },
    });
    expect(named.crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.metadata).toEqual({
      type: 'object',
      properties: { name: { type: 'string', maxLength: 20 } },
    });
  });
});

describe('defineCustomResource refuses what kube-apiserver refuses, with its words', () => {
  const bad = violations(GROUP);

  it('a union at the root of spec (not structural)', () => {
    const err = refusal(bad['a union (anyOf) at the root of spec']);
    const structural = 'Forbidden: must be empty to be structural';
    expect(err.causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
      `${SPEC}.anyOf[0].properties[a].type: ${structural}`,
      `${SPEC}.anyOf[0].type: ${structural}`,
      `${SPEC}.anyOf[1].properties[b].type: ${structural}`,
      `${SPEC}.anyOf[1].type: ${structural}`,
      `${SPEC}.type: Required value: must not be empty for specified object fields`,
    ]);
    expect(err.message).toBe(
      `CustomResourceDefinition.apiextensions.k8s.io "websites.example.com" is invalid: [${err.causes
        .map((c) => `${c.field}: ${c.message}`)
        .join(', ')}]`,
    );
  });

  it('a oneOf at the root of spec that says more than value validations', () => {
    const err = refusal(bad['a oneOf at the root of spec']);
    expect(err.causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
      `${SPEC}.oneOf[0].type: Forbidden: must be empty to be structural`,
    ]);
  });

  it('a field without a type', () => {
    const err = refusal(bad['a field without a type']);
    expect(err.message).toBe(
      `CustomResourceDefinition.apiextensions.k8s.io "websites.example.com" is invalid: ${SPEC}.properties[anything].type: Required value: must not be empty for specified object fields`,
    );
  });

  it('a list-map key that is neither required nor defaulted', () => {
    const err = refusal(bad['a list-map key that is not required']);
    expect(err.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        message:
          'Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        field: `${SPEC}.properties[ports].items.properties[name].default`,
      },
    ]);
  });

  it('a group without a dot, or not a DNS subdomain', () => {
    expect(refusal(bad['a group without a dot']).causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "websites": should be a domain with at least one dot',
        field: 'spec.group',
      },
    ]);
    const causes = refusal(bad['a group that is not a DNS subdomain']).causes;
    expect(causes.map((c) => c.field)).toEqual(['metadata.name', 'spec.group']);
    expect(causes[1]?.message).toMatch(
      /^Invalid value: "Web_Sites.io": a lowercase RFC 1123 subdomain must consist of/,
    );
  });

  it('a kind that is not a DNS label once lower-cased', () => {
    const causes = refusal(bad['a kind that is not a DNS label']).causes;
    expect(causes.map((c) => c.field)).toEqual([
      'spec.names.singular',
      'spec.names.kind',
      'spec.names.listKind',
    ]);
    expect(causes[1]?.message).toMatch(
      /^Invalid value: "Web_Site": may have mixed case, but should otherwise match: a DNS-1035 label must consist of/,
    );
  });

  it('an unknown format, which kube-apiserver would silently drop (kubets rule)', () => {
    const err = refusal({
      ...websiteDeclaration(GROUP),
      versions: {
        v1: { spec: Type.Object({ address: Type.String({ format: 'ipv4-address' }) }) },
      },
    });
    expect(err.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message:
          'Invalid value: "ipv4-address": unknown format: kube-apiserver 1.20 would drop it and check nothing (kubets refuses it)',
        field:
          'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[address].format',
      },
    ]);
  });

  it('accepts the formats kube-apiserver knows, number formats included', () => {
    const formats = ['int32', 'int64', 'float', 'double', 'date-time', 'byte', 'uuid', 'ipv4'];
    const spec = Type.Object(
      Object.fromEntries(formats.map((f, i) => [`f${i}`, Type.String({ format: f })])),
    );
    expect(() =>
      defineCustomResource({ ...websiteDeclaration(GROUP), versions: { v1: { spec } } }),
    ).not.toThrow();
  });
});

describe('pluralize', () => {
  it.each([
    ['website', 'websites'],
    ['policy', 'policies'],
    ['gateway', 'gateways'],
    ['ingress', 'ingresses'],
    ['box', 'boxes'],
    ['patch', 'patches'],
  ])('%s → %s', (singular, plural) => {
    expect(pluralize(singular)).toBe(plural);
  });
});
