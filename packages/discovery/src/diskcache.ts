import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Config } from '@kubets/rest';
import {
  type CachedDiscoveryInterface,
  DiscoveryBase,
  type DiscoveryCallOptions,
  DiscoveryClient,
  type DiscoveryInterface,
  type DiscoveryOptions,
  isCachedDiscovery,
} from './discovery.js';
import type { APIGroupList, APIResourceList, VersionInfo } from './types.js';

/** client-go's default time-to-live for cached discovery files: 10 minutes. */
export const defaultDiskCacheTTLMs = 10 * 60 * 1000;

/** Options for {@link DiskCachedDiscoveryClient}. */
export interface DiskCacheOptions extends DiscoveryOptions {
  /** How long a cache file is trusted after it was written (its mtime); default 10 minutes. */
  ttlMs?: number | undefined;
  /** The wall clock, in milliseconds since the epoch, compared with file mtimes; `Date.now` by default. */
  now?: (() => number) | undefined;
}

/** Options for {@link DiskCachedDiscoveryClient.forConfig}. */
export interface DiskCacheForConfigOptions extends DiskCacheOptions {
  /**
   * The parent directory; the server's files go in a subdirectory named after its host and
   * port. Default `~/.kube/cache/discovery`, as kubectl.
   */
  cacheDir?: string | undefined;
}

/** `~/.kube/cache/discovery`, where kubectl keeps its discovery cache. */
export function defaultDiscoveryCacheParentDir(): string {
  return join(homedir(), '.kube', 'cache', 'discovery');
}

/**
 * The cache directory for a server, as kubectl computes it: the host without its scheme,
 * `:` replaced by `_`, and any other character outside `[\w/.]` replaced by `_`, e.g.
 * `https://127.0.0.1:6443` → `<parent>/127.0.0.1_6443`. A `user:password@` in the URL is
 * left out, so the password never becomes part of a path on disk (or in a printed client).
 */
export function discoveryCacheDirFor(
  host: string,
  parentDir = defaultDiscoveryCacheParentDir(),
): string {
  const schemeless = host
    .replace(/^https?:\/\//i, '')
    .replace(/^[^/@]*@/, '')
    .replace(/:/g, '_');
  const safe = schemeless.replace(/[^\w/.]/g, '_').replace(/\.\.+/g, '_');
  return join(parentDir, safe);
}

function segmentsOf(groupVersion: string): string[] {
  const segments = groupVersion.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || /[^\w.-]/.test(segment)) {
      throw new TypeError(`group-version "${groupVersion}" cannot be used as a cache path`);
    }
  }
  return segments;
}

/**
 * Caches discovery results as files (client-go's disk `CachedDiscoveryClient`):
 * `<cacheDir>/servergroups.json` and `<cacheDir>/<group>/<version>/serverresources.json`
 * (`<cacheDir>/v1/serverresources.json` for the core group). A file younger than the TTL
 * (by its mtime) is used instead of asking the server.
 *
 * Several processes may share the directory: files are written to a temporary name and
 * renamed into place, so a reader sees either the old or the new file, never half of one.
 *
 * ```ts
 * const discovery = DiskCachedDiscoveryClient.forConfig(loadConfig());
 * const lists = await discovery.serverPreferredResources(); // from disk when fresh enough
 * ```
 */
export class DiskCachedDiscoveryClient extends DiscoveryBase implements CachedDiscoveryInterface {
  /** The client that asks the server when the cache cannot answer. */
  readonly delegate: DiscoveryInterface;
  /** The directory holding this server's files. */
  readonly cacheDir: string;
  /** How long a cache file is trusted after it was written, in milliseconds. */
  readonly ttlMs: number;
  readonly #now: () => number;
  /** Files this client wrote since it was created or invalidated. */
  readonly #ourFiles = new Set<string>();
  #invalidated = false;
  #freshAnswers = true;

