import {
  type GroupKind,
  type GroupVersionKind,
  type GroupVersionResource,
  parseGroupVersion,
  parseResourceArg,
} from '@kubets/apimachinery';
import {
  type DiscoveryCallOptions,
  type DiscoveryInterface,
  isCachedDiscovery,
} from './discovery.js';
import {
  isDiscoveryPartialError,
  isNoMatchError,
  NoKindMatchError,
  NoResourceMatchError,
  type PartialResource,
} from './errors.js';
import type { APIGroup, APIResourceList, GroupsAndResources } from './types.js';

/** Whether objects of a resource live in a namespace (`namespace`) or in the cluster (`root`). */
export type RESTScope = 'namespace' | 'root';

/** How to reach objects of a kind: its resource, full kind and scope (client-go's `meta.RESTMapping`). */
export interface RESTMapping {
  /** The resource to address, with the version that serves the kind. */
  resource: GroupVersionResource;
  /** The kind the mapping is for, with the version chosen. */
  groupVersionKind: GroupVersionKind;
  /** Whether the resource is namespaced or cluster-scoped. */
  scope: RESTScope;
}

/** A lookup key: a partial group/version/resource, or a kubectl-style string (`deploy`, `deployments.v1.apps`). */
export type ResourceQuery = PartialResource | string;

interface Entry {
  mapping: RESTMapping;
  plural: string;
  singular: string;
  kindLower: string;
  shortNames: readonly string[];
}

function isAny(value: string | undefined): boolean {
  return value === undefined || value === '' || value === '*';
}

function matchesGroupVersion(entry: Entry, query: PartialResource): boolean {
  const { group, version } = entry.mapping.resource;
  return (
    (isAny(query.group) || query.group === group) &&
    (isAny(query.version) || query.version === version)
  );
}

function toPartial(query: ResourceQuery): PartialResource[] {
  if (typeof query !== 'string') return [query];
  // kubectl's reading: resource.version.group first, then resource.group.
  const { gvr, gr } = parseResourceArg(query);
  return gvr ? [gvr, gr] : [gr];
}

/** The groups in priority order: versions sorted preferred first, then in server order. */
function orderedVersions(group: APIGroup): string[] {
  const preferred = group.preferredVersion?.version;
  const versions = group.versions.map((v) => v.version);
  if (preferred && versions.includes(preferred)) {
    return [preferred, ...versions.filter((v) => v !== preferred)];
  }
  return versions;
}

/**
 * A RESTMapper over one discovery snapshot (client-go's `restmapper.NewDiscoveryRESTMapper`
 * plus kubectl's short-name expansion). Lookups are case-insensitive; when several
 * group-versions match, the earlier group wins (core first, then the server's order) and,
 * within a group, the preferred version.
 */
export class StaticRESTMapper {
  readonly #entries: Entry[] = [];

  constructor(snapshot: GroupsAndResources) {
    const lists = new Map(snapshot.resources.map((list) => [list.groupVersion, list]));
    for (const group of snapshot.groups) {
      for (const version of orderedVersions(group)) {
        const gvString = group.versions.find((v) => v.version === version)?.groupVersion;
        const list = gvString ? lists.get(gvString) : undefined;
        if (!list) continue;
        this.#addList(group.name, version, list);
      }
    }
  }

