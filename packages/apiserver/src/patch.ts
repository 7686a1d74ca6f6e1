/** A JSON value as `JSON.parse` yields it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Thrown for a patch that cannot be applied; `code` is the HTTP status to answer with (500 is
 * kube-apiserver's answer, without a reason, for strategic-merge errors it does not classify).
 */
export class PatchError extends Error {
  constructor(
    message: string,
    readonly code: 400 | 422 | 500 = 422,
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

/**
 * Lists of scalars whose patch strategy is merge (the others are replaced): the only two in
 * kube-apiserver 1.20's built-in types.
 */
const PRIMITIVE_MERGE_LISTS = new Set(['metadata.finalizers', 'spec.podCIDRs']);

const SET_ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';
const BAD_RETAIN_KEYS = 'invalid patch format of retainKeys';
const BAD_PRIMITIVE_LIST = 'invalid patch format of primitive list';
const BAD_SET_ORDER = 'invalid patch format of setElementOrder list';

/** A decoded JSON value as Go's `%v` prints it (`map[k:v …]` with sorted keys, `[a b]`). */
export function goFormat(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(value[k])}`).join(' ')}]`;
  }
  return String(value);
}

function noMergeKey(item: JsonObject, mergeKey: string): PatchError {
  return new PatchError(
    `map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`,
    500,
  );
}

function badPatchType(directive: JsonValue, item: JsonObject): PatchError {
  return new PatchError(
    `unknown patch type: ${goFormat(directive)} in map: ${goFormat(item)}`,
    500,
  );
}

/**
 * Strategic merge patch as kube-apiserver applies it: maps merge recursively and `null`
 * deletes; lists with a merge key (and `metadata.finalizers`) merge item by item and come out
 * in the patch's order, the server's other items interleaved where they stood
 * (`$setElementOrder/<list>` sets the order); other lists are replaced; `$patch:
 * replace|delete` on a map or list item; `$retainKeys`; `$deleteFromPrimitiveList/<list>`. Bad
 * directives get the real server's messages (see {@link PatchError}).
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
  if (directive !== undefined && directive !== 'replace') throw badPatchType(directive, patch);
  const replace = directive === 'replace';
  let result: JsonObject = isObject(target) && !replace ? { ...target } : {};
  const original: JsonObject = isObject(target) ? target : {};
  const retainKeys = patch.$retainKeys;
  if (retainKeys !== undefined) checkRetainKeys(patch, retainKeys);
  const ordered = new Set<string>();
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const field = key.slice(SET_ORDER.length);
    if (!Array.isArray(order)) throw new PatchError(BAD_SET_ORDER, 400);
    const childPath = path ? `${path}.${field}` : field;
    const merged = orderedList(original[field], patch[field], order, mergeKeys, childPath);
    if (merged !== undefined) result[field] = merged;
    ordered.add(field);
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || ordered.has(key)) continue;
    if (key.startsWith(SET_ORDER)) continue;
    if (key.startsWith(DELETE_FROM)) {
      if (!Array.isArray(value)) throw new PatchError(BAD_PRIMITIVE_LIST, 400);
      continue;
    }
    const childPath = path ? `${path}.${key}` : key;
    if (value === null) {
      delete result[key];
      continue;
    }
    const mergeKey = mergeKeys[childPath];
    if (Array.isArray(value) && (mergeKey || PRIMITIVE_MERGE_LISTS.has(childPath))) {
      result[key] = mergeList(result[key], value, mergeKey ?? '', mergeKeys, childPath);
    } else if (isObject(value)) {
      const merged = strategicMergePatch(result[key], value, mergeKeys, childPath);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = clone(value);
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith(DELETE_FROM) || !Array.isArray(value)) continue;
    const field = key.slice(DELETE_FROM.length);
    const list = result[field];
    if (Array.isArray(list)) {
      result[field] = list.filter((item) => !value.some((v) => jsonEqual(v, item)));
    }
  }
  if (Array.isArray(retainKeys)) {
    const keep = new Set(retainKeys.filter((k): k is string => typeof k === 'string'));
    result = Object.fromEntries(Object.entries(result).filter(([k]) => keep.has(k)));
  }
  return result;
}

/** `$retainKeys` must be a list naming every field the patch sets (400 otherwise). */
function checkRetainKeys(patch: JsonObject, retainKeys: JsonValue): void {
  if (!Array.isArray(retainKeys)) throw new PatchError(BAD_RETAIN_KEYS, 400);
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || value === null) continue;
    if (key.startsWith(DELETE_FROM) || key.startsWith(SET_ORDER)) continue;
    if (!retainKeys.includes(key)) throw new PatchError(BAD_RETAIN_KEYS, 400);
  }
}

