import {
  crdInvalidMessage,
  type FieldError,
  type JsonObject,
  unknownFormatErrors,
  validateCustomResourceDefinition,
} from '@kubets/apiextensions';
import type { ObjectList, ObjectMeta } from '@kubets/apimachinery';
import {
  type apiextensionsv1,
  defineResource,
  type ResourceDescriptor,
  type Subresource,
} from '@kubets/clientset';
import type { Static, TSchema } from 'typebox';
import { toOpenAPIV3 } from './openapi.js';

/** Where objects of the resource live: in a namespace, or once in the cluster. */
export type Scope = 'Namespaced' | 'Cluster';

/** A column `kubectl get` prints for the resource (`additionalPrinterColumns`). */
export interface PrinterColumn {
  /** The column header, e.g. `Replicas`. */
  name: string;
  /** How the value is shown: `date` prints an age (`5m`). */
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  /** A simple JSON path into the object, e.g. `.spec.replicas`. */
  jsonPath: string;
  /** What the column shows, for `kubectl explain`-like tools. */
  description?: string;
  /** An OpenAPI format of the value (`int32`, `date-time`, ...). */
  format?: 'int32' | 'int64' | 'float' | 'double' | 'byte' | 'date' | 'date-time' | 'password';
  /** 0 for the default view; higher only with `kubectl get -o wide`. */
  priority?: number;
}

/** The scale subresource: where the replica counts live, for `kubectl scale` and autoscalers. */
export interface ScaleSubresource {
  /** The desired replicas, a path under `.spec` (e.g. `.spec.replicas`). */
  specReplicasPath: string;
  /** The observed replicas, a path under `.status` (e.g. `.status.replicas`). */
  statusReplicasPath: string;
  /** The label selector (as a string), a path under `.spec` or `.status`. */
  labelSelectorPath?: string;
}

/** One version of a custom resource: its schemas and how the API server serves it. */
export interface VersionDeclaration {
  /** The schema of `spec` (required in every object). */
  spec: TSchema;
  /** The schema of `status`; declaring one turns on the status subresource. */
  status?: TSchema;
  /** Restrictions of `metadata.name` and `metadata.generateName` (the only ones allowed). */
  metadata?: {
    /** The schema of `metadata.name`, e.g. `Type.String({ maxLength: 63 })`. */
    name?: TSchema;
    /** The schema of `metadata.generateName`. */
    generateName?: TSchema;
  };
  /** The description of the resource's root schema. */
  description?: string;
  /** Whether the API server serves this version; default true. */
  served?: boolean;
  /** Whether objects are stored in this version; default true when it is the only version. */
  storage?: boolean;
  /** Whether clients get a deprecation warning for this version. */
  deprecated?: boolean;
  /** The warning text for a deprecated version. */
  deprecationWarning?: string;
  /** Columns `kubectl get` prints. */
  printerColumns?: readonly PrinterColumn[];
  /** The scale subresource. */
  scale?: ScaleSubresource;
}

/** A custom resource's declaration: its names, scope and versions. */
export interface CustomResourceDeclaration<
  V extends Readonly<Record<string, VersionDeclaration>>,
  S extends Scope,
> {
  /** The API group, a DNS subdomain with at least one dot (`example.com`). */
  group: string;
  /** The kind, CamelCase (`Website`). */
  kind: string;
  /** The plural resource name in URLs; default the lower-cased kind made plural (`websites`). */
  plural?: string;
  /** The singular name; default the lower-cased kind. */
  singular?: string;
  /** The list kind; default `<kind>List`. */
  listKind?: string;
  /** Namespaced or cluster-scoped. */
  scope: S;
  /** Short names for kubectl (`ws`). */
  shortNames?: readonly string[];
  /** Categories the resource belongs to (`all`: `kubectl get all` lists it). */
  categories?: readonly string[];
  /** The versions by name (`v1`, `v1beta1`), in the order the CRD lists them. */
  versions: V;
  /** Labels of the CustomResourceDefinition object itself. */
  labels?: Readonly<Record<string, string>>;
  /** Annotations of the CustomResourceDefinition object itself. */
  annotations?: Readonly<Record<string, string>>;
}