  #addList(group: string, version: string, list: APIResourceList): void {
    for (const resource of list.resources ?? []) {
      if (resource.name.includes('/')) continue; // subresources get no mappings
      const kindLower = resource.kind.toLowerCase();
      this.#entries.push({
        mapping: {
          resource: { group, version, resource: resource.name },
          groupVersionKind: { group, version, kind: resource.kind },
          scope: resource.namespaced ? 'namespace' : 'root',
        },
        plural: resource.name.toLowerCase(),
        // Servers before 1.27 leave singularName empty for built-ins: guess it from the kind.
        singular: (resource.singularName || kindLower).toLowerCase(),
        kindLower,
        shortNames: (resource.shortNames ?? []).map((s) => s.toLowerCase()),
      });
    }
  }

  /** Every mapping, in priority order. */
  mappings(): RESTMapping[] {
    return this.#entries.map((e) => structuredClone(e.mapping));
  }

  #matching(query: ResourceQuery): Entry[] {
    for (const partial of toPartial(query)) {
      const wanted = partial.resource.toLowerCase();
      const candidates = this.#entries.filter((e) => matchesGroupVersion(e, partial));
      // Full names beat short names, which beat kind names (kubectl falls back in this order).
      for (const test of [
        (e: Entry) => e.plural === wanted || e.singular === wanted,
        (e: Entry) => e.shortNames.includes(wanted),
        (e: Entry) => e.kindLower === wanted,
      ]) {
        const found = candidates.filter(test);
        if (found.length > 0) return found;
      }
    }
    return [];
  }

  #noResource(query: ResourceQuery): NoResourceMatchError {
    if (typeof query === 'string') {
      return new NoResourceMatchError(
        { resource: query },
        {
          message: `no matches for resource "${query}": the server doesn't have a resource type "${query}"`,
        },
      );
    }
    return new NoResourceMatchError(query);
  }

  /** What `pick` takes from each mapping matching, in priority order, without repeats. */
  #allMatching<T extends object>(query: ResourceQuery, pick: (mapping: RESTMapping) => T): T[] {
    const found = this.#matching(query);
    if (found.length === 0) throw this.#noResource(query);
    return dedupe(found.map((e) => pick(e.mapping)));
  }

  /** All resources matching, in priority order. @throws {NoResourceMatchError} when none does. */
  resourcesFor(query: ResourceQuery): GroupVersionResource[] {
    return this.#allMatching(query, (m) => m.resource);
  }

  /** The best resource for a (partial) resource, plural, singular or short name. */
  resourceFor(query: ResourceQuery): GroupVersionResource {
    return this.resourcesFor(query)[0] as GroupVersionResource;
  }

  /** All kinds matching, in priority order. @throws {NoResourceMatchError} when none does. */
  kindsFor(query: ResourceQuery): GroupVersionKind[] {
    return this.#allMatching(query, (m) => m.groupVersionKind);
  }

  /** The kind of the best matching resource. */
  kindFor(query: ResourceQuery): GroupVersionKind {
    return this.kindsFor(query)[0] as GroupVersionKind;
  }

  /**
   * The mappings of a kind in a group (exact group; `''` is the core group; the kind is
   * compared case-insensitively), in the given versions' order, or preferred version first.
   *
   * @throws {NoKindMatchError} naming the kind, group and versions searched.
   */
  restMappings(groupKind: GroupKind, ...versions: string[]): RESTMapping[] {
    const wantedVersions = versions.filter((v) => v !== '');
    const kind = groupKind.kind.toLowerCase();
    const inGroup = this.#entries.filter(
      (e) => e.mapping.groupVersionKind.group === groupKind.group && e.kindLower === kind,
    );
    const found =
      wantedVersions.length === 0
        ? inGroup
        : wantedVersions.flatMap((v) => inGroup.filter((e) => e.mapping.resource.version === v));
    if (found.length === 0) throw new NoKindMatchError(groupKind, wantedVersions);
    const seen = new Set<string>();
    const result: RESTMapping[] = [];
    for (const entry of found) {
      const key = entry.mapping.resource.version;
      if (seen.has(key)) continue;
      seen.add(key);
      result.push(structuredClone(entry.mapping));
    }
    return result;
  }

  /** The preferred mapping of a kind (see {@link StaticRESTMapper.restMappings}). */
  restMapping(groupKind: GroupKind, ...versions: string[]): RESTMapping {
    return this.restMappings(groupKind, ...versions)[0] as RESTMapping;
  }

  /**
   * Resolves what a user would type after `kubectl get`: a resource (`deployments`,
   * `deployment`, `deploy`, `deployments.apps`, `deployments.v1.apps`), or a kind
   * (`Deployment`, `Deployment.apps`, `Deployment.v1.apps`).
   *
   * @throws {NoResourceMatchError} when it is neither.
   */
  mappingFor(arg: string): RESTMapping {
    const found = this.#matching(arg);
    if (found.length > 0) return structuredClone((found[0] as Entry).mapping);
    for (const { groupKind, version } of kindArgReadings(arg)) {
      try {
        return version ? this.restMapping(groupKind, version) : this.restMapping(groupKind);
      } catch (err) {
        if (!isNoMatchError(err)) throw err;
      }
    }
    throw this.#noResource(arg);
  }
}

