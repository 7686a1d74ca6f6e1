import { createHash } from 'node:crypto';
import {
  builtinResourceRows,
  builtinReviewRows,
  type NameRule,
} from './generated/builtin-resources.js';
import { isObject, type JsonObject } from './patch.js';

export type { NameRule };

/** A resource the in-memory API server serves, as discovery describes it. */
export interface ResourceDefinition {
  /** API group, `''` for core. */
  readonly group: string;
  /** Versions it is served at; the first is the preferred one. */
  readonly versions: readonly string[];
  /** Plural resource name (the URL segment). */
  readonly resource: string;
  readonly singularName: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  /** Has a `/status` subresource: the main resource ignores status, `/status` only changes status. */
  readonly status: boolean;
  /** Has a `/scale` subresource (autoscaling/v1 Scale over `spec.replicas`). */
  readonly scale: boolean;
  /** Has a `/log` subresource (pods: container logs, text/plain). */
  readonly log: boolean;
  /** `metadata.generation` is kept and bumped when anything but metadata and status changes. */
  readonly generation: boolean;
  /** Deleting returns the object (true) or a success Status (false), as 1.20 does per resource. */
  readonly returnDeletedObject: boolean;
  readonly nameRule: NameRule;
  /** Strategic-merge-patch merge keys for lists, by dotted path (`spec.template.spec.containers`). */
  readonly mergeKeys: Readonly<Record<string, string>>;
  /** Defined by a CustomResourceDefinition. */
  readonly custom: boolean;
  /** A review: only `create`, answered and never stored (see routes-reviews.ts). */
  readonly createOnly: boolean;
  /** A custom resource's `openAPIV3Schema` per served version (see crd-schema/). */
  readonly schemas?: Readonly<Record<string, JsonObject>> | undefined;
  /** A custom resource's Scale replica paths per served version that declares `/scale`. */
  readonly scaleReplicaPaths?: Readonly<Record<string, ScaleReplicaPaths>> | undefined;
}

/** Where a custom resource keeps its Scale's replicas (`.spec.replicas`-style paths). */
export interface ScaleReplicaPaths {
  readonly spec: string;
  /** `''` when the CRD declares no `statusReplicasPath`. */
  readonly status: string;
}

const ALL_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
const NO_COLLECTION_DELETE = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

const commonMergeKeys: Record<string, string> = {
  'metadata.ownerReferences': 'uid',
  'metadata.managedFields': '',
};

function def(
  partial: Pick<ResourceDefinition, 'group' | 'resource' | 'kind'> & Partial<ResourceDefinition>,
): ResourceDefinition {
  return {
    versions: ['v1'],
    singularName: partial.kind.toLowerCase(),
    listKind: `${partial.kind}List`,
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    status: false,
    scale: false,
    log: false,
    generation: false,
    returnDeletedObject: false,
    nameRule: 'subdomain',
    custom: false,
    createOnly: false,
    ...partial,
    mergeKeys: { ...commonMergeKeys, ...partial.mergeKeys },
  };
}

/**
 * The built-in resources, with the discovery data kube-apiserver 1.20 reports for them: the
 * rows of the repository's resource table the in-memory server serves (generated into
 * `generated/builtin-resources.ts`), in table order, then the reviews it answers.
 */
export function builtinResources(): ResourceDefinition[] {
  const named = (row: (typeof builtinReviewRows)[number]) => ({
    group: row.group,
    versions: [row.version],
    resource: row.resource,
    kind: row.kind,
  });
  const stored = builtinResourceRows.map((row) =>
    def({
      ...named(row),
      namespaced: row.namespaced,
      shortNames: [...row.shortNames],
      categories: [...row.categories],
      // kube-apiserver 1.20 reports no singular name for built-in resources (1.27 added them).
      singularName: '',
      verbs: row.deleteCollection ? ALL_VERBS : NO_COLLECTION_DELETE,
      status: row.subresources.includes('status'),
      scale: row.subresources.includes('scale'),
      log: row.subresources.includes('log'),
      generation: row.generation,
      returnDeletedObject: row.returnDeletedObject,
      nameRule: row.nameRule,
      mergeKeys: row.mergeKeys,
    }),
  );
  const reviews = builtinReviewRows.map((row) =>
    // kube-apiserver 1.20 reports no singular name for reviews.
    def({
      ...named(row),
      namespaced: row.namespaced,
      singularName: '',
      verbs: ['create'],
      createOnly: true,
    }),
  );
  return [...stored, ...reviews];
}

