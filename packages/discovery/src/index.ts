export {
  type CachedDiscoveryInterface,
  DiscoveryBase,
  type DiscoveryCallOptions,
  DiscoveryClient,
  type DiscoveryClientOptions,
  type DiscoveryInterface,
  type DiscoveryOptions,
  defaultDiscoveryBurst,
  defaultDiscoveryConcurrency,
  defaultDiscoveryTimeoutMs,
  discoveryConfig,
  fetchGroupsAndResources,
  groupVersionsOf,
  isCachedDiscovery,
  mapWithConcurrency,
  namespacedOnly,
  preferredResources,
} from './discovery.js';
export {
  DiskCachedDiscoveryClient,
  type DiskCacheForConfigOptions,
  type DiskCacheOptions,
  defaultDiscoveryCacheParentDir,
  defaultDiskCacheTTLMs,
  discoveryCacheDirFor,
} from './diskcache.js';
export {
  DiscoveryPartialError,
  isDiscoveryPartialError,
  isNoMatchError,
  NoKindMatchError,
  NoResourceMatchError,
  type PartialResource,
} from './errors.js';
export { GroupVersionNotCachedError, MemCacheClient } from './memcache.js';
export {
  RESTMapper,
  type RESTMapperOptions,
  type RESTMapping,
  type RESTScope,
  type ResourceQuery,
  StaticRESTMapper,
} from './restmapper.js';
export type {
  APIGroup,
  APIGroupList,
  APIResource,
  APIResourceList,
  APIVersions,
  GroupsAndResources,
  GroupVersionForDiscovery,
  ServerAddressByClientCIDR,
  VersionInfo,
} from './types.js';
