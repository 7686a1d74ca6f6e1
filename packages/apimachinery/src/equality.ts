/** A JSON value as `JSON.parse` yields it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether two JSON values are the same document: objects equal field by field whatever the
 * order of their keys, arrays element by element, and a field set to `undefined` the same as
 * an absent one (`JSON.stringify` drops both). The check a reconciler needs before writing
 * what it computed over what it read (client-go's `equality.Semantic.DeepEqual` for wire
 * objects): kube-apiserver returns a custom resource with its keys sorted, so comparing
 * `JSON.stringify` texts finds a difference where there is none.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
  return keysA.length === keysB.length && keysA.every((k) => jsonEqual(a[k], b[k]));
}