function dedupe<T extends object>(values: T[]): T[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = JSON.stringify(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// client-go's ParseKindArg: `Kind.version.group` (when it has two dots), then `Kind.group`.
function kindArgReadings(arg: string): { groupKind: GroupKind; version?: string }[] {
  const readings: { groupKind: GroupKind; version?: string }[] = [];
  const first = arg.indexOf('.');
  if (first === -1) return [{ groupKind: { group: '', kind: arg } }];
  const kind = arg.slice(0, first);
  const rest = arg.slice(first + 1);
  const second = rest.indexOf('.');
  if (second !== -1) {
    const version = rest.slice(0, second);
    if (version !== '')
      readings.push({ groupKind: { group: rest.slice(second + 1), kind }, version });
  }
  readings.push({ groupKind: { group: rest, kind } });
  return readings;
}

/** Options for {@link RESTMapper}. */
export interface RESTMapperOptions {
  /** Aborts the discovery calls the mapper makes. */
  signal?: AbortSignal | undefined;
}

/**
 * A RESTMapper that discovers lazily and re-discovers on a miss (client-go's
 * `DeferredDiscoveryRESTMapper` with kubectl's short names). The first lookup loads
 * discovery; a lookup that finds nothing invalidates the discovery cache (when the client
 * has one), loads again — exactly once, shared by concurrent misses — and retries before
 * failing with a {@link NoKindMatchError} or {@link NoResourceMatchError}. That way a CRD
 * created after the mapper loaded is still found.
 *
 * Give it a cached client ({@link MemCacheClient}, {@link DiskCachedDiscoveryClient}) so
 * repeated mappers do not repeat discovery. Group-versions that fail to discover are left
 * out; the rest stays usable.
 *
 * ```ts
 * const mapper = new RESTMapper(new MemCacheClient(new DiscoveryClient(config)));
 * const { resource, scope } = await mapper.restMapping({ group: 'apps', kind: 'Deployment' });
 * ```
 */
export class RESTMapper {
  /** The discovery client the mapper loads its data from. */
  readonly discovery: DiscoveryInterface;
  readonly #callOptions: DiscoveryCallOptions;
  #current: Promise<StaticRESTMapper> | undefined;
  /** How many times discovery was loaded (for diagnostics and tests). */
  loads = 0;

  constructor(discovery: DiscoveryInterface, options: RESTMapperOptions = {}) {
    this.discovery = discovery;
    this.#callOptions = options.signal ? { signal: options.signal } : {};
  }

  /** Forgets the loaded mappings and invalidates the discovery cache. */
  reset(): void {
    this.#current = undefined;
    if (isCachedDiscovery(this.discovery)) this.discovery.invalidate();
  }

  #load(): Promise<StaticRESTMapper> {
    if (this.#current) return this.#current;
    this.loads++;
    const loading = this.discovery.serverGroupsAndResources(this.#callOptions).then(
      (snapshot) => new StaticRESTMapper(snapshot),
      (err: unknown) => {
        if (isDiscoveryPartialError(err)) {
          return new StaticRESTMapper({ groups: err.groups, resources: err.resources });
        }
        throw err;
      },
    );
    this.#current = loading;
    loading.catch(() => {
      if (this.#current === loading) this.#current = undefined;
    });
    return loading;
  }

  async #withRediscovery<T>(lookup: (mapper: StaticRESTMapper) => T): Promise<T> {
    const used = this.#load();
    try {
      return lookup(await used);
    } catch (err) {
      if (!isNoMatchError(err)) throw err;
      // Only the first of several concurrent misses resets; the others share its reload.
      if (this.#current === used) this.reset();
      return lookup(await this.#load());
    }
  }

  /** The snapshot mapper currently in use (loading discovery if needed). */
  snapshot(): Promise<StaticRESTMapper> {
    return this.#load();
  }

  /** See {@link StaticRESTMapper.kindFor}. */
  kindFor(query: ResourceQuery): Promise<GroupVersionKind> {
    return this.#withRediscovery((m) => m.kindFor(query));
  }

  /** See {@link StaticRESTMapper.kindsFor}. */
  kindsFor(query: ResourceQuery): Promise<GroupVersionKind[]> {
    return this.#withRediscovery((m) => m.kindsFor(query));
  }

  /** See {@link StaticRESTMapper.resourceFor}. */
  resourceFor(query: ResourceQuery): Promise<GroupVersionResource> {
    return this.#withRediscovery((m) => m.resourceFor(query));
  }

  /** See {@link StaticRESTMapper.resourcesFor}. */
  resourcesFor(query: ResourceQuery): Promise<GroupVersionResource[]> {
    return this.#withRediscovery((m) => m.resourcesFor(query));
  }

  /** See {@link StaticRESTMapper.restMapping}. */
  restMapping(groupKind: GroupKind, ...versions: string[]): Promise<RESTMapping> {
    return this.#withRediscovery((m) => m.restMapping(groupKind, ...versions));
  }

  /** See {@link StaticRESTMapper.restMappings}. */
  restMappings(groupKind: GroupKind, ...versions: string[]): Promise<RESTMapping[]> {
    return this.#withRediscovery((m) => m.restMappings(groupKind, ...versions));
  }

  /** See {@link StaticRESTMapper.mappingFor}. */
  mappingFor(arg: string): Promise<RESTMapping> {
    return this.#withRediscovery((m) => m.mappingFor(arg));
  }

  /** The mapping for an object's `apiVersion` and `kind`. */
  mappingForObject(obj: { apiVersion: string; kind: string }): Promise<RESTMapping> {
    const { group, version } = parseGroupVersion(obj.apiVersion);
    return this.restMapping({ group, kind: obj.kind }, version);
  }
}
