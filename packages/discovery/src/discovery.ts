import { isForbidden, isNotFound, parseGroupVersion } from '@kubets/apimachinery';
import { type Config, copyConfig, RESTClient } from '@kubets/rest';
import { DiscoveryPartialError, isDiscoveryPartialError } from './errors.js';
import type {
  APIGroup,
  APIGroupList,
  APIResourceList,
  APIVersions,
  GroupsAndResources,
  VersionInfo,
} from './types.js';

/** Options every discovery call accepts. */
export interface DiscoveryCallOptions {
  /** Aborts the call (and every request it started). */
  signal?: AbortSignal | undefined;
}

/**
 * What discovers the API surface of a server (client-go's `DiscoveryInterface`).
 * Implemented by {@link DiscoveryClient} and the cached clients.
 */
export interface DiscoveryInterface {
  /** `GET /version`. */
  serverVersion(options?: DiscoveryCallOptions): Promise<VersionInfo>;
  /** The core group (from `/api`) first, then every group from `/apis`. */
  serverGroups(options?: DiscoveryCallOptions): Promise<APIGroupList>;
  /** The resources of one group-version, e.g. `v1` or `apps/v1`. */
  serverResourcesForGroupVersion(
    groupVersion: string,
    options?: DiscoveryCallOptions,
  ): Promise<APIResourceList>;
  /**
   * Every group and the resources of every group-version, fetched in parallel.
   *
   * @throws {DiscoveryPartialError} when some group-versions failed; it carries the rest.
   */
  serverGroupsAndResources(options?: DiscoveryCallOptions): Promise<GroupsAndResources>;
  /**
   * Each resource once, in its group's preferred version (or the first version serving it),
   * without subresources. What `kubectl api-resources` lists.
   *
   * @throws {DiscoveryPartialError} when some group-versions failed; it carries the rest.
   */
  serverPreferredResources(options?: DiscoveryCallOptions): Promise<APIResourceList[]>;
  /** {@link DiscoveryInterface.serverPreferredResources} restricted to namespaced resources. */
  serverPreferredNamespacedResources(options?: DiscoveryCallOptions): Promise<APIResourceList[]>;
}

/** A discovery client that caches (client-go's `CachedDiscoveryInterface`). */
export interface CachedDiscoveryInterface extends DiscoveryInterface {
  /**
   * True when everything this client answered so far came from the server during its
   * lifetime rather than from an older cache: a miss then is a real miss.
   */
  fresh(): boolean;
  /** Forgets the cached data; the next call asks the server again. */
  invalidate(): void;
}

/** True when `value` is a discovery client with a cache to invalidate. */
export function isCachedDiscovery(value: DiscoveryInterface): value is CachedDiscoveryInterface {
  const candidate = value as Partial<CachedDiscoveryInterface>;
  return typeof candidate.invalidate === 'function' && typeof candidate.fresh === 'function';
}

/** Tuning shared by the discovery clients. */
export interface DiscoveryOptions {
  /** How many group-versions are fetched at once; default 10. */
  concurrency?: number | undefined;
}

/** The default number of group-versions fetched in parallel. */
export const defaultDiscoveryConcurrency = 10;

/** Every `group/version` of the groups, in group order then version order. */
export function groupVersionsOf(groups: readonly APIGroup[]): string[] {
  const result: string[] = [];
  for (const group of groups) {
    for (const version of group.versions) result.push(version.groupVersion);
  }
  return result;
}

/** Runs `task` for each item with at most `limit` running at once; results keep item order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await task(items[index] as T, index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/**
 * Fetches the groups, then every group-version's resources with bounded concurrency.
 * Failed group-versions end up in a {@link DiscoveryPartialError} carrying the rest.
 */
export async function fetchGroupsAndResources(
  discovery: Pick<DiscoveryInterface, 'serverGroups' | 'serverResourcesForGroupVersion'>,
  concurrency: number,
  options: DiscoveryCallOptions = {},
): Promise<GroupsAndResources> {
  const { groups } = await discovery.serverGroups(options);
  const groupVersions = groupVersionsOf(groups);
  const settled = await mapWithConcurrency(groupVersions, concurrency, (gv) =>
    discovery.serverResourcesForGroupVersion(gv, options),
  );
  options.signal?.throwIfAborted();
  const resources: APIResourceList[] = [];
  const failed = new Map<string, Error>();
  settled.forEach((result, index) => {
    const gv = groupVersions[index] as string;
    if (result.status === 'fulfilled') resources.push(result.value);
    else failed.set(gv, toError(result.reason));
  });
  if (failed.size > 0) throw new DiscoveryPartialError(groups, resources, failed);
  return { groups, resources };
}