/** The definition a CustomResourceDefinition (apiextensions.k8s.io/v1) describes, if valid. */
export function definitionFromCrd(crd: unknown): ResourceDefinition | undefined {
  const spec = (crd as { spec?: Record<string, unknown> } | undefined)?.spec;
  if (!spec || typeof spec.group !== 'string') return undefined;
  const names = spec.names as
    | {
        plural?: string;
        singular?: string;
        kind?: string;
        listKind?: string;
        shortNames?: string[];
        categories?: string[];
      }
    | undefined;
  if (!names?.plural || !names.kind) return undefined;
  const versions = Array.isArray(spec.versions)
    ? (spec.versions as {
        name?: string;
        served?: boolean;
        storage?: boolean;
        subresources?: {
          status?: unknown;
          scale?: unknown;
        };
        schema?: { openAPIV3Schema?: unknown };
      }[])
    : [];
  const served = versions.filter((v) => v.served !== false && typeof v.name === 'string');
  if (served.length === 0) return undefined;
  return def({
    group: spec.group,
    resource: names.plural,
    kind: names.kind,
    singularName: names.singular ?? names.kind.toLowerCase(),
    listKind: names.listKind ?? `${names.kind}List`,
    versions: sortVersions(served.map((v) => v.name as string)),
    namespaced: spec.scope !== 'Cluster',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    status: served.some((v) => v.subresources?.status !== undefined),
    scale: served.some((v) => v.subresources?.scale !== undefined),
    generation: true,
    custom: true,
    schemas: Object.fromEntries(
      served.flatMap((v) => {
        const schema = v.schema?.openAPIV3Schema;
        return isObject(schema) ? [[v.name as string, schema]] : [];
      }),
    ),
    scaleReplicaPaths: Object.fromEntries(
      served.flatMap((v) => {
        const scale = v.subresources?.scale;
        if (!isObject(scale) || typeof scale.specReplicasPath !== 'string') return [];
        const status = typeof scale.statusReplicasPath === 'string' ? scale.statusReplicasPath : '';
        return [[v.name as string, { spec: scale.specReplicasPath, status }]];
      }),
    ),
  });
}

/**
 * Orders versions as Kubernetes does for the preferred version: GA before beta before
 * alpha, higher major first, then higher minor.
 */
export function sortVersions(versions: readonly string[]): string[] {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const stability = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stability, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  return [...versions].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < 4; i++) {
      const x = ra[i] as number | string;
      const y = rb[i] as number | string;
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  });
}

/** `group/resource` (`/resource` for core): the key a resource's objects are stored under. */
export function resourceKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}

/** `apiVersion` for a group and version. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** One served group-version and the resources in it. */
interface GroupVersionEntry {
  group: string;
  version: string;
  resources: Map<string, ResourceDefinition>;
}

/** The set of served resources; CRDs add and remove entries at run time. */
export class ResourceRegistry {
  readonly #byGroupVersion = new Map<string, GroupVersionEntry>();
  /** Group order as first registered, so discovery is stable (core groups first). */
  readonly #groupOrder: string[] = [];

  constructor(definitions: readonly ResourceDefinition[] = builtinResources()) {
    for (const definition of definitions) this.add(definition);
  }

