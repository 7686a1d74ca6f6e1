/** A JSON value as `JSON.parse` yields it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Thrown for a patch that cannot be applied; `code` is the HTTP status to answer with. */
export class PatchError extends Error {
  constructor(
    message: string,
    readonly code: 400 | 422 = 422,
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep copy of a JSON value. */
export function clone<T extends JsonValue | undefined>(value: T): T {
  return value === undefined ? value : (structuredClone(value) as T);
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a as object);
  const bo = b as Record<string, unknown>;
  if (ak.length !== Object.keys(bo).length) return false;
  for (const k of ak) {
    if (!Object.hasOwn(bo, k) || !jsonEqual((a as Record<string, unknown>)[k], bo[k])) return false;
  }
  return true;
}

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new PatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(root: JsonValue, segments: string[], path: string): JsonObject | JsonValue[] {
  let current: JsonValue = root;
  for (const segment of segments.slice(0, -1)) {
    if (Array.isArray(current)) {
      const index = Number(segment);
      if (!/^\d+$/.test(segment) || index >= current.length) {
        throw new PatchError(`unable to find the path ${JSON.stringify(path)}: missing value`);
      }
      current = current[index] as JsonValue;
    } else if (isObject(current) && Object.hasOwn(current, segment)) {
      current = current[segment] as JsonValue;
    } else {
      throw new PatchError(`doc is missing path: ${JSON.stringify(path)}: missing value`);
    }
  }
  if (!isObject(current) && !Array.isArray(current)) {
    throw new PatchError(`doc is missing path: ${JSON.stringify(path)}: missing value`);
  }
  return current;
}

function getAt(root: JsonValue, path: string): JsonValue {
  const segments = decodePointer(path);
  if (segments.length === 0) return root;
  const parent = parentOf(root, segments, path);
  const last = segments[segments.length - 1] as string;
  if (Array.isArray(parent)) {
    const index = Number(last);
    if (!/^\d+$/.test(last) || index >= parent.length) {
      throw new PatchError(`unable to find the path ${JSON.stringify(path)}: missing value`);
    }
    return parent[index] as JsonValue;
  }
  if (!Object.hasOwn(parent, last)) {
    throw new PatchError(`doc is missing path: ${JSON.stringify(path)}: missing value`);
  }
  return parent[last] as JsonValue;
}

function removeAt(root: JsonValue, path: string): JsonValue {
  const segments = decodePointer(path);
  const parent = parentOf(root, segments, path);
  const last = segments[segments.length - 1] as string;
  if (Array.isArray(parent)) {
    const index = Number(last);
    if (!/^\d+$/.test(last) || index >= parent.length) {
      throw new PatchError(`unable to remove nonexistent key: ${last}: missing value`);
    }
    return parent.splice(index, 1)[0] as JsonValue;
  }
  if (!Object.hasOwn(parent, last)) {
    throw new PatchError(`unable to remove nonexistent key: ${last}: missing value`);
  }
  const removed = parent[last] as JsonValue;
  delete parent[last];
  return removed;
}

function addAt(root: JsonValue, path: string, value: JsonValue, replace: boolean): JsonValue {
  const segments = decodePointer(path);
  if (segments.length === 0) return value;
  const parent = parentOf(root, segments, path);
  const last = segments[segments.length - 1] as string;
  if (Array.isArray(parent)) {
    if (replace) {
      const index = Number(last);
      if (!/^\d+$/.test(last) || index >= parent.length) {
        throw new PatchError(`unable to replace nonexistent index: ${last}: missing value`);
      }
      parent[index] = value;
    } else if (last === '-') {
      parent.push(value);
    } else {
      const index = Number(last);
      if (!/^\d+$/.test(last) || index > parent.length) {
        throw new PatchError(`unable to access invalid index: ${last}: invalid index referenced`);
      }
      parent.splice(index, 0, value);
    }
  } else {
    if (replace && !Object.hasOwn(parent, last)) {
      throw new PatchError(
        `replace operation does not apply: doc is missing key: ${path}: missing value`,
      );
    }
    parent[last] = value;
  }
  return root;
}

/** RFC 6902 JSON patch. Operations apply in order to a copy of `target`. */
export function jsonPatch(target: JsonValue, operations: JsonValue): JsonValue {
  if (!Array.isArray(operations)) {
    throw new PatchError(
      'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      400,
    );
  }
  let doc = clone(target);
  for (const op of operations) {
    if (!isObject(op) || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw new PatchError('Unexpected kind: invalid operation', 422);
    }
    const path = op.path;
    switch (op.op) {
      case 'add':
        doc = addAt(doc, path, clone(op.value ?? null), false);
        break;
      case 'replace':
        doc = addAt(doc, path, clone(op.value ?? null), true);
        break;
      case 'remove':
        removeAt(doc, path);
        break;
      case 'move':
      case 'copy': {
        if (typeof op.from !== 'string') throw new PatchError(`${op.op} operation requires "from"`);
        const value = op.op === 'move' ? removeAt(doc, op.from) : clone(getAt(doc, op.from));
        doc = addAt(doc, path, value, false);
        break;
      }
      case 'test':
        if (!jsonEqual(getAt(doc, path), op.value ?? null)) {
          throw new PatchError(`testing value ${path} failed: test failed`);
        }
        break;
      default:
        throw new PatchError(`Unexpected kind: ${op.op}`);
    }
  }
  return doc;
}

/** Strategic-merge metadata: the merge key of list fields, by dotted path with `*` for list items. */
export type MergeKeys = Readonly<Record<string, string>>;

const DIRECTIVE_PREFIXES = ['$setElementOrder/', '$deleteFromPrimitiveList/', '$retainKeys'];

/**
 * Strategic merge patch for the common cases: maps merge recursively and `null` deletes; lists
 * with a merge key merge item by item (`$patch: delete` on an item removes it,
 * `$setElementOrder/<list>` orders the result); other lists are replaced;
 * `$patch: replace`/`delete` on a map; `$retainKeys`; `$deleteFromPrimitiveList/<list>`.
 */
export function strategicMergePatch(
  target: JsonValue | undefined,
  patch: JsonValue,
  mergeKeys: MergeKeys,
  path = '',
): JsonValue | undefined {
  if (!isObject(patch)) return clone(patch);
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  const replace = directive === 'replace';
  let result: JsonObject = isObject(target) && !replace ? { ...target } : {};
  const retainKeys = Array.isArray(patch.$retainKeys) ? patch.$retainKeys : undefined;
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || DIRECTIVE_PREFIXES.some((p) => key.startsWith(p))) continue;
    const childPath = path ? `${path}.${key}` : key;
    if (value === null) {
      delete result[key];
      continue;
    }
    const mergeKey = mergeKeys[childPath];
    if (Array.isArray(value) && mergeKey) {
      result[key] = mergeList(result[key], value, mergeKey, mergeKeys, childPath);
    } else if (isObject(value)) {
      const merged = strategicMergePatch(result[key], value, mergeKeys, childPath);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = clone(value);
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$deleteFromPrimitiveList/') && Array.isArray(value)) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const list = result[field];
      if (Array.isArray(list)) {
        result[field] = list.filter((item) => !value.some((v) => jsonEqual(v, item)));
      }
    }
    if (key.startsWith('$setElementOrder/') && Array.isArray(value)) {
      const field = key.slice('$setElementOrder/'.length);
      const mergeKey = mergeKeys[path ? `${path}.${field}` : field];
      const list = result[field];
      if (Array.isArray(list) && mergeKey) result[field] = orderList(list, value, mergeKey);
    }
  }
  if (retainKeys) {
    const keep = new Set(retainKeys.filter((k): k is string => typeof k === 'string'));
    result = Object.fromEntries(Object.entries(result).filter(([k]) => keep.has(k)));
  }
  return result;
}