/** A version declaration with a `status` schema (and so the status subresource). */
export interface WithStatus<St extends TSchema = TSchema> {
  /** The schema of `status`. */
  status: St;
}

/** A version declaration with the scale subresource. */
export interface WithScale {
  /** Where the replica counts live. */
  scale: ScaleSubresource;
}

/** The object type of a version: type meta, `metadata`, `spec` and (if declared) `status`. */
export type CustomObject<V extends VersionDeclaration> = {
  /** `group/version` of the object. */
  apiVersion?: string;
  /** The kind. */
  kind?: string;
  /** Standard object metadata. */
  metadata?: ObjectMeta;
  /** The desired state. */
  spec: Static<V['spec']>;
} & (V extends WithStatus<infer St>
  ? {
      /** The observed state. */
      status?: Static<St>;
    }
  : unknown);

/** The subresources a version's declaration turns on. */
export type SubresourcesOf<V extends VersionDeclaration> =
  | (V extends WithStatus ? 'status' : never)
  | (V extends WithScale ? 'scale' : never);

/**
 * The resource descriptor of one version (for `clientset.resource()`, informers, listers and
 * the controller builder), with the scope and subresources known at the type level.
 */
export type CustomResourceDescriptor<
  V extends VersionDeclaration,
  S extends Scope,
> = ResourceDescriptor<
  CustomObject<V>,
  ObjectList<CustomObject<V>>,
  S extends 'Namespaced' ? true : false,
  SubresourcesOf<V>
>;

/** The object type of a descriptor: `type Website = CustomObjectOf<typeof websites.versions.v1>`. */
export type CustomObjectOf<D> =
  D extends ResourceDescriptor<infer T, unknown, boolean, Subresource> ? T : never;

/** What {@link defineCustomResource} gives: the CRD and a descriptor per version. */
export interface CustomResource<
  V extends Readonly<Record<string, VersionDeclaration>>,
  S extends Scope,
> {
  /** The `apiextensions.k8s.io/v1` CustomResourceDefinition, checked, with v1's defaults set. */
  readonly crd: apiextensionsv1.CustomResourceDefinition;
  /** The descriptor of each version, by version name. */
  readonly versions: { readonly [K in keyof V]: CustomResourceDescriptor<V[K], S> };
}

/** Thrown when a declaration would not make a CRD kube-apiserver accepts. */
export class CustomResourceDefinitionError extends Error {
  /** Each broken rule and where: `field` (`spec.group`) and `message` in kube-apiserver's words. */
  readonly causes: readonly FieldError[];
  /** The refused CustomResourceDefinition, as it would have been written. */
  readonly crd: apiextensionsv1.CustomResourceDefinition;

  /** The message is the one kube-apiserver answers a create of `crd` with. */
  constructor(crd: apiextensionsv1.CustomResourceDefinition, causes: readonly FieldError[]) {
    super(crdInvalidMessage(crd.metadata?.name ?? '', causes));
    this.name = 'CustomResourceDefinitionError';
    this.causes = causes;
    this.crd = crd;
  }
}

/** English plural of a lower-case kind, as kubebuilder makes it for the common endings. */
export function pluralize(singular: string): string {
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  return `${singular}s`;
}

function rootSchema(version: VersionDeclaration): JsonObject {
  const metadataProperties: JsonObject = {};
  if (version.metadata?.name) metadataProperties.name = toOpenAPIV3(version.metadata.name);
  if (version.metadata?.generateName) {
    metadataProperties.generateName = toOpenAPIV3(version.metadata.generateName);
  }
  const metadata: JsonObject =
    Object.keys(metadataProperties).length > 0
      ? { type: 'object', properties: metadataProperties }
      : { type: 'object' };
  return {
    ...(version.description ? { description: version.description } : {}),
    type: 'object',
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata,
      spec: toOpenAPIV3(version.spec),
      ...(version.status ? { status: toOpenAPIV3(version.status) } : {}),
    },
  };
}

