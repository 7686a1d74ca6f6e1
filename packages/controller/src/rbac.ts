import {
  type GroupResource,
  isDNS1123Label,
  isDNS1123Subdomain,
  parseGroupVersionResource,
} from '@kubets/apimachinery';
import type { corev1, ResourceDescriptor, rbacv1 } from '@kubets/clientset';
import type { WatchedResource } from './watched-resource.js';

/** A verb of a Kubernetes RBAC rule. */
export type RbacVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection'
  | (string & {});

/**
 * A resource a permission is about: a typed descriptor (its scope is known), a
 * group/version/resource, a `group/version/resource` string, or `{ group, resource }`.
 */
export type RbacResource = WatchedResource | GroupResource;

/**
 * What a controller may do beyond what the library derives (kubebuilder's
 * `+kubebuilder:rbac` marker): declared on the builder with `.rbac(...)`, or given to
 * {@link rbacManifests} for what the manager's other runnables do.
 */
export interface RbacPermission {
  /** The resource. */
  readonly resource: RbacResource;
  /** A subresource such as `status`, `scale` or `finalizers`; the rule names `<resource>/<subresource>`. */
  readonly subresource?: string | undefined;
  /** The verbs allowed. */
  readonly verbs: readonly RbacVerb[];
  /** Only objects of these names (not possible with `create`, `list`, `watch`, `deletecollection`). */
  readonly resourceNames?: readonly string[] | undefined;
  /**
   * Where the permission holds: a namespace, or `''` for every namespace (a ClusterRole).
   * Default: the manager's scope (its `namespace` option) for a namespaced resource, the
   * cluster for a cluster-scoped one.
   */
  readonly namespace?: string | undefined;
}

/**
 * The verbs `createOrUpdate(client, obj, mutate)` uses on `resource`: get, create, update.
 */
export function createOrUpdatePermission(resource: RbacResource): RbacPermission {
  return { resource, verbs: ['get', 'create', 'update'] };
}

/**
 * The verbs `createOrPatch(client, obj, mutate)` uses on `resource` (get, create, patch) and,
 * with `status: true`, on its status subresource (patch).
 */
export function createOrPatchPermissions(
  resource: RbacResource,
  options: { status?: boolean } = {},
): RbacPermission[] {
  return [
    { resource, verbs: ['get', 'create', 'patch'] },
    ...(options.status ? [statusPermission(resource, ['patch'])] : []),
  ];
}

/**
 * The verbs `serverSideApply(client, obj, options)` needs on `resource`: patch, and create,
 * which kube-apiserver checks when the apply creates the object.
 */
export function serverSideApplyPermission(resource: RbacResource): RbacPermission {
  return { resource, verbs: ['create', 'patch'] };
}

/**
 * The verb `finalizer(client, obj, name, handlers)` uses on `resource`: patch (a JSON patch
 * adding or removing the finalizer).
 */
export function finalizerPermission(resource: RbacResource): RbacPermission {
  return { resource, verbs: ['patch'] };
}

/**
 * Writing the status subresource of `resource`: `update` for `updateStatus`, `patch` for
 * `patchStatus`, `createOrPatch` and `serverSideApplyStatus`.
 */
export function statusPermission(
  resource: RbacResource,
  verbs: readonly RbacVerb[],
): RbacPermission {
  return { resource, subresource: 'status', verbs };
}

/** A resource with its group, name and scope, as a rule needs it. */
interface RuleResource {
  readonly group: string;
  /** `resource` or `resource/subresource`. */
  readonly resource: string;
  /** Known for typed descriptors; `undefined` for a group/version/resource. */
  readonly namespaced: boolean | undefined;
}

/** One grant before rules are merged: where, on what, which verbs. */
interface Grant extends RuleResource {
  /** `''` for every namespace. */
  readonly namespace: string;
  readonly verbs: readonly string[];
  readonly resourceNames: readonly string[];
}

/** What one controller reads and declares, recorded by the builder. */
interface ControllerRbac {
  readonly name: string;
  /** The resources its informers list and watch. */
  readonly reads: readonly RbacResource[];
  /** What its reconciler does beyond that (`.rbac(...)`). */
  readonly declared: readonly RbacPermission[];
  /** Whether it was given an event recorder (a manager's). */
  readonly recordsEvents: boolean;
}

/** What a manager does itself, recorded by its constructor. */
interface ManagerRbac {
  readonly namespace: string;
  readonly leaderElection?: { readonly namespace: string; readonly name: string } | undefined;
  /** The resources cached from the start (`cache.byObject`), and the namespace of each. */
  readonly cached: readonly { resource: RbacResource; namespace: string | undefined }[];
}

interface RecordedRbac {
  manager?: ManagerRbac;
  readonly controllers: ControllerRbac[];
}