function keyOf(item: JsonValue | undefined, mergeKey: string): JsonValue | undefined {
  if (mergeKey === '') return item;
  return isObject(item) ? item[mergeKey] : undefined;
}

function indexIn(list: readonly JsonValue[], item: JsonValue, mergeKey: string): number {
  const key = keyOf(item, mergeKey);
  return list.findIndex((other) => jsonEqual(keyOf(other, mergeKey), key));
}

/** A list merged with its patch (merge key `''`: a list of scalars), in the real server's order. */
function mergeList(
  target: JsonValue | undefined,
  patch: JsonValue[],
  mergeKey: string,
  mergeKeys: MergeKeys,
  path: string,
): JsonValue[] {
  return mergeListAliased(target, patch, mergeKey, mergeKeys, path).merged;
}

/**
 * {@link mergeList}, also returning the server's list as kube-apiserver sees it afterwards: Go
 * deletes and appends in place in the decoded list's array (its capacity is its length), and
 * `$setElementOrder` then orders by that array.
 */
function mergeListAliased(
  target: JsonValue | undefined,
  patch: JsonValue[],
  mergeKey: string,
  mergeKeys: MergeKeys,
  path: string,
): { merged: JsonValue[]; serverArray: JsonValue[] } {
  const serverArray: JsonValue[] = Array.isArray(target) ? [...target] : [];
  if (mergeKey === '') {
    const merged: JsonValue[] = [];
    for (const item of [...serverArray, ...patch])
      if (indexIn(merged, item, '') < 0) merged.push(clone(item));
    return { merged: normaliseOrder(merged, patch, patch, serverArray, ''), serverArray };
  }
  if (![...serverArray, ...patch].every(isObject)) {
    throw new PatchError(
      `list element types are not identical: [${goFormat(serverArray)} ${goFormat(patch)}]`,
      500,
    );
  }
  let original = [...serverArray];
  let aliased = true;
  let items: JsonObject[] = [];
  let replace = false;
  for (const item of patch as JsonObject[]) {
    const directive = item.$patch;
    if (directive === undefined) items.push(item);
    else if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      for (;;) {
        const at = original.findIndex((o) => jsonEqual(keyOf(o, mergeKey), item[mergeKey]));
        if (at < 0) break;
        // Go shifts the rest left in place; the array's last slot keeps its old value.
        for (let i = at; i < original.length - 1; i++)
          serverArray[i] = serverArray[i + 1] as JsonValue;
        original.splice(at, 1);
      }
    } else if (directive === 'replace') replace = true;
    else if (directive === 'merge')
      throw new PatchError('merging lists cannot yet be specified in the patch', 500);
    else throw badPatchType(directive, item);
  }
  if (replace) {
    original = items.map(
      (item) => strategicMergePatch(undefined, item, mergeKeys, `${path}.*`) ?? {},
    );
    items = [];
    aliased = false;
  }
  const serverOrder = [...original];
  const merged = [...original];
  for (const item of items) {
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const at = indexIn(merged, item, mergeKey);
    const base = at >= 0 ? merged[at] : undefined;
    const value = strategicMergePatch(base, item, mergeKeys, `${path}.*`) ?? {};
    if (at >= 0) merged[at] = value;
    else {
      if (aliased && merged.length < serverArray.length) serverArray[merged.length] = item;
      merged.push(value);
    }
  }
  return { merged: normaliseOrder(merged, items, items, serverOrder, mergeKey), serverArray };
}