function crdVersion(name: string, version: VersionDeclaration, only: boolean): JsonObject {
  const subresources: JsonObject = {};
  if (version.status) subresources.status = {};
  if (version.scale) subresources.scale = { ...version.scale };
  return {
    name,
    served: version.served ?? true,
    storage: version.storage ?? only,
    ...(version.deprecated ? { deprecated: true } : {}),
    ...(version.deprecationWarning ? { deprecationWarning: version.deprecationWarning } : {}),
    schema: { openAPIV3Schema: rootSchema(version) },
    ...(Object.keys(subresources).length > 0 ? { subresources } : {}),
    ...(version.printerColumns?.length
      ? { additionalPrinterColumns: version.printerColumns.map((c) => ({ ...c })) }
      : {}),
  };
}

/**
 * Declares a custom resource in TypeScript: from one declaration, the checked
 * `apiextensions.k8s.io/v1` CustomResourceDefinition (`.crd`), a resource descriptor per
 * version (`.versions.v1`) for the typed client, informers, listers and the controller
 * builder, and the object type (`CustomObjectOf<typeof x.versions.v1>`).
 *
 * The schemas are TypeBox schemas (`Type.Object`, ...) with this package's Kubernetes
 * idioms (`intOrString`, `listMap`, ...). Before returning, the CRD is checked as
 * kube-apiserver 1.20 checks a create (names, group, scope, versions, the structural schema,
 * defaults, list types, subresources, printer columns) plus one rule of kubets (no format the
 * server would drop); a broken rule throws {@link CustomResourceDefinitionError} naming each
 * field and rule in kube-apiserver's words.
 */
export function defineCustomResource<
  const V extends Readonly<Record<string, VersionDeclaration>>,
  const S extends Scope,
>(declaration: CustomResourceDeclaration<V, S>): CustomResource<V, S> {
  const singular = declaration.singular ?? declaration.kind.toLowerCase();
  const plural = declaration.plural ?? pluralize(singular);
  const listKind = declaration.listKind ?? `${declaration.kind}List`;
  const entries = Object.entries(declaration.versions);
  const name = `${plural}.${declaration.group}`;
  const metadata: JsonObject = { name };
  if (declaration.labels) metadata.labels = { ...declaration.labels };
  if (declaration.annotations) metadata.annotations = { ...declaration.annotations };
  const crd: JsonObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata,
    spec: {
      group: declaration.group,
      names: {
        plural,
        singular,
        kind: declaration.kind,
        listKind,
        ...(declaration.shortNames?.length ? { shortNames: [...declaration.shortNames] } : {}),
        ...(declaration.categories?.length ? { categories: [...declaration.categories] } : {}),
      },
      scope: declaration.scope,
      versions: entries.map(([version, v]) => crdVersion(version, v, entries.length === 1)),
      conversion: { strategy: 'None' },
    },
  };
  const manifest = crd as unknown as apiextensionsv1.CustomResourceDefinition;
  const causes = [...validateCustomResourceDefinition(crd), ...unknownFormatErrors(crd)];
  if (causes.length > 0) throw new CustomResourceDefinitionError(manifest, causes);
  const versions = Object.fromEntries(
    entries.map(([version, v]) => [
      version,
      defineResource({
        group: declaration.group,
        version,
        resource: plural,
        kind: declaration.kind,
        listKind,
        namespaced: declaration.scope === 'Namespaced',
        subresources: [...(v.status ? ['status'] : []), ...(v.scale ? ['scale'] : [])],
      }),
    ]),
  ) as unknown as CustomResource<V, S>['versions'];
  return Object.freeze({
    crd: manifest,
    versions: Object.freeze(versions),
  });
}
