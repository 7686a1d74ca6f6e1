// The custom resource of client-go's CRD example (crddemo.k8s.io/v1 Mydemo), as the tests of
// typed clients and informers for custom resources define it.

/** A Mydemo object. */
export interface Mydemo {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { ip: string; port: number };
}

/** Mydemo's group, version, plural, kind and scope: spread into `defineResource<Mydemo>()`. */
export const mydemoResource = {
  group: 'crddemo.k8s.io',
  version: 'v1',
  resource: 'mydemos',
  kind: 'Mydemo',
  namespaced: true,
} as const;

/** A (small) OpenAPI v3 schema. */
interface Schema {
  type: string;
  properties?: Record<string, Schema>;
}

/** An OpenAPI v3 object schema with these properties. */
const objectSchema = (properties: Record<string, Schema>): Schema => ({
  type: 'object',
  properties,
});

/**
 * Mydemo's CustomResourceDefinition (apiextensions.k8s.io/v1, with a status subresource and
 * a schema), as client-go's CRD example installs it; `*.k8s.io` groups need the approval
 * annotation.
 */
export const mydemoCrd = {
  apiVersion: 'apiextensions.k8s.io/v1' as const,
  kind: 'CustomResourceDefinition' as const,
  metadata: {
    name: 'mydemos.crddemo.k8s.io',
    annotations: { 'api-approved.kubernetes.io': 'unapproved, testing only' },
  },
  spec: {
    group: 'crddemo.k8s.io',
    scope: 'Namespaced',
    names: { plural: 'mydemos', singular: 'mydemo', kind: 'Mydemo', listKind: 'MydemoList' },
    versions: [
      {
        name: 'v1',
        schema: {
          openAPIV3Schema: objectSchema({
            spec: objectSchema({ ip: { type: 'string' }, port: { type: 'integer' } }),
            status: objectSchema({ phase: { type: 'string' } }),
          }),
        },
        subresources: { status: {} },
        served: true,
        storage: true,
      },
    ],
  },
};

/** Widget's group, version, plural, kind and scope: a custom resource created at test time. */
export const widgetResource = {
  group: 'e2e.kubets.dev',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
} as const;

/**
 * Widget's CustomResourceDefinition (apiextensions.k8s.io/v1): for e2e tests that create a
 * CRD at run time and drive its objects without generated types. Its `spec` keeps any field,
 * so tests choose their own (e.g. `size`, `color`).
 */
export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1' as const,
  kind: 'CustomResourceDefinition' as const,
  metadata: { name: 'widgets.e2e.kubets.dev' },
  spec: {
    group: 'e2e.kubets.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};
