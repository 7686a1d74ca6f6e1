import { normalise } from './object-meta.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { wireOrder } from './wire-order.generated.js';
import { wireRoots, wireTypes } from './wire-types.generated.js';

/**
 * A built-in object with its keys as kube-apiserver 1.20 encodes its Go struct: `kind`,
 * `apiVersion`, `metadata` in ObjectMeta's order, then every struct below in its declaration
 * order (`wire-order.generated.ts`). Fields the 1.20 struct does not declare (newer ones) follow
 * the declared ones as they came; maps keep their (sorted) keys. Empty slices and maps tagged
 * `omitempty` are left out, as Go's encoder does.
 */
export function inGoOrder(obj: JsonObject): JsonObject {
  const normalised = normalise(obj);
  const [group, version] = String(normalised.apiVersion ?? '').includes('/')
    ? String(normalised.apiVersion).split('/')
    : ['', String(normalised.apiVersion ?? '')];
  const root = wireRoots[`${group}/${version}/${String(normalised.kind ?? '')}`];
  if (!root) return normalised;
  const { kind, apiVersion, ...rest } = normalised;
  return { kind: kind ?? null, apiVersion: apiVersion ?? null, ...orderStruct(rest, root) };
}

// Each returns its input when nothing in it moves, so parts already in order are not copied.
function orderValue(value: JsonValue, type: string): JsonValue {
  if (type.startsWith('[]')) {
    if (!Array.isArray(value)) return value;
    const element = type.slice(2);
    if (!wireTypes[element] && !element.startsWith('map[')) return value;
    let out: JsonValue[] | undefined;
    value.forEach((item, i) => {
      const ordered = orderValue(item, element);
      if (ordered !== item) out ??= value.slice();
      if (out) out[i] = ordered;
    });
    return out ?? value;
  }
  if (type.startsWith('map[string]')) {
    if (!isObject(value)) return value;
    const element = type.slice('map[string]'.length);
    if (!wireTypes[element] && !element.startsWith('[]')) return value;
    let changed = false;
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = orderValue(item, element);
      if (out[key] !== item) changed = true;
    }
    return changed ? out : value;
  }
  return isObject(value) && wireTypes[type] ? orderStruct(value, type) : value;
}

function orderStruct(value: JsonObject, type: string): JsonObject {
  const fields = wireTypes[type]?.fields ?? {};
  const declared = wireOrder[type]?.fields ?? [];
  const omitEmpty = wireOrder[type]?.omitEmpty;
  const out: JsonObject = {};
  // Go's encoder leaves out an empty slice or map tagged omitempty.
  const omitted = (key: string, child: JsonValue | undefined): boolean =>
    child === undefined || (omitEmpty?.includes(key) === true && isEmptyCollection(child));
  let changed = false;
  for (const key of declared) {
    const child = value[key];
    if (omitted(key, child)) continue;
    out[key] = orderValue(child as JsonValue, fields[key]?.[1] ?? '');
    if (out[key] !== child) changed = true;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key in out || omitted(key, child)) continue;
    out[key] = orderValue(child, fields[key]?.[1] ?? '');
    if (out[key] !== child) changed = true;
  }
  if (changed) return out;
  const had = Object.keys(value);
  const has = Object.keys(out);
  return had.length === has.length && had.every((key, i) => key === has[i]) ? value : out;
}

/** An empty array or object. */
export function isEmptyCollection(value: JsonValue): boolean {
  return Array.isArray(value)
    ? value.length === 0
    : isObject(value) && Object.keys(value).length === 0;
}
