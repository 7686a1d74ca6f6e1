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
  /** The client network (CIDR) this address applies to. */
  clientCIDR: string;
  /** The address (`host:port`) clients in that network should use. */
  serverAddress: string;
}

/** One API group with its versions and the version the server prefers. */
export interface APIGroup {
  /** Always `APIGroup`. */
  kind?: 'APIGroup' | (string & {});
  /** Always `v1`. */
  apiVersion?: string;
  /** The group name; `''` for the core (legacy) group. */
  name: string;
  /** The versions served, in the server's order (most preferred first). */
  versions: GroupVersionForDiscovery[];
  /** The version clients should use when they have no preference. */
  preferredVersion?: GroupVersionForDiscovery;
  /** Alternative server addresses for specific client networks; rarely set. */
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[] | null;
}

/** The answer of `GET /apis`: every named group. */
export interface APIGroupList {
  /** Always `APIGroupList`. */
  kind?: 'APIGroupList' | (string & {});
  /** Always `v1`. */
  apiVersion?: string;
  /** Every API group the server serves (the core group is not among them). */
  groups: APIGroup[];
}

/** The answer of `GET /api`: the versions of the core group. */
export interface APIVersions {
  /** Always `APIVersions`. */
  kind?: 'APIVersions' | (string & {});
  /** Always `v1`. */
  apiVersion?: string;
  /** The versions of the core (legacy) group, i.e. `['v1']`. */
  versions: string[];
  /** Alternative server addresses for specific client networks; rarely set. */
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[] | null;
}

/** One resource (or subresource, whose name contains `/`) of a group/version. */
export interface APIResource {
  /** The plural, lower-case name used in URLs, e.g. `deployments` or `deployments/scale`. */
  name: string;
  /** The singular name; servers before 1.27 leave it empty for built-in resources. */
  singularName: string;
  /** True for namespaced resources, false for cluster-scoped ones. */
  namespaced: boolean;
  /** Set when the resource belongs to another group than the list (subresources such as `scale`). */
  group?: string;
  /** Set when the resource belongs to another version than the list. */
  version?: string;
  /** The kind of the resource's objects, e.g. `Deployment`. */
  kind: string;
  /** The verbs the resource supports: `get`, `list`, `watch`, `create`, ... */
  verbs: string[];
  /** Short aliases kubectl accepts, e.g. `deploy`. */
  shortNames?: string[];
  /** Groupings the resource belongs to, e.g. `all`. */
  categories?: string[];
  /** Hash of the storage version; changes when the stored version changes. */
  storageVersionHash?: string;
}

/** The answer of `GET /api/v1` or `GET /apis/<group>/<version>`. */
export interface APIResourceList {
  /** Always `APIResourceList`. */
  kind?: 'APIResourceList' | (string & {});
  /** Always `v1`. */
  apiVersion?: string;
  /** `group/version`, or just the version for the core group. */
  groupVersion: string;
  /** The resources and subresources (`pods/status`) the group-version serves. */
  resources: APIResource[];
}

/** The answer of `GET /version`. */
export interface VersionInfo {
  /** Major version, e.g. `1`. */
  major: string;
  /** Minor version, e.g. `30` (may carry a `+` on some distributions). */
  minor: string;
  /** The full version, e.g. `v1.30.2`. */
  gitVersion: string;
  /** The git commit the server was built from. */
  gitCommit: string;
  /** `clean` or `dirty`: whether the build tree had uncommitted changes. */
  gitTreeState: string;
  /** When the server was built, RFC 3339. */
  buildDate: string;
  /** The Go version the server was built with. */
  goVersion: string;
  /** The Go compiler, usually `gc`. */
  compiler: string;
  /** The server's `os/arch`, e.g. `linux/amd64`. */
  platform: string;
}

/** Groups with their resource lists, as returned by `serverGroupsAndResources()`. */
export interface GroupsAndResources {
  /** Every group, the core group first. */
  groups: APIGroup[];
  /** One list per group-version that answered, in group order then version order. */
  resources: APIResourceList[];
}
