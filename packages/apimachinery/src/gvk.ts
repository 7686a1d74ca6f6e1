/**
 * An API group and version, e.g. `{ group: 'apps', version: 'v1' }`. The core ("legacy")
 * group is the empty string: `{ group: '', version: 'v1' }` is written `v1`.
 */
export interface GroupVersion {
  /** The API group; `''` for the core group (`v1` Pods, Services, ...). */
  group: string;
  /** The API version within the group, e.g. `v1` or `v1beta1`. */
  version: string;
}

/** A kind within a group and version, e.g. `apps/v1, Kind=Deployment`. */
export interface GroupVersionKind extends GroupVersion {
  /** The object's kind in CamelCase, e.g. `Deployment`. */
  kind: string;
}

/** A resource (the plural, lower-case URL segment) within a group and version. */
export interface GroupVersionResource extends GroupVersion {
  /** The resource: the plural, lower-case URL segment, e.g. `deployments`. */
  resource: string;
}

/** A resource within a group, without a version, e.g. `deployments.apps`. */
export interface GroupResource {
  /** The API group; `''` for the core group. */
  group: string;
  /** The resource: the plural, lower-case URL segment, e.g. `deployments`. */
  resource: string;
}

/** A kind within a group, without a version, e.g. `Deployment.apps`. */
export interface GroupKind {
  /** The API group; `''` for the core group. */
  group: string;
  /** The object's kind in CamelCase, e.g. `Deployment`. */
  kind: string;
}

/**
 * Thrown when a group/version/kind/resource string is malformed. It is a `TypeError` (the
 * caller passed a value of the wrong shape) and carries the offending text in `input`.
 */
export class GroupVersionParseError extends TypeError {
  /** The string that could not be parsed. */
  readonly input: string;

  constructor(input: string, problem: string) {
    super(`${JSON.stringify(input)} ${problem}`);
    this.name = 'GroupVersionParseError';
    this.input = input;
  }
}

/**
 * Parses an `apiVersion` string: `apps/v1` → `{ group: 'apps', version: 'v1' }` and
 * `v1` → `{ group: '', version: 'v1' }` (the core group).
 *
 * @throws {GroupVersionParseError} for an empty string, an empty group or version
 *   (`apps/`, `/v1`), or more than one `/` (`a/b/c`).
 */
export function parseGroupVersion(value: string): GroupVersion {
  const parts = value.split('/');
  if (parts.length === 1) {
    if (value === '')
      throw new GroupVersionParseError(value, 'is not a group/version: it is empty');
    return { group: '', version: value };
  }
  if (parts.length === 2) {
    const [group = '', version = ''] = parts;
    if (group === '') {
      throw new GroupVersionParseError(
        value,
        'is not a group/version: the group before "/" is empty (write the core group as just the version, e.g. "v1")',
      );
    }
    if (version === '') {
      throw new GroupVersionParseError(
        value,
        'is not a group/version: the version after "/" is empty',
      );
    }
    return { group, version };
  }
  throw new GroupVersionParseError(
    value,
    'is not a group/version: expected "group/version" or "version" but found more than one "/"',
  );
}

/**
 * The `apiVersion` form of a group and version: `apps/v1`, or just `v1` for the core group.
 */
export function apiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Formats a {@link GroupVersion} as its `apiVersion` string (`apps/v1`, or `v1` for core). */
export function groupVersionToString(gv: GroupVersion): string {
  return apiVersion(gv.group, gv.version);
}

/** Formats a {@link GroupVersionKind} the way client-go prints it: `apps/v1, Kind=Deployment`. */
export function groupVersionKindToString(gvk: GroupVersionKind): string {
  return `${groupVersionToString(gvk)}, Kind=${gvk.kind}`;
}

/** Formats a {@link GroupVersionResource} the way client-go prints it: `apps/v1, Resource=deployments`. */
export function groupVersionResourceToString(gvr: GroupVersionResource): string {
  return `${groupVersionToString(gvr)}, Resource=${gvr.resource}`;
}