// Keyed by the manager (or the deps a controller was built on), so that nothing of it is
// public state of the Manager class.
const recorded = new WeakMap<object, RecordedRbac>();

function recordOf(owner: object): RecordedRbac {
  let entry = recorded.get(owner);
  if (entry === undefined) {
    entry = { controllers: [] };
    recorded.set(owner, entry);
  }
  return entry;
}

/** @internal Called by the builder's `complete()`. */
export function recordControllerRbac(owner: object, controller: ControllerRbac): void {
  recordOf(owner).controllers.push(controller);
}

/** @internal Called by the Manager's constructor. */
export function recordManagerRbac(owner: object, manager: ManagerRbac): void {
  recordOf(owner).manager = manager;
}

/**
 * Checks a permission given to `.rbac(...)` or {@link rbacManifests}.
 *
 * @throws {TypeError} naming `where` and what is wrong.
 */
export function checkPermission(permission: RbacPermission, where: string): void {
  const p = permission as Partial<RbacPermission> | undefined;
  if (typeof p !== 'object' || p === null) {
    throw new TypeError(
      `${where}: a permission is { resource, verbs, subresource?, resourceNames?, namespace? }, got ${JSON.stringify(permission)}`,
    );
  }
  ruleResourceOf(p.resource, undefined, where);
  if (!Array.isArray(p.verbs) || p.verbs.length === 0) {
    throw new TypeError(`${where}: verbs must be a non-empty list, got ${JSON.stringify(p.verbs)}`);
  }
  for (const verb of p.verbs) {
    if (typeof verb !== 'string' || !/^([a-z]+|\*)$/.test(verb)) {
      throw new TypeError(
        `${where}: ${JSON.stringify(verb)} is not a verb (get, list, watch, create, update, patch, delete, deletecollection, ...)`,
      );
    }
  }
  if (p.subresource !== undefined && !/^[a-z][a-z0-9-]*$/.test(p.subresource)) {
    throw new TypeError(`${where}: subresource ${JSON.stringify(p.subresource)} is not one`);
  }
  if (p.resourceNames !== undefined) {
    const unnameable = p.verbs.filter((v) => namelessVerbs.has(v));
    if (unnameable.length > 0) {
      throw new TypeError(
        `${where}: resourceNames cannot limit ${unnameable.join(', ')} (those requests name no object), so the rule would never match them`,
      );
    }
  }
  if (p.namespace !== undefined && typeof p.namespace !== 'string') {
    throw new TypeError(`${where}: namespace must be a string ('' for every namespace)`);
  }
}

// Requests of these verbs carry no object name, so `resourceNames` never matches them.
const namelessVerbs = new Set(['create', 'list', 'watch', 'deletecollection']);

function ruleResourceOf(
  resource: unknown,
  subresource: string | undefined,
  where: string,
): RuleResource {
  const withSub = (name: string): string => (subresource ? `${name}/${subresource}` : name);
  if (typeof resource === 'string') {
    try {
      const gvr = parseGroupVersionResource(resource);
      return { group: gvr.group, resource: withSub(gvr.resource), namespaced: undefined };
    } catch (err) {
      throw new TypeError(
        `${where}: ${JSON.stringify(resource)} is not a group/version/resource: ${(err as Error).message}`,
      );
    }
  }
  const r = resource as Partial<ResourceDescriptor> | undefined;
  if (typeof r?.group !== 'string' || typeof r.resource !== 'string' || r.resource === '') {
    throw new TypeError(
      `${where}: the resource must be a resource descriptor, a group/version/resource or { group, resource }, got ${JSON.stringify(resource)}`,
    );
  }
  return {
    group: r.group,
    resource: withSub(r.resource),
    namespaced: typeof r.namespaced === 'boolean' ? r.namespaced : undefined,
  };
}

/** The rules of one ClusterRole and of one Role per namespace. */
export interface RbacRules {
  /** The rules that hold in every namespace, and those of cluster-scoped resources. */
  readonly clusterRules: readonly rbacv1.PolicyRule[];
  /** The rules of each namespace the manager works in alone, by namespace (sorted). */
  readonly namespaceRules: ReadonlyMap<string, readonly rbacv1.PolicyRule[]>;
}

/** Options of {@link rbacRules}. */
export interface RbacRulesOptions {
  /** Permissions of the manager's other runnables, which no builder declared. */
  permissions?: readonly RbacPermission[] | undefined;
}

const readVerbs = ['get', 'list', 'watch'];

