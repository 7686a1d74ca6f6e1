import { asServed } from './event-versions.js';
import { selfOwnedNodes } from './field-shapes.js';
import { ApplyConflictError, applyConfiguration, describeConflictOwner } from './fieldmanager.js';
import { applyOverClientSideApply, KUBECTL_APPLIER, syncLastApplied } from './last-applied.js';
import type { Entry } from './object-entry.js';
import { meta } from './object-meta.js';
import { clone, isObject, type JsonObject, type JsonValue } from './patch.js';
import { apiVersionOf } from './resources.js';
import { ApiError, badRequest, failure } from './status.js';
import { fieldScope, type PatchOptions, type Target } from './target.js';
import type { VersionedStore } from './versioned-store.js';
import { normaliseWireObject } from './wire-times.js';
import { checkKind, checkNamespace, checkPreconditionRv } from './write-checks.js';
import { createApplied } from './write-create.js';
import { finishUpdate, prepareUpdate } from './write-update.js';

/** Server-side apply of `patch` to `name`, creating the object when `existing` is undefined. */
export function writeApply(
  store: VersionedStore,
  target: Target,
  name: string,
  existing: Entry | undefined,
  patch: JsonValue,
  options: PatchOptions,
): Entry {
  const { definition } = target;
  if (!isObject(patch)) throw badRequest('the apply configuration must be an object');
  if (patch.kind === undefined || patch.apiVersion === undefined) {
    throw badRequest(
      `invalid object type: ${String(patch.apiVersion ?? '')}, Kind=${String(patch.kind ?? '')}`,
    );
  }
  checkKind(target, patch);
  const config = clone(patch);
  const configMd = meta(config);
  if (configMd.name !== undefined && configMd.name !== name) {
    throw badRequest(
      `the name of the object (${String(configMd.name)}) does not match the name on the URL (${name})`,
    );
  }
  configMd.name = name;
  checkNamespace(target, config);
  const apiVersion = apiVersionOf(definition.group, target.version);
  const scope = fieldScope(definition, options.subresource);
  const applyOrThrow = (live: JsonObject | undefined): JsonObject => {
    const apply = (force: boolean): JsonObject =>
      applyConfiguration(
        live,
        config,
        options.manager,
        apiVersion,
        definition.mergeKeys,
        scope,
        force,
        selfOwnedNodes(definition, target.version, 'Apply'),
      );
    try {
      const applied = applyOverClientSideApply(
        live,
        options,
        apiVersion,
        definition.mergeKeys,
        scope,
        apply,
      );
      if (options.manager === KUBECTL_APPLIER) syncLastApplied(applied, config);
      // Decoded as a write's body is: unknown fields dropped, maps sorted, times in UTC.
      normaliseWireObject(target, applied);
      return applied;
    } catch (error) {
      if (error instanceof ApplyConflictError) throw applyConflictStatus(error);
      throw error;
    }
  };
  if (!existing) {
    const created = applyOrThrow(undefined);
    // Create keeps the apply entry rather than recording an Update.
    return createApplied(store, target, created, options);
  }
  checkPreconditionRv(target, existing, config);
  const merged = applyOrThrow(asServed(target, existing.obj));
  const next = prepareUpdate(target, existing, merged, options.subresource);
  meta(next).managedFields = meta(merged).managedFields ?? null;
  if (meta(merged).managedFields === undefined) delete meta(next).managedFields;
  return finishUpdate(store, target, existing, next, options, true);
}

/** A conflict's path as a cause's `field`: key segments printed raw, unlike in the message. */
/** The 409 Conflict of an apply that would change fields other managers own. */
export function applyConflictStatus(error: ApplyConflictError): ApiError {
  return new ApiError(
    failure(409, 'Conflict', error.message, {
      causes: error.conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${describeConflictOwner(c)}`,
        field: describePathFor(c.path),
      })),
    }),
  );
}

function describePathFor(path: string): string {
  return path
    .split('\u0000')
    .filter((s) => s !== '\u0001')
    .map((s) => (s.startsWith('f:') ? `.${s.slice(2)}` : `[${s.slice(2)}]`))
    .join('');
}