/**
 * Picks each resource once, in the preferred version of its group when that version
 * serves it, else the first version that does (client-go's `ServerPreferredResources`).
 * Subresources (names with `/`) are skipped. Lists come out in group order, then version
 * order; resources keep the server's order.
 */
export function preferredResources(
  groups: readonly APIGroup[],
  resources: readonly APIResourceList[],
): APIResourceList[] {
  const byGroupVersion = new Map(resources.map((list) => [list.groupVersion, list]));
  // group/resource → the chosen group-version
  const chosen = new Map<string, string>();
  for (const group of groups) {
    const preferred = group.preferredVersion?.version ?? group.versions[0]?.version;
    for (const version of group.versions) {
      const list = byGroupVersion.get(version.groupVersion);
      if (!list) continue;
      for (const resource of list.resources ?? []) {
        if (resource.name.includes('/')) continue;
        const key = `${group.name}\u0000${resource.name}`;
        if (chosen.has(key) && version.version !== preferred) continue;
        chosen.set(key, version.groupVersion);
      }
    }
  }
  const result: APIResourceList[] = [];
  const seen = new Set<string>();
  for (const group of groups) {
    for (const version of group.versions) {
      if (seen.has(version.groupVersion)) continue;
      seen.add(version.groupVersion);
      const list = byGroupVersion.get(version.groupVersion);
      if (!list) continue;
      const picked = (list.resources ?? []).filter(
        (resource) =>
          !resource.name.includes('/') &&
          chosen.get(`${group.name}\u0000${resource.name}`) === version.groupVersion,
      );
      if (picked.length > 0) {
        result.push({
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: list.groupVersion,
          resources: picked,
        });
      }
    }
  }
  return result;
}

/** Keeps only namespaced resources, dropping lists left empty. */
export function namespacedOnly(lists: readonly APIResourceList[]): APIResourceList[] {
  return lists
    .map((list) => ({ ...list, resources: list.resources.filter((r) => r.namespaced) }))
    .filter((list) => list.resources.length > 0);
}

/**
 * The derived discovery calls (groups-and-resources, preferred resources) built on
 * `serverGroups` and `serverResourcesForGroupVersion`, so every client — direct or
 * cached — answers them the same way.
 */
export abstract class DiscoveryBase implements DiscoveryInterface {
  /** How many group-versions are fetched at once. */
  readonly concurrency: number;

  protected constructor(options: DiscoveryOptions = {}) {
    this.concurrency = options.concurrency ?? defaultDiscoveryConcurrency;
  }

  abstract serverVersion(options?: DiscoveryCallOptions): Promise<VersionInfo>;
  abstract serverGroups(options?: DiscoveryCallOptions): Promise<APIGroupList>;
  abstract serverResourcesForGroupVersion(
    groupVersion: string,
    options?: DiscoveryCallOptions,
  ): Promise<APIResourceList>;

  serverGroupsAndResources(options?: DiscoveryCallOptions): Promise<GroupsAndResources> {
    return fetchGroupsAndResources(this, this.concurrency, options);
  }

  async serverPreferredResources(options?: DiscoveryCallOptions): Promise<APIResourceList[]> {
    try {
      const { groups, resources } = await this.serverGroupsAndResources(options);
      return preferredResources(groups, resources);
    } catch (err) {
      if (!isDiscoveryPartialError(err)) throw err;
      throw new DiscoveryPartialError(
        err.groups,
        preferredResources(err.groups, err.resources),
        err.failed,
      );
    }
  }

  async serverPreferredNamespacedResources(
    options?: DiscoveryCallOptions,
  ): Promise<APIResourceList[]> {
    try {
      return namespacedOnly(await this.serverPreferredResources(options));
    } catch (err) {
      if (!isDiscoveryPartialError(err)) throw err;
      throw new DiscoveryPartialError(err.groups, namespacedOnly(err.resources), err.failed);
    }
  }
}

/** Options for {@link DiscoveryClient}. */
export interface DiscoveryClientOptions extends DiscoveryOptions {}