/** Formats a {@link GroupResource} as `deployments.apps`, or just `pods` for the core group. */
export function groupResourceToString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** Formats a {@link GroupKind} as `Deployment.apps`, or just `Pod` for the core group. */
export function groupKindToString(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

/**
 * Parses `resource` or `resource.group` (kubectl's `deployments.apps`, `pods`) into a
 * {@link GroupResource}. Everything after the first `.` is the group, so
 * `deployments.v1.apps` yields the group `v1.apps`; use {@link parseResourceArg} when the
 * string may name a version too.
 *
 * @throws {GroupVersionParseError} when the string or its resource part is empty.
 */
export function parseGroupResource(value: string): GroupResource {
  const dot = value.indexOf('.');
  const resource = dot === -1 ? value : value.slice(0, dot);
  const group = dot === -1 ? '' : value.slice(dot + 1);
  if (resource === '') {
    throw new GroupVersionParseError(value, 'is not a resource: the resource name is empty');
  }
  return { group, resource };
}

/**
 * Parses a kubectl-style resource argument, with client-go's `ParseResourceArg` semantics:
 *
 * - `deployments.v1.apps` → `gvr` `{ group: 'apps', version: 'v1', resource: 'deployments' }`
 *   (resource.version.group; the group may contain dots, and `pods.v1.` names the core group),
 *   plus the fallback reading `gr` `{ group: 'v1.apps', resource: 'deployments' }`, since
 *   `v1.apps` could also be a group name. Callers try `gvr` first and fall back to `gr`.
 * - `deployments.apps` → no `gvr`; `gr` `{ group: 'apps', resource: 'deployments' }`.
 * - `pods` → no `gvr`; `gr` `{ group: '', resource: 'pods' }`.
 *
 * @throws {GroupVersionParseError} when the resource part is empty (`.apps`, ``).
 */
export function parseResourceArg(arg: string): {
  /** The `resource.version.group` reading, when the string has a version part; try it first. */
  gvr: GroupVersionResource | undefined;
  /** The `resource.group` reading, always present; the fallback when `gvr` is not served. */
  gr: GroupResource;
} {
  const gr = parseGroupResource(arg);
  const parts = splitResourceVersionGroup(arg);
  // A string with a dot but an empty version (`pods..apps`) cannot be a GVR; the group
  // reading still stands, as it does in client-go.
  const gvr = parts && parts.version !== '' ? parts : undefined;
  return { gvr, gr };
}

/**
 * Parses a fully qualified resource into a {@link GroupVersionResource}. Two spellings are
 * accepted:
 *
 * - `resource.version.group` as kubectl writes it: `deployments.v1.apps`,
 *   `mydemos.v1.crddemo.k8s.io`, and `pods.v1.` for the core group;
 * - `group/version/resource` or `version/resource` as in a URL path: `apps/v1/deployments`,
 *   `v1/pods`.
 *
 * @throws {GroupVersionParseError} when the version or resource is missing or empty, e.g.
 *   `deployments.apps` (no version) or `a/b/c/d`.
 */
export function parseGroupVersionResource(value: string): GroupVersionResource {
  if (value.includes('/')) {
    const slash = value.lastIndexOf('/');
    const resource = value.slice(slash + 1);
    const gv = parseGroupVersion(value.slice(0, slash));
    if (resource === '') {
      throw new GroupVersionParseError(
        value,
        'is not a group/version/resource: the resource is empty',
      );
    }
    return { ...gv, resource };
  }
  const parts = splitResourceVersionGroup(value);
  if (!parts) {
    throw new GroupVersionParseError(
      value,
      'is not a group/version/resource: expected "resource.version.group" (e.g. "deployments.v1.apps", or "pods.v1." for the core group)',
    );
  }
  if (parts.resource === '' || parts.version === '') {
    throw new GroupVersionParseError(
      value,
      `is not a group/version/resource: the ${parts.resource === '' ? 'resource' : 'version'} is empty`,
    );
  }
  return parts;
}

// Splits `resource.version.group` at the first two dots; undefined when there are fewer.
function splitResourceVersionGroup(value: string): GroupVersionResource | undefined {
  const first = value.indexOf('.');
  if (first === -1) return undefined;
  const second = value.indexOf('.', first + 1);
  if (second === -1) return undefined;
  return {
    resource: value.slice(0, first),
    version: value.slice(first + 1, second),
    group: value.slice(second + 1),
  };
}

/**
 * Reads the {@link GroupVersionKind} of an object from its `apiVersion` and `kind` fields.
 *
 * @throws {GroupVersionParseError} when `apiVersion` or `kind` is missing, not a string,
 *   empty, or `apiVersion` is malformed. Typed clients often receive objects without
 *   these fields (the server omits them in list items), so callers should be prepared.
 */
export function gvkFromObject(obj: { apiVersion?: unknown; kind?: unknown }): GroupVersionKind {
  const { apiVersion: version, kind } = obj;
  if (typeof version !== 'string' || version === '') {
    throw new GroupVersionParseError(
      String(version),
      'is not a usable apiVersion: the object needs a non-empty string "apiVersion"',
    );
  }
  if (typeof kind !== 'string' || kind === '') {
    throw new GroupVersionParseError(
      String(kind),
      'is not a usable kind: the object needs a non-empty string "kind"',
    );
  }
  return { ...parseGroupVersion(version), kind };
}