  /**
   * @param delegate asks the server (usually a {@link DiscoveryClient}).
   * @param cacheDir this server's directory, e.g. from {@link discoveryCacheDirFor}.
   */
  constructor(delegate: DiscoveryInterface, cacheDir: string, options: DiskCacheOptions = {}) {
    super(options);
    this.delegate = delegate;
    this.cacheDir = cacheDir;
    this.ttlMs = options.ttlMs ?? defaultDiskCacheTTLMs;
    this.#now = options.now ?? Date.now;
  }

  /**
   * A disk-cached client for a server, with its files under
   * `<cacheDir>/<host_port>` (`~/.kube/cache/discovery/<host_port>` by default).
   */
  static forConfig(
    config: Config,
    options: DiskCacheForConfigOptions = {},
  ): DiskCachedDiscoveryClient {
    const delegate = new DiscoveryClient(config, options);
    return new DiskCachedDiscoveryClient(
      delegate,
      discoveryCacheDirFor(config.host, options.cacheDir),
      options,
    );
  }

  /**
   * True when every answer so far came from the server (not from files written before this
   * client started or was invalidated).
   */
  fresh(): boolean {
    return this.#freshAnswers;
  }

  /**
   * Stops trusting files written before this call: the next calls ask the server and
   * rewrite them (files written after it are used as usual).
   */
  invalidate(): void {
    this.#invalidated = true;
    this.#ourFiles.clear();
    this.#freshAnswers = true;
    if (isCachedDiscovery(this.delegate)) this.delegate.invalidate();
  }

  /** Deletes this server's cache directory. */
  async clear(): Promise<void> {
    await rm(this.cacheDir, { recursive: true, force: true });
    this.#ourFiles.clear();
  }

  /** The file holding one group-version's resources. */
  resourcesFile(groupVersion: string): string {
    return join(this.cacheDir, ...segmentsOf(groupVersion), 'serverresources.json');
  }

  /** The file holding the group list. */
  groupsFile(): string {
    return join(this.cacheDir, 'servergroups.json');
  }

  serverVersion(options?: DiscoveryCallOptions): Promise<VersionInfo> {
    return this.delegate.serverVersion(options);
  }

  async serverGroups(options?: DiscoveryCallOptions): Promise<APIGroupList> {
    const file = this.groupsFile();
    const cached = await this.#readCached<APIGroupList>(file, (v) => Array.isArray(v.groups));
    if (cached) return cached;
    const groups = await this.delegate.serverGroups(options);
    await this.#write(file, groups);
    return groups;
  }

  async serverResourcesForGroupVersion(
    groupVersion: string,
    options?: DiscoveryCallOptions,
  ): Promise<APIResourceList> {
    const file = this.resourcesFile(groupVersion);
    const cached = await this.#readCached<APIResourceList>(file, (v) => Array.isArray(v.resources));
    if (cached) return cached;
    const list = await this.delegate.serverResourcesForGroupVersion(groupVersion, options);
    await this.#write(file, list);
    return list;
  }

  async #readCached<T extends object>(
    file: string,
    valid: (value: Partial<Record<keyof T, unknown>>) => boolean,
  ): Promise<T | undefined> {
    const ours = this.#ourFiles.has(file);
    if (this.#invalidated && !ours) return undefined;
    let text: string;
    try {
      const info = await stat(file);
      if (this.#now() - info.mtimeMs > this.ttlMs) return undefined;
      text = await readFile(file, 'utf8');
    } catch {
      return undefined;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined; // a damaged file is simply refetched and replaced
    }
    if (
      typeof value !== 'object' ||
      value === null ||
      !valid(value as Partial<Record<keyof T, unknown>>)
    ) {
      return undefined;
    }
    if (!ours) this.#freshAnswers = false;
    return value as T;
  }

  // A cache that cannot be written (read-only home, full disk) only costs speed, as in
  // client-go: the answer is still returned.
  async #write(file: string, value: object): Promise<void> {
    const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(dirname(file), { recursive: true, mode: 0o750 });
      await writeFile(temp, JSON.stringify(value), { mode: 0o660 });
      await rename(temp, file);
      this.#ourFiles.add(file);
    } catch {
      await rm(temp, { force: true }).catch(() => undefined);
    }
  }
}