/**
 * The order kube-apiserver gives a merged list: the items named by `patchList` in `patchOrder`,
 * with the server's other items slotted in where they stood in `serverOrder`.
 */
function normaliseOrder(
  merged: JsonValue[],
  patchList: readonly JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
): JsonValue[] {
  const fromPatch = merged.filter((item) => indexIn(patchList, item, mergeKey) >= 0);
  const serverOnly = merged.filter((item) => indexIn(patchList, item, mergeKey) < 0);
  return interleave(
    sortBy(serverOnly, serverOrder, mergeKey),
    sortBy(fromPatch, patchOrder, mergeKey),
    serverOrder,
    mergeKey,
  );
}

/** Go's stable insertion sort with the real server's comparison (unknown items never move back). */
function sortBy(list: JsonValue[], order: readonly JsonValue[], mergeKey: string): JsonValue[] {
  const out = [...list];
  const less = (a: JsonValue, b: JsonValue): boolean => {
    const ia = indexIn(order, a, mergeKey);
    const ib = ia >= 0 ? indexIn(order, b, mergeKey) : -1;
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j] as JsonValue, out[j - 1] as JsonValue); j--) {
      [out[j - 1], out[j]] = [out[j] as JsonValue, out[j - 1] as JsonValue];
    }
  }
  return out;
}

/** Slots the server-only items (`left`) into the patch's (`right`), both sorted. */
function interleave(
  left: JsonValue[],
  right: JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
): JsonValue[] {
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++] as JsonValue);
    else if (i >= left.length) out.push(right[j++] as JsonValue);
    else {
      const li = indexIn(serverOrder, left[i] as JsonValue, mergeKey);
      const ri = indexIn(serverOrder, right[j] as JsonValue, mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] as JsonValue);
      else out.push(right[j++] as JsonValue);
    }
  }
  return out;
}

/** A list field patched with a `$setElementOrder` directive: merged, then put in that order. */
function orderedList(
  target: JsonValue | undefined,
  patch: JsonValue | undefined,
  order: JsonValue[],
  mergeKeys: MergeKeys,
  path: string,
): JsonValue[] | undefined {
  const mergeKey = mergeKeys[path] ?? '';
  const patchList = Array.isArray(patch) ? patch : [];
  checkOrderMatchesPatch(patchList, order, mergeKey);
  const original = Array.isArray(target) ? target : undefined;
  let serverOrder: JsonValue[] = original ?? [];
  let merged: JsonValue[];
  if (original && patch === undefined) merged = [...original];
  else if (!original && Array.isArray(patch))
    merged = patchList.map(
      (item) => strategicMergePatch(undefined, item, mergeKeys, `${path}.*`) ?? {},
    );
  else if (original && Array.isArray(patch)) {
    const result = mergeListAliased(original, patchList, mergeKey, mergeKeys, path);
    merged = result.merged;
    serverOrder = result.serverArray;
  } else return undefined;
  return normaliseOrder(merged, order, order, serverOrder, mergeKey);
}

/** The patch's items must appear in the `$setElementOrder` list in the same order. */
function checkOrderMatchesPatch(patch: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patch.length === 0) return;
  const items = patch.filter((item) => !(isObject(item) && item.$patch === 'delete'));
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p] as JsonValue;
    if (isObject(item) && item.$patch !== undefined) {
      p++;
      continue;
    }
    if (jsonEqual(keyOf(item, mergeKey), keyOf(order[o] as JsonValue, mergeKey))) p++;
    o++;
  }
  if (p < items.length) {
    throw new PatchError(
      `The order in patch list:\n${goFormat(patch)}\n doesn't match $setElementOrder list:\n${goFormat(order)}\n`,
      500,
    );
  }
}