function keyOf(item: JsonValue, mergeKey: string): JsonValue | undefined {
  return isObject(item) ? item[mergeKey] : undefined;
}

function mergeList(
  target: JsonValue | undefined,
  patch: JsonValue[],
  mergeKey: string,
  mergeKeys: MergeKeys,
  path: string,
): JsonValue[] {
  if (patch.some((item) => isObject(item) && item.$patch === 'replace')) {
    return patch.filter((item) => !(isObject(item) && item.$patch === 'replace')).map(clone);
  }
  const result: JsonValue[] = Array.isArray(target) ? [...target] : [];
  for (const item of patch) {
    const key = keyOf(item, mergeKey);
    if (key === undefined) {
      result.push(clone(item));
      continue;
    }
    const at = result.findIndex((existing) => jsonEqual(keyOf(existing, mergeKey), key));
    if (isObject(item) && item.$patch === 'delete') {
      if (at >= 0) result.splice(at, 1);
      continue;
    }
    if (at >= 0) {
      const merged = strategicMergePatch(result[at], item, mergeKeys, `${path}.*`);
      if (merged === undefined) result.splice(at, 1);
      else result[at] = merged;
    } else {
      const created = strategicMergePatch(undefined, item, mergeKeys, `${path}.*`);
      if (created !== undefined) result.push(created);
    }
  }
  return result;
}

function orderList(list: JsonValue[], order: JsonValue[], mergeKey: string): JsonValue[] {
  const rank = (item: JsonValue): number => {
    const key = keyOf(item, mergeKey);
    const at = order.findIndex((o) => jsonEqual(keyOf(o, mergeKey), key));
    return at < 0 ? order.length : at;
  };
  return list
    .map((item, index) => ({ item, index, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((e) => e.item);
}
