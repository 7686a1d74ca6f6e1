import { base64ErrorOffset, iteratorContext, rawBodyOf, valueEndOffset } from './go-decode.js';
import { isObject, type JsonObject } from './patch.js';
import { badRequest } from './status.js';
import type { Target } from './target.js';

/** Whether `target` is core/v1 `resource`. */
const isCore = (target: Target, resource: string): boolean =>
  target.definition.group === '' && target.definition.resource === resource;

/**
 * What kube-apiserver does to a Secret or a ConfigMap on every write: a Secret's `data` and a
 * ConfigMap's `binaryData` values must be base64 (400 as its decoder answers otherwise); a
 * Secret's `stringData` is merged into `data` (base64) and dropped, and `type` defaults to
 * `Opaque`.
 */
export function prepareDataObject(target: Target, obj: JsonObject, raw = rawBodyOf(obj)): void {
  if (isCore(target, 'configmaps')) {
    checkBase64(obj.binaryData, raw, 'ConfigMap', ['binaryData', 'BinaryData']);
    return;
  }
  if (!isCore(target, 'secrets')) return;
  const data = isObject(obj.data) ? obj.data : undefined;
  checkBase64(data, raw, 'Secret', ['data', 'Data']);
  if (isObject(obj.stringData)) {
    const merged: JsonObject = { ...(data ?? {}) };
    for (const [key, value] of Object.entries(obj.stringData)) {
      if (typeof value === 'string') merged[key] = Buffer.from(value, 'utf8').toString('base64');
    }
    // A Go map: encoded with its keys sorted.
    obj.data = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : 1)));
  }
  delete obj.stringData;
  if (obj.type === undefined || obj.type === '') obj.type = 'Opaque';
}

/** The decoder's 400 for a `[]byte` map value that is not base64. */
function checkBase64(
  values: unknown,
  raw: string,
  kind: string,
  [field, goField]: [json: string, go: string],
): void {
  if (!isObject(values)) return;
  for (const [key, value] of Object.entries(values)) {
    if (typeof value !== 'string') continue;
    const offset = base64ErrorOffset(value);
    if (offset === undefined) continue;
    throw badRequest(
      `${kind} in version "v1" cannot be handled as a ${kind}: v1.${kind}.${goField}: decode base64: illegal base64 data at input byte ${offset}${iteratorContext(raw, valueEndOffset(raw, field, key, value))}`,
    );
  }
}