  /** Registers a definition at each of its versions (replacing one with the same name). */
  add(definition: ResourceDefinition): void {
    if (!this.#groupOrder.includes(definition.group)) this.#groupOrder.push(definition.group);
    for (const version of definition.versions) {
      const gv = apiVersionOf(definition.group, version);
      let entry = this.#byGroupVersion.get(gv);
      if (!entry) {
        entry = { group: definition.group, version, resources: new Map() };
        this.#byGroupVersion.set(gv, entry);
      }
      entry.resources.set(definition.resource, definition);
    }
  }

  /** Unregisters a resource from every version of its group. */
  remove(group: string, resource: string): void {
    for (const [gv, entry] of this.#byGroupVersion) {
      if (entry.group !== group) continue;
      entry.resources.delete(resource);
      if (entry.resources.size === 0) this.#byGroupVersion.delete(gv);
    }
    if (![...this.#byGroupVersion.values()].some((e) => e.group === group)) {
      const at = this.#groupOrder.indexOf(group);
      if (at >= 0) this.#groupOrder.splice(at, 1);
    }
  }

  /** The definition served at `group/version/resource`, if any. */
  lookup(group: string, version: string, resource: string): ResourceDefinition | undefined {
    return this.#byGroupVersion.get(apiVersionOf(group, version))?.resources.get(resource);
  }

  /** The definition of `group/resource` at any version. */
  find(group: string, resource: string): ResourceDefinition | undefined {
    for (const entry of this.#byGroupVersion.values()) {
      if (entry.group === group) {
        const found = entry.resources.get(resource);
        if (found) return found;
      }
    }
    return undefined;
  }

  /** Whether `group/version` is served. */
  hasGroupVersion(group: string, version: string): boolean {
    return this.#byGroupVersion.has(apiVersionOf(group, version));
  }

  /** Versions of a group, preferred first. */
  versionsOf(group: string): string[] {
    const versions: string[] = [];
    for (const entry of this.#byGroupVersion.values()) {
      if (entry.group === group) versions.push(entry.version);
    }
    return sortVersions(versions);
  }

  /** Named groups (not core), in registration order. */
  groups(): string[] {
    return this.#groupOrder.filter((g) => g !== '' && this.versionsOf(g).length > 0);
  }

  /** Resources served at `group/version`. */
  resourcesOf(group: string, version: string): ResourceDefinition[] {
    return [...(this.#byGroupVersion.get(apiVersionOf(group, version))?.resources.values() ?? [])];
  }
}

/** The `APIGroup` discovery document of one group. */
export function apiGroupDocument(registry: ResourceRegistry, group: string): object {
  const versions = registry.versionsOf(group);
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return {
    name: group,
    versions: entries,
    preferredVersion: entries[0],
  };
}

/** The pod subresources besides `log` and `status` the server answers (see routes-pods.ts). */
const POD_SUBRESOURCES: readonly { name: string; verbs: string[]; kind: object }[] = [
  { name: 'attach', verbs: ['create', 'get'], kind: { kind: 'PodAttachOptions' } },
  { name: 'binding', verbs: ['create'], kind: { kind: 'Binding' } },
  {
    name: 'eviction',
    verbs: ['create'],
    kind: { group: 'policy', version: 'v1beta1', kind: 'Eviction' },
  },
  { name: 'exec', verbs: ['create', 'get'], kind: { kind: 'PodExecOptions' } },
];

/**
 * Pod subresources kube-apiserver lists though they reach the kubelet, which this server has
 * none of: listed as 1.20 lists them, answered 404.
 */
const POD_KUBELET_SUBRESOURCES: readonly { name: string; verbs: string[]; kind: object }[] = [
  { name: 'portforward', verbs: ['create', 'get'], kind: { kind: 'PodPortForwardOptions' } },
  {
    name: 'proxy',
    verbs: ['create', 'delete', 'get', 'patch', 'update'],
    kind: { kind: 'PodProxyOptions' },
  },
];

/**
 * kube-apiserver's `storageVersionHash`: the first 8 bytes of the SHA-256 of the storage
 * version's `group/version/kind`, in base64 (Events are stored as core/v1 Events).
 */
function storageVersionHash(d: ResourceDefinition, version: string): string {
  const stored = d.group === 'events.k8s.io' ? '/v1/Event' : `${d.group}/${version}/${d.kind}`;
  return createHash('sha256').update(stored).digest().subarray(0, 8).toString('base64');
}

/** The `APIResourceList` of one group-version. */
export function apiResourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): object {
  const resources: object[] = [];
  for (const d of registry.resourcesOf(group, version)) {
    resources.push({
      name: d.resource,
      singularName: d.singularName,
      namespaced: d.namespaced,
      kind: d.kind,
      verbs: d.verbs,
      ...(d.shortNames.length > 0 ? { shortNames: d.shortNames } : {}),
      ...(d.categories.length > 0 ? { categories: d.categories } : {}),
      ...(d.custom || d.createOnly ? {} : { storageVersionHash: storageVersionHash(d, version) }),
    });
    // `kind` is the kind the subresource serves: the resource's own, or autoscaling/v1 Scale.
    const subresource = (name: string, verbs: string[], kind: object = { kind: d.kind }) => ({
      name: `${d.resource}/${name}`,
      singularName: '',
      namespaced: d.namespaced,
      ...kind,
      verbs,
    });
    // Listed by name, as kube-apiserver lists them.
    if (d.log) resources.push(...POD_SUBRESOURCES.map((s) => subresource(s.name, s.verbs, s.kind)));
    if (d.log) resources.push(subresource('log', ['get']));
    if (d.log) {
      resources.push(...POD_KUBELET_SUBRESOURCES.map((s) => subresource(s.name, s.verbs, s.kind)));
    }
    if (d.group === '' && d.resource === 'serviceaccounts') {
      const tokenRequest = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
      resources.push(subresource('token', ['create'], tokenRequest));
    }
    if (d.scale) {
      const scale = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
      resources.push(subresource('scale', ['get', 'patch', 'update'], scale));
    }
    if (d.status) resources.push(subresource('status', ['get', 'patch', 'update']));
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf(group, version),
    resources,
  };
}
