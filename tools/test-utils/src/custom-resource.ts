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
