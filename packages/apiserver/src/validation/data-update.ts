import { type JsonObject, jsonEqual } from '../patch.js';
import { forbidden, invalid } from './field-errors.js';
import type { FieldError } from './names.js';

const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

/**
 * The update rules of Secrets and ConfigMaps (`key` is `/secrets` or `/configmaps`): a
 * Secret's `type` is immutable, and once `immutable: true` is set neither it nor the data
 * (`data`, and a ConfigMap's `binaryData`) may change. kube-apiserver lists these causes
 * after the metadata update's and before the object's own validation.
 */
export function validateDataUpdate(key: string, next: JsonObject, old: JsonObject): FieldError[] {
  const secret = key === '/secrets';
  if (!secret && key !== '/configmaps') return [];
  const errors: FieldError[] = [];
  if (secret && next.type !== old.type) {
    errors.push(invalid('type', String(next.type), 'field is immutable'));
  }
  if (old.immutable === true) {
    if (next.immutable !== true) errors.push(forbidden('immutable', IMMUTABLE_SET));
    if (!jsonEqual(old.data ?? {}, next.data ?? {})) errors.push(forbidden('data', IMMUTABLE_SET));
    if (!secret && !jsonEqual(old.binaryData ?? {}, next.binaryData ?? {})) {
      errors.push(forbidden('binaryData', IMMUTABLE_SET));
    }
  }
  return errors;
}
