/**
 * Wire types of the discovery endpoints (`meta/v1`), exactly as the API server sends them.
 */

/** A group and one of its versions, as listed in an {@link APIGroup}. */
export interface GroupVersionForDiscovery {
  /** `group/version`, or just the version for the core group (`v1`). */
  groupVersion: string;
  /** The version alone, e.g. `v1`. */
  version: string;
}

/** A client CIDR and the server address clients in it should use. */
export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** One API group with its versions and the version the server prefers. */
export interface APIGroup {
  kind?: 'APIGroup' | (string & {});
  apiVersion?: string;
  /** The group name; `''` for the core (legacy) group. */
  name: string;
  /** The versions served, in the server's order (most preferred first). */
  versions: GroupVersionForDiscovery[];
  preferredVersion?: GroupVersionForDiscovery;
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[] | null;
}

/** The answer of `GET /apis`: every named group. */
export interface APIGroupList {
  kind?: 'APIGroupList' | (string & {});
  apiVersion?: string;
  groups: APIGroup[];
}

/** The answer of `GET /api`: the versions of the core group. */
export interface APIVersions {
  kind?: 'APIVersions' | (string & {});
  apiVersion?: string;
  versions: string[];
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[] | null;
}

/** One resource (or subresource, whose name contains `/`) of a group/version. */
export interface APIResource {
  /** The plural, lower-case name used in URLs, e.g. `deployments` or `deployments/scale`. */
  name: string;
  /** The singular name; servers before 1.27 leave it empty for built-in resources. */
  singularName: string;
  namespaced: boolean;
  /** Set when the resource belongs to another group than the list (subresources such as `scale`). */
  group?: string;
  /** Set when the resource belongs to another version than the list. */
  version?: string;
  kind: string;
  /** The verbs the resource supports: `get`, `list`, `watch`, `create`, ... */
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** The answer of `GET /api/v1` or `GET /apis/<group>/<version>`. */
export interface APIResourceList {
  kind?: 'APIResourceList' | (string & {});
  apiVersion?: string;
  /** `group/version`, or just the version for the core group. */
  groupVersion: string;
  resources: APIResource[];
}

/** The answer of `GET /version`. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** Groups with their resource lists, as returned by `serverGroupsAndResources()`. */
export interface GroupsAndResources {
  /** Every group, the core group first. */
  groups: APIGroup[];
  /** One list per group-version that answered, in group order then version order. */
  resources: APIResourceList[];
}
