import { asServed, validationGroup } from './event-versions.js';
import { goMarshal } from './go-decode.js';
import { type Entry, storeKey } from './object-entry.js';
import { meta } from './object-meta.js';
import {
  isObject,
  type JsonObject,
  type JsonValue,
  jsonPatch,
  mergePatch,
  PatchError,
  strategicMergePatch,
} from './patch.js';
import type { ResourceDefinition } from './resources.js';
import {
  ApiError,
  badRequest,
  failure,
  invalid,
  notFound,
  unsupportedMediaType,
} from './status.js';
import { keyNamespace, type PatchOptions, type Target, type TypedPatch } from './target.js';
import type { VersionedStore } from './versioned-store.js';
import { checkWireTypes } from './wire-decode.js';
import { normaliseWireObject } from './wire-times.js';
import { writeApply } from './write-apply.js';
import {
  checkKind,
  checkNamespace,
  checkPatchedCustomKind,
  checkPreconditionRv,
} from './write-checks.js';
import { finishUpdate, prepareUpdate } from './write-update.js';

const PATCH_DOES_NOT_APPLY = 'the server rejected our request due to an error in our request';
const NOT_AN_OBJECT = 'json: cannot unmarshal array into Go value of type map[string]interface {}';

/** PATCH (json, merge, strategic or apply). Apply creates the object when it is missing. */
export function patchObject(
  store: VersionedStore,
  target: Target,
  name: string,
  typed: TypedPatch,
  options: PatchOptions,
): Entry {
  const { definition } = target;
  if (typed.type === 'strategic' && definition.custom) {
    throw unsupportedMediaType('application/strategic-merge-patch+json');
  }
  const existing = store.storeOf(definition).get(storeKey(keyNamespace(target), name));
  if (typed.type === 'apply')
    return writeApply(store, target, name, existing, typed.patch, options);
  if (!existing) throw notFound(definition.resource, name, definition.group);
  const patched = applyPatchToValue(asServed(target, existing.obj), typed, definition);
  if (!isObject(patched)) throw badRequest('the patch did not produce an object');
  const patchedMd = meta(patched);
  if (patchedMd.name !== undefined && patchedMd.name !== name) {
    throw badRequest(
      `the name of the object (${String(patchedMd.name)}) does not match the name on the URL (${name})`,
    );
  }
  checkPatchedCustomKind(target, patched);
  checkPatchedWireTypes(target, patched);
  normaliseWireObject(target, patched);
  checkKind(target, patched);
  checkNamespace(target, patched);
  checkPreconditionRv(target, existing, patched);
  checkPatchedUid(target, existing, patched);
  const next = prepareUpdate(target, existing, patched, options.subresource);
  return finishUpdate(store, target, existing, next, options);
}

/** Applies a json, merge or strategic patch (apply is treated as merge) to a value. */
export function applyPatchToValue(
  base: JsonObject,
  { type, patch }: TypedPatch,
  definition: ResourceDefinition,
): JsonValue {
  try {
    switch (type) {
      case 'json':
        return jsonPatch(base, patch);
      case 'merge':
        // A merge patch that is not an object replaces the whole document (RFC 7386), which
        // then fails to decode as an object.
        if (!isObject(patch)) throw notAnObjectAfterPatch(patch);
        return mergePatch(base, patch);
      case 'apply':
        if (!isObject(patch)) throw new PatchError(NOT_AN_OBJECT, 400);
        return mergePatch(base, patch);
      default:
        if (!isObject(patch)) throw new PatchError(NOT_AN_OBJECT, 400);
        return strategicMergePatch(base, patch, definition.mergeKeys) ?? {};
    }
  } catch (error) {
    if (error instanceof PatchError) {
      if (error.code === 500) {
        // kube-apiserver passes strategic-merge errors it does not classify on as they are.
        const { reason: _reason, ...status } = failure(500, '', error.message);
        throw new ApiError(status);
      }
      if (error.code === 422) {
        // kube-apiserver answers a patch that does not apply with a generic 422: the patch
        // library's own text (`testing value … failed`) is not passed on.
        throw new ApiError(failure(422, 'Invalid', PATCH_DOES_NOT_APPLY, {}));
      }
      throw new ApiError(failure(error.code, 'BadRequest', error.message));
    }
    throw error;
  }
}

/** kube-apiserver's 422 for a patched document that is not a JSON object. */
function notAnObjectAfterPatch(patched: JsonValue): ApiError {
  const goType = Array.isArray(patched)
    ? 'array'
    : patched === null
      ? 'null'
      : typeof patched === 'boolean'
        ? 'bool'
        : typeof patched;
  const message = `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: couldn't get version/kind; json parse error: json: cannot unmarshal ${goType} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
  return invalid('', '', [{ reason: 'FieldValueInvalid', message, field: 'patch' }]);
}

/**
 * A patched built-in object is decoded again: a value of the wrong JSON type (`{"data": 5}`)
 * is kube-apiserver's 422 on `patch`, quoting the patched object (keys sorted, as Go
 * re-encodes it) and the decoder's error.
 */
function checkPatchedWireTypes(target: Target, patched: JsonObject): void {
  if (target.definition.custom) return;
  const raw = goMarshal(patched);
  try {
    checkWireTypes(target, raw);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status.code !== 400) throw error;
    const decoderError = (error.status.message ?? '').replace(
      /^.*? cannot be handled as a \w+: /,
      '',
    );
    const message = `Invalid value: ${JSON.stringify(raw)}: ${decoderError}`;
    throw invalid('', '', [{ reason: 'FieldValueInvalid', message, field: 'patch' }]);
  }
}

/** A patch may not change a built-in object's uid: 422, the cause listed twice as 1.20 does. */
function checkPatchedUid(target: Target, existing: Entry, patched: JsonObject): void {
  const { definition } = target;
  if (definition.custom) return;
  const uid = meta(patched).uid;
  if (uid === undefined || uid === meta(existing.obj).uid) return;
  const cause = {
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${JSON.stringify(uid)}: field is immutable`,
    field: 'metadata.uid',
  };
  throw invalid(definition.kind, existing.name, [cause, cause], validationGroup(definition));
}