/**
 * The least-privilege RBAC rules of everything built on `mgr` (kubebuilder's `controller-gen
 * rbac`, from the code instead of markers):
 *
 * - each controller's `for`, `owns` and `watches` resources (typed, metadata-only or known by
 *   group/version/resource): get, list, watch; also the manager's `cache.byObject` resources;
 * - Events, which every controller's `ctx.recorder` writes through `@kubets/record`: create
 *   and patch on core `events`;
 * - with leader election, the Lease: create, and get and update of that one Lease
 *   (`@kubets/leaderelection`), in the Lease's namespace;
 * - what each controller declared with `.rbac(...)` (its reconciler's own writes: owned
 *   objects, the status, finalizers), and `options.permissions`.
 *
 * A manager limited to a namespace (`namespace`, or a `cache.byObject` namespace) gets a Role
 * there instead of a ClusterRole; cluster-scoped resources are always in the ClusterRole.
 * Rules are merged (one rule per group and verb set, resources sorted) and sorted, so the
 * output is the same for the same controllers.
 *
 * @throws {TypeError} for something that is not a Manager with controllers, or a bad permission.
 */
export function rbacRules(mgr: object, options: RbacRulesOptions = {}): RbacRules {
  const entry = typeof mgr === 'object' && mgr !== null ? recorded.get(mgr) : undefined;
  if (entry === undefined || entry.controllers.length === 0) {
    throw new TypeError(
      'rbacRules(mgr): no controller was built on this manager: build them (controller(mgr)...complete(...)) before asking for their rules',
    );
  }
  const managerNamespace = entry.manager?.namespace ?? '';
  const grants: Grant[] = [];
  const grant = (
    resource: RbacResource,
    verbs: readonly string[],
    where: string,
    extra: { subresource?: string | undefined; namespace?: string | undefined } = {},
    resourceNames: readonly string[] = [],
  ): void => {
    const r = ruleResourceOf(resource, extra.subresource, where);
    const namespace = r.namespaced === false ? '' : (extra.namespace ?? managerNamespace);
    grants.push({ ...r, namespace, verbs, resourceNames });
  };
  const cachedNamespace = new Map<string, string | undefined>();
  for (const c of entry.manager?.cached ?? []) {
    const r = ruleResourceOf(c.resource, undefined, 'cache.byObject');
    cachedNamespace.set(`${r.group}/${r.resource}`, c.namespace);
    grant(c.resource, readVerbs, 'cache.byObject', { namespace: c.namespace || undefined });
  }
  let events = false;
  for (const c of entry.controllers) {
    for (const read of c.reads) {
      const r = ruleResourceOf(read, undefined, `controller ${c.name}`);
      const namespace = cachedNamespace.get(`${r.group}/${r.resource}`) || undefined;
      grant(read, readVerbs, `controller ${c.name}`, { namespace });
    }
    for (const [i, p] of c.declared.entries()) {
      grant(p.resource, p.verbs, `controller ${c.name}: rbac[${i}]`, p, p.resourceNames);
    }
    events ||= c.recordsEvents;
  }
  for (const [i, p] of (options.permissions ?? []).entries()) {
    checkPermission(p, `rbacRules: permissions[${i}]`);
    grant(p.resource, p.verbs, `permissions[${i}]`, p, p.resourceNames);
  }
  if (events) grant({ group: '', resource: 'events' }, ['create', 'patch'], 'events');
  const lease = entry.manager?.leaderElection;
  if (lease) {
    const leases = { group: 'coordination.k8s.io', resource: 'leases' };
    grant(leases, ['create'], 'leader election', { namespace: lease.namespace });
    grant(leases, ['get', 'update'], 'leader election', { namespace: lease.namespace }, [
      lease.name,
    ]);
  }
  const byNamespace = new Map<string, Grant[]>();
  for (const g of grants) {
    const list = byNamespace.get(g.namespace) ?? [];
    list.push(g);
    byNamespace.set(g.namespace, list);
  }
  const namespaceRules = new Map<string, rbacv1.PolicyRule[]>();
  for (const namespace of [...byNamespace.keys()].filter((n) => n !== '').sort()) {
    namespaceRules.set(namespace, mergeRules(byNamespace.get(namespace) ?? []));
  }
  return { clusterRules: mergeRules(byNamespace.get('') ?? []), namespaceRules };
}

