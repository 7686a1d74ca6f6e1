import type { FieldScope } from './fieldmanager.js';
import type { JsonValue } from './patch.js';
import type { ResourceDefinition } from './resources.js';

/** Where a request points: resource, version and namespace. */
export interface Target {
  readonly definition: ResourceDefinition;
  readonly version: string;
  /** The namespace from the URL; undefined for cluster-scoped resources and all-namespace lists. */
  readonly namespace: string | undefined;
}

/** Options every write takes. */
export interface WriteOptions {
  /** The field manager recorded in managedFields. */
  manager: string;
  /** `dryRun=All`: validate and answer, store nothing. */
  dryRun?: boolean;
  /** `status` for writes to the status subresource. */
  subresource?: 'status' | undefined;
}

/** Options of a PATCH: `force` lets an apply take fields other managers own. */
export type PatchOptions = WriteOptions & { force?: boolean };

/** The patch content types the server understands. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** A PATCH body and the content type that says how to apply it. */
export interface TypedPatch {
  readonly type: PatchType;
  readonly patch: JsonValue;
}

/** The namespace part of the store key of an object at `target` (`''` when cluster-scoped). */
export function keyNamespace(target: Target): string {
  return target.definition.namespaced ? (target.namespace ?? '') : '';
}

/** The part of an object whose fields a write records ownership of. */
export function fieldScope(
  definition: ResourceDefinition,
  subresource: 'status' | undefined,
): FieldScope {
  return subresource === 'status' ? 'status' : definition.status ? 'main' : 'all';
}
