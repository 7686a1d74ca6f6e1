import { isObject, type JsonObject, type JsonValue } from '../patch.js';

/** Sets `obj[key]` to `value` unless it is set (Go's zero-value check: absent, null or ''). */
export function setDefault(obj: JsonObject, key: string, value: JsonValue): void {
  if (obj[key] === undefined || obj[key] === null || obj[key] === '') obj[key] = value;
}

/** The object at `obj[key]`, created empty when missing. */
export function child(obj: JsonObject, key: string): JsonObject {
  const value = obj[key];
  if (isObject(value)) return value;
  const created: JsonObject = {};
  obj[key] = created;
  return created;
}

/** The objects in a JSON list (nothing when it is not a list). */
export const objects = (value: JsonValue | undefined): JsonObject[] =>
  Array.isArray(value) ? value.filter(isObject) : [];
