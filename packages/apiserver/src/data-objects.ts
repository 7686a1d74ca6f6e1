import { base64ErrorOffset, iteratorContext, rawBodyOf, valueEndOffset } from './go-decode.js';
import { isObject, type JsonObject } from './patch.js';
import { badRequest } from './status.js';
import type { Target } from './target.js';

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
