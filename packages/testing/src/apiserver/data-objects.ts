import { base64ErrorOffset, iteratorContext, rawBodyOf, valueEndOffset } from './go-decode.js';
import { objectName } from './object-meta.js';
import { isObject, type JsonObject, jsonEqual } from './patch.js';
import { badRequest, invalid } from './status.js';
import type { Target } from './target.js';
import type { FieldError } from './validation/names.js';

/** Whether `target` is core/v1 `resource`. */
const isCore = (target: Target, resource: string): boolean =>
  target.definition.group === '' && target.definition.resource === resource;

/**
 * What kube-apiserver does to a Secret on every write: `data` values must be base64 (400 as
 * its decoder answers otherwise), `stringData` is merged into `data` (base64) and dropped,
 * and `type` defaults to `Opaque`.
 */
export function prepareSecret(target: Target, obj: JsonObject, raw = rawBodyOf(obj)): void {
  if (!isCore(target, 'secrets')) return;
  const data = isObject(obj.data) ? obj.data : undefined;
  for (const [key, value] of Object.entries(data ?? {})) {
    if (typeof value !== 'string') continue;
    const offset = base64ErrorOffset(value);
    if (offset === undefined) continue;
    throw badRequest(
      `Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: decode base64: illegal base64 data at input byte ${offset}${iteratorContext(raw, valueEndOffset(raw, 'data', key, value))}`,
    );
  }
  if (isObject(obj.stringData)) {
    const merged: JsonObject = { ...(data ?? {}) };
    for (const [key, value] of Object.entries(obj.stringData)) {
      if (typeof value === 'string') merged[key] = Buffer.from(value, 'utf8').toString('base64');
    }
    obj.data = merged;
  }
  delete obj.stringData;
  if (obj.type === undefined || obj.type === '') obj.type = 'Opaque';
}

/**
 * The update rules of Secrets and ConfigMaps: a Secret's `type` is immutable, and once
 * `immutable: true` is set neither the data nor `immutable` may change (422 Invalid).
 */
export function checkDataUpdate(target: Target, old: JsonObject, next: JsonObject): void {
  const secret = isCore(target, 'secrets');
  if (!secret && !isCore(target, 'configmaps')) return;
  const causes: FieldError[] = [];
  if (secret && next.type !== old.type) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(next.type)}: field is immutable`,
      field: 'type',
    });
  }
  if (old.immutable === true) {
    const forbidden = (field: string): void => {
      causes.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: field is immutable when `immutable` is set',
        field,
      });
    };
    if (next.immutable !== true) forbidden('immutable');
    if (!jsonEqual(old.data ?? {}, next.data ?? {})) forbidden('data');
    if (!secret && !jsonEqual(old.binaryData ?? {}, next.binaryData ?? {})) forbidden('binaryData');
  }
  if (causes.length > 0) throw invalid(target.definition.kind, objectName(next), causes);
}