/** client-go's discovery timeout: 32 seconds per request. */
export const defaultDiscoveryTimeoutMs = 32_000;
/** client-go raises the burst for discovery clients: discovery is bursty by nature. */
export const defaultDiscoveryBurst = 300;

function isRESTClient(value: Config | RESTClient): value is RESTClient {
  return typeof (value as RESTClient).get === 'function' && 'config' in value;
}

/**
 * The config a discovery client made from `config` uses: client-go's discovery defaults
 * (a 32 s timeout and a burst of 300) where the config does not say otherwise.
 */
export function discoveryConfig(config: Config): Config {
  return copyConfig(config, {
    timeoutMs: config.timeoutMs ?? defaultDiscoveryTimeoutMs,
    burst: config.rateLimiter || config.burst ? config.burst : defaultDiscoveryBurst,
  });
}

/**
 * Asks the API server which groups, versions and resources it serves (client-go's
 * `DiscoveryClient`):
 *
 * ```ts
 * const discovery = new DiscoveryClient(loadConfig());
 * const { resources } = await discovery.serverGroupsAndResources();
 * for (const list of resources) {
 *   const gv = parseGroupVersion(list.groupVersion);
 *   for (const r of list.resources) console.log(`name: ${r.name}, group: ${gv.group}, version ${gv.version}`);
 * }
 * ```
 *
 * Group-versions are fetched in parallel (at most {@link DiscoveryOptions.concurrency} at a
 * time). Wrap it in {@link MemCacheClient} or {@link DiskCachedDiscoveryClient} to cache.
 */
export class DiscoveryClient extends DiscoveryBase {
  /** The client requests go through (no group-version: paths are absolute). */
  readonly restClient: RESTClient;

  /**
   * @param source a {@link @kubets/rest!Config | Config} (client-go's discovery defaults
   *   apply: 32 s timeout, burst 300, unless set) or an existing `RESTClient` whose server,
   *   credentials and rate limiter are reused as they are.
   */
  constructor(source: Config | RESTClient, options: DiscoveryClientOptions = {}) {
    super(options);
    this.restClient = isRESTClient(source)
      ? source
      : new RESTClient(discoveryConfig(source), { apiPath: '/api' });
  }

  #getAbs<T>(options: DiscoveryCallOptions | undefined, ...segments: string[]): Promise<T> {
    const request = this.restClient.get().absPath(...segments);
    if (options?.signal) request.signal(options.signal);
    return request.do<T>();
  }

  async serverVersion(options?: DiscoveryCallOptions): Promise<VersionInfo> {
    return this.#getAbs<VersionInfo>(options, '/version');
  }

  async serverGroups(options?: DiscoveryCallOptions): Promise<APIGroupList> {
    const [legacy, named] = await Promise.all([
      this.#getAbs<APIVersions>(options, '/api').catch((err: unknown) => {
        // Servers without the legacy API (or hiding it) answer 404/403: no core group.
        if (isNotFound(err) || isForbidden(err)) return { versions: [] } as APIVersions;
        throw err;
      }),
      this.#getAbs<APIGroupList>(options, '/apis').catch((err: unknown) => {
        if (isNotFound(err) || isForbidden(err)) return { groups: [] } as APIGroupList;
        throw err;
      }),
    ]);
    const groups: APIGroup[] = [];
    const versions = legacy.versions ?? [];
    if (versions.length > 0) {
      const core = versions.map((version) => ({ groupVersion: version, version }));
      groups.push({ name: '', versions: core, preferredVersion: core[0] });
    }
    groups.push(...(named.groups ?? []));
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }

  async serverResourcesForGroupVersion(
    groupVersion: string,
    options?: DiscoveryCallOptions,
  ): Promise<APIResourceList> {
    const gv = parseGroupVersion(groupVersion);
    try {
      const list =
        gv.group === ''
          ? await this.#getAbs<APIResourceList>(options, '/api', gv.version)
          : await this.#getAbs<APIResourceList>(options, '/apis', gv.group, gv.version);
      return {
        ...list,
        groupVersion: list.groupVersion || groupVersion,
        resources: list.resources ?? [],
      };
    } catch (err) {
      // As client-go: a server without (or hiding) the legacy v1 API has no core resources.
      if (groupVersion === 'v1' && (isNotFound(err) || isForbidden(err))) {
        return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: [] };
      }
      throw err;
    }
  }
}
