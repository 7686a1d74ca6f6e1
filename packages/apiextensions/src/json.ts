import type { JsonObject } from '@kubets/apimachinery';

export { type JsonObject, type JsonValue, jsonEqual } from '@kubets/apimachinery';

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
