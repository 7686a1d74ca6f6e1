// The custom resource the unit and end-to-end tests declare: every idiom of the package in one
// version, plus the ways to break it.
import Type from 'typebox';
import {
  type CustomResourceDeclaration,
  intOrString,
  listMap,
  listSet,
  type PrinterColumn,
  preserveUnknownFields,
  stringMap,
  type VersionDeclaration,
} from '../src/index.js';

/** The spec of a Website: defaults, an enum, bounds, a pattern, a list-map, int-or-string. */
export const websiteSpec = Type.Object({
  image: Type.String({ pattern: '^[a-z0-9./:-]+$', description: 'The image to serve.' }),
  replicas: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 1 })),
  tier: Type.Optional(Type.Union([Type.Literal('free'), Type.Literal('pro')], { default: 'free' })),
  ports: Type.Optional(
    listMap(
      Type.Object({
        name: Type.String(),
        port: Type.Integer({ minimum: 1, maximum: 65535 }),
        protocol: Type.Optional(Type.String({ default: 'TCP' })),
      }),
      ['name'],
    ),
  ),
  maxSurge: Type.Optional(intOrString()),
  hosts: Type.Optional(listSet(Type.String({ format: 'hostname' }))),
  labels: Type.Optional(stringMap(Type.String())),
  config: Type.Optional(preserveUnknownFields()),
  owner: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** The status of a Website. */
export const websiteStatus = Type.Object({
  replicas: Type.Optional(Type.Integer()),
  url: Type.Optional(Type.String()),
});

/** The version every test uses, with printer columns and both subresources. */
export const websiteV1 = {
  spec: websiteSpec,
  status: websiteStatus,
  printerColumns: [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
} satisfies VersionDeclaration;

/** The declaration, in `group`. */
export function websiteDeclaration(group: string) {
  return {
    group,
    kind: 'Website',
    scope: 'Namespaced',
    shortNames: ['ws'],
    categories: ['all'],
    versions: { v1: websiteV1 },
  } satisfies CustomResourceDeclaration<{ v1: typeof websiteV1 }, 'Namespaced'>;
}

/** The same declaration with one version's spec replaced by `spec`. */
export function withSpec(group: string, spec: VersionDeclaration['spec']) {
  return {
    ...websiteDeclaration(group),
    versions: { v1: { ...websiteV1, spec } },
  };
}

/** Declarations kube-apiserver refuses, by the rule each breaks. */
export function violations(group: string) {
  return {
    'a union (anyOf) at the root of spec': withSpec(
      group,
      Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
    ),
    'a oneOf at the root of spec': withSpec(
      group,
      Type.Unsafe({
        type: 'object',
        properties: { a: { type: 'string' } },
        oneOf: [{ type: 'object', required: ['a'] }, { required: ['b'] }],
      }),
    ),
    'a field without a type': withSpec(group, Type.Object({ anything: Type.Unknown() })),
    'a list-map key that is not required': withSpec(
      group,
      Type.Object({
        ports: listMap(Type.Object({ name: Type.Optional(Type.String()) }), ['name']),
      }),
    ),
    'a group without a dot': { ...websiteDeclaration(group), group: 'websites' },
    'a group that is not a DNS subdomain': { ...websiteDeclaration(group), group: 'Web_Sites.io' },
    'a default of the wrong type': withSpec(
      group,
      Type.Object({ replicas: Type.Optional(Type.Integer({ default: 'one' })) }),
    ),
    'a scale path outside .spec, a printer column of an unknown type and path': {
      ...websiteDeclaration(group),
      versions: {
        v1: {
          ...websiteV1,
          scale: { specReplicasPath: '.status.replicas', statusReplicasPath: 'status.replicas' },
          printerColumns: [
            { name: 'Image', type: 'text' as PrinterColumn['type'], jsonPath: 'spec.image' },
          ],
        },
      },
    },
    'a short name and a version name that are not DNS labels': {
      ...websiteDeclaration(group),
      shortNames: ['web site'],
      versions: { V1: websiteV1 },
    },
    'a group under k8s.io without the approval annotation': {
      ...websiteDeclaration(group),
      group: 'sites.k8s.io',
    },
    'a kind that is not a DNS label': {
      ...websiteDeclaration(group),
      kind: 'Web_Site',
      plural: 'websites',
    },
  };
}