// One rule per group, verb set and resource names, its resources sorted; rules sorted by
// group, then resources. A verb granted on a resource everywhere is not repeated for it
// with resource names.
function mergeRules(grants: readonly Grant[]): rbacv1.PolicyRule[] {
  const verbsOf = new Map<string, { grant: Grant; verbs: Set<string> }>();
  for (const g of grants) {
    const key = JSON.stringify([g.group, g.resource, [...g.resourceNames].sort()]);
    const seen = verbsOf.get(key) ?? { grant: g, verbs: new Set<string>() };
    for (const v of g.verbs) seen.verbs.add(v);
    verbsOf.set(key, seen);
  }
  for (const { grant, verbs } of verbsOf.values()) {
    if (grant.resourceNames.length === 0) continue;
    const unnamed = verbsOf.get(JSON.stringify([grant.group, grant.resource, []]));
    for (const v of unnamed?.verbs ?? []) verbs.delete(v);
  }
  const rules = new Map<
    string,
    { group: string; resources: Set<string>; verbs: string[]; names: string[] }
  >();
  for (const { grant, verbs } of verbsOf.values()) {
    if (verbs.size === 0) continue;
    const sortedVerbs = [...verbs].sort();
    const names = [...grant.resourceNames].sort();
    const key = JSON.stringify([grant.group, sortedVerbs, names]);
    const rule = rules.get(key) ?? {
      group: grant.group,
      resources: new Set(),
      verbs: sortedVerbs,
      names,
    };
    rule.resources.add(grant.resource);
    rules.set(key, rule);
  }
  return [...rules.values()]
    .map((r) => ({ ...r, resources: [...r.resources].sort() }))
    .sort(
      (a, b) =>
        compare(a.group, b.group) ||
        compare(a.resources.join(','), b.resources.join(',')) ||
        compare(a.names.join(','), b.names.join(',')) ||
        compare(a.verbs.join(','), b.verbs.join(',')),
    )
    .map(
      (r): rbacv1.PolicyRule => ({
        apiGroups: [r.group],
        resources: r.resources,
        ...(r.names.length > 0 ? { resourceNames: r.names } : {}),
        verbs: r.verbs,
      }),
    );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Options of {@link rbacManifests}. */
export interface RbacManifestsOptions extends RbacRulesOptions {
  /** Name of the ServiceAccount, the roles and the bindings (e.g. the operator's name). */
  name: string;
  /** Namespace of the ServiceAccount (where the operator runs). */
  namespace: string;
  /** Labels on every object. */
  labels?: Readonly<Record<string, string>> | undefined;
}

/** An object {@link rbacManifests} makes. */
export type RbacObject =
  | corev1.ServiceAccount
  | rbacv1.ClusterRole
  | rbacv1.ClusterRoleBinding
  | rbacv1.Role
  | rbacv1.RoleBinding;

/**
 * The ServiceAccount the operator runs as and its least-privilege roles and bindings
 * (`rbac.authorization.k8s.io/v1`), from {@link rbacRules}: a ClusterRole and
 * ClusterRoleBinding named `name` when some rule holds cluster-wide, and a Role and
 * RoleBinding named `name` in each namespace with rules of its own. Plain objects in a fixed
 * order (ServiceAccount, ClusterRole, ClusterRoleBinding, then Role and RoleBinding per
 * namespace, sorted), ready to be written as YAML or created with a client.
 *
 * @throws {TypeError} for a name or namespace that is not a valid object name, and as
 *   {@link rbacRules}.
 */
export function rbacManifests(mgr: object, options: RbacManifestsOptions): RbacObject[] {
  const { name, namespace } = options ?? {};
  const nameProblems = typeof name === 'string' ? isDNS1123Subdomain(name) : ['must be a string'];
  if (nameProblems.length > 0) {
    throw new TypeError(
      `rbacManifests: name ${JSON.stringify(name)} is not a valid object name: ${nameProblems.join('; ')}`,
    );
  }
  const namespaceProblems =
    typeof namespace === 'string' ? isDNS1123Label(namespace) : ['must be a string'];
  if (namespaceProblems.length > 0) {
    throw new TypeError(
      `rbacManifests: namespace ${JSON.stringify(namespace)} is not a valid namespace name: ${namespaceProblems.join('; ')}`,
    );
  }
  const { clusterRules, namespaceRules } = rbacRules(mgr, options);
  const labels = options.labels ? { labels: { ...options.labels } } : {};
  const subjects: rbacv1.Subject[] = [{ kind: 'ServiceAccount', name, namespace }];
  const objects: RbacObject[] = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace, ...labels },
    } satisfies corev1.ServiceAccount,
  ];
  const rbacGroup = 'rbac.authorization.k8s.io';
  if (clusterRules.length > 0) {
    objects.push(
      {
        apiVersion: `${rbacGroup}/v1`,
        kind: 'ClusterRole',
        metadata: { name, ...labels },
        rules: [...clusterRules],
      },
      {
        apiVersion: `${rbacGroup}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name, ...labels },
        roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name },
        subjects,
      },
    );
  }
  for (const [ns, rules] of namespaceRules) {
    objects.push(
      {
        apiVersion: `${rbacGroup}/v1`,
        kind: 'Role',
        metadata: { name, namespace: ns, ...labels },
        rules: [...rules],
      },
      {
        apiVersion: `${rbacGroup}/v1`,
        kind: 'RoleBinding',
        metadata: { name, namespace: ns, ...labels },
        roleRef: { apiGroup: rbacGroup, kind: 'Role', name },
        subjects,
      },
    );
  }
  return objects;
}
