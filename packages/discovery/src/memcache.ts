import {
  type CachedDiscoveryInterface,
  DiscoveryBase,
  type DiscoveryCallOptions,
  type DiscoveryInterface,
  type DiscoveryOptions,
  groupVersionsOf,
  mapWithConcurrency,
} from './discovery.js';
import type { APIGroupList, APIResourceList, VersionInfo } from './types.js';

// `retry`: the error was already reported once, so the next ask fetches again.
type CacheEntry = { list: APIResourceList } | { error: Error; retry: boolean };

interface Snapshot {
  groups: APIGroupList;
  resources: Map<string, CacheEntry>;
}

/**
 * The error a {@link MemCacheClient} reports for a group-version the server did not list.
 */
export class GroupVersionNotCachedError extends Error {
  /** The group-version that was asked for, e.g. `apps/v1`. */
  readonly groupVersion: string;
  constructor(groupVersion: string) {
    super(
      `group-version "${groupVersion}" is not served by the server (not in the discovery cache)`,
    );
    this.name = 'GroupVersionNotCachedError';
    this.groupVersion = groupVersion;
  }
}

/**
 * Keeps discovery results in memory (client-go's `memory.NewMemCacheClient`). The first
 * call fetches the groups and every group-version's resources at once; later calls are
 * answered from memory until {@link MemCacheClient.invalidate}. A group-version that failed
 * is asked again the next time it is needed. Answers are copies: changing them does not
 * change the cache.
 */
export class MemCacheClient extends DiscoveryBase implements CachedDiscoveryInterface {
  /** The client that does the actual fetching. */
  readonly delegate: DiscoveryInterface;
  #snapshot: Promise<Snapshot> | undefined;
  #generation = 0;

  constructor(delegate: DiscoveryInterface, options: DiscoveryOptions = {}) {
    super(options);
    this.delegate = delegate;
  }

  /** True once the cache holds a complete answer fetched by this client. */
  fresh(): boolean {
    return this.#snapshot !== undefined;
  }

  /** Drops everything; the next call fetches again. */
  invalidate(): void {
    this.#generation++;
    this.#snapshot = undefined;
  }

  #load(options?: DiscoveryCallOptions): Promise<Snapshot> {
    if (this.#snapshot) return this.#snapshot;
    const generation = this.#generation;
    const loading = (async (): Promise<Snapshot> => {
      const groups = await this.delegate.serverGroups(options);
      const groupVersions = groupVersionsOf(groups.groups);
      const settled = await mapWithConcurrency(groupVersions, this.concurrency, (gv) =>
        this.delegate.serverResourcesForGroupVersion(gv, options),
      );
      const resources = new Map<string, CacheEntry>();
      settled.forEach((result, index) => {
        const gv = groupVersions[index] as string;
        resources.set(
          gv,
          result.status === 'fulfilled'
            ? { list: result.value }
            : {
                error:
                  result.reason instanceof Error ? result.reason : new Error(String(result.reason)),
                retry: false,
              },
        );
      });
      return { groups, resources };
    })();
    this.#snapshot = loading;
    // A failed load (e.g. /apis unreachable) is not cached.
    loading.catch(() => {
      if (this.#snapshot === loading && this.#generation === generation) this.#snapshot = undefined;
    });
    return loading;
  }

  serverVersion(options?: DiscoveryCallOptions): Promise<VersionInfo> {
    return this.delegate.serverVersion(options);
  }

  async serverGroups(options?: DiscoveryCallOptions): Promise<APIGroupList> {
    const snapshot = await this.#load(options);
    return structuredClone(snapshot.groups);
  }

  async serverResourcesForGroupVersion(
    groupVersion: string,
    options?: DiscoveryCallOptions,
  ): Promise<APIResourceList> {
    const snapshot = await this.#load(options);
    const entry = snapshot.resources.get(groupVersion);
    if (!entry) throw new GroupVersionNotCachedError(groupVersion);
    if ('list' in entry) return structuredClone(entry.list);
    if (!entry.retry) {
      // Report the failure of the load once; ask the server again the next time.
      entry.retry = true;
      throw entry.error;
    }
    const list = await this.delegate.serverResourcesForGroupVersion(groupVersion, options);
    snapshot.resources.set(groupVersion, { list });
    return structuredClone(list);
  }
}
