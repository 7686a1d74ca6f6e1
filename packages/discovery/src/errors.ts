import { type GroupKind, groupKindToString } from '@kubets/apimachinery';
import type { APIGroup, APIResourceList } from './types.js';

const partialBrand = Symbol.for('kubets.discovery.DiscoveryPartialError');
const noMatchBrand = Symbol.for('kubets.discovery.NoMatchError');

function describeError(err: Error): string {
  return err.message.split('\n', 1)[0] ?? err.message;
}

/**
 * Some group-versions could not be discovered (client-go's `ErrGroupDiscoveryFailed`).
 * The error still carries everything that succeeded, so callers that can live with a
 * partial view (a RESTMapper, `kubectl api-resources`) use {@link DiscoveryPartialError.groups}
 * and {@link DiscoveryPartialError.resources} and report {@link DiscoveryPartialError.failed}.
 */
export class DiscoveryPartialError extends Error {
  /**
   * Brand that lets {@link isDiscoveryPartialError} recognise errors from another copy of this
   * package.
   * @internal
   */
  readonly [partialBrand] = true;
  /** Every group the server listed (including those whose versions failed). */
  readonly groups: APIGroup[];
  /** The resource lists that were fetched; for preferred-resource calls, the preferred lists. */
  readonly resources: APIResourceList[];
  /** The failing group-versions (`apps/v1`, `v1`) and why each failed. */
  readonly failed: ReadonlyMap<string, Error>;

  constructor(
    groups: APIGroup[],
    resources: APIResourceList[],
    failed: ReadonlyMap<string, Error>,
  ) {
    const details = [...failed]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([gv, err]) => `${gv}: ${describeError(err)}`)
      .join('; ');
    super(`unable to retrieve the complete list of server APIs: ${details}`, {
      cause: failed.values().next().value,
    });
    this.name = 'DiscoveryPartialError';
    this.groups = groups;
    this.resources = resources;
    this.failed = failed;
  }
}

/** True for a {@link DiscoveryPartialError}, also one created by another copy of this package. */
export function isDiscoveryPartialError(err: unknown): err is DiscoveryPartialError {
  return typeof err === 'object' && err !== null && partialBrand in err;
}

/** What a resource lookup asked for: any part but `resource` may be empty (any group, any version). */
export interface PartialResource {
  /** The API group; omit to search every group. */
  group?: string;
  /** The API version; omit to search every version (preferred first). */
  version?: string;
  /** The resource: plural, singular or short name, e.g. `deployments` or `deploy`. */
  resource: string;
}

function describePartialResource(resource: PartialResource): string {
  const parts: string[] = [];
  if (resource.group) parts.push(`group "${resource.group}"`);
  if (resource.version) parts.push(`version "${resource.version}"`);
  const where = parts.length > 0 ? ` in ${parts.join(' and ')}` : '';
  return `no matches for resource "${resource.resource}"${where}`;
}

/**
 * No resource matched a lookup (client-go's `NoResourceMatchError`). The message names
 * what was asked, e.g. `no matches for resource "widgets" in group "e2e.kubets.dev"`.
 */
export class NoResourceMatchError extends Error {
  /**
   * Brand that lets {@link isNoMatchError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [noMatchBrand] = true;
  /** The lookup as given. */
  readonly partialResource: PartialResource;

  constructor(partialResource: PartialResource, options?: { message?: string }) {
    super(options?.message ?? describePartialResource(partialResource));
    this.name = 'NoResourceMatchError';
    this.partialResource = partialResource;
  }
}

/**
 * No kind matched a mapping request (client-go's `NoKindMatchError`), e.g.
 * `no matches for kind "Widget" in group "e2e.kubets.dev"`.
 */
export class NoKindMatchError extends Error {
  /**
   * Brand that lets {@link isNoMatchError} recognise errors from another copy of this package.
   * @internal
   */
  readonly [noMatchBrand] = true;
  /** The group and kind that were looked up. */
  readonly groupKind: GroupKind;
  /** The versions that were searched; empty when every version was. */
  readonly searchedVersions: readonly string[];

  constructor(groupKind: GroupKind, searchedVersions: readonly string[] = []) {
    const where =
      searchedVersions.length === 0
        ? `in group "${groupKind.group}"`
        : searchedVersions.length === 1
          ? `in version "${groupKind.group ? `${groupKind.group}/` : ''}${searchedVersions[0]}"`
          : `in versions ${searchedVersions.map((v) => `"${groupKind.group ? `${groupKind.group}/` : ''}${v}"`).join(', ')}`;
    super(`no matches for kind "${groupKind.kind}" ${where} (${groupKindToString(groupKind)})`);
    this.name = 'NoKindMatchError';
    this.groupKind = groupKind;
    this.searchedVersions = searchedVersions;
  }
}

/** True for {@link NoKindMatchError} and {@link NoResourceMatchError} (client-go's `meta.IsNoMatchError`). */
export function isNoMatchError(err: unknown): err is NoKindMatchError | NoResourceMatchError {
  return typeof err === 'object' && err !== null && noMatchBrand in err;
}
