import type { ManagedFieldsEntry } from '@kubets/apimachinery';
import { NO_SELF_OWNED, type SelfOwned } from './field-shapes.js';
import { SERVER_SET_METADATA, timestamp } from './object-meta.js';
import {
  clone,
  isObject,
  type JsonObject,
  type JsonValue,
  jsonEqual,
  type MergeKeys,
  strategicMergePatch,
} from './patch.js';

/**
 * Field ownership for server-side apply, simplified: a field set is a set of leaf paths (map
 * fields recursed into, list items keyed by their merge key, other lists atomic). Paths are
 * segment strings (`f:name`, `k:{"name":"c"}`) joined by NUL.
 */
const SEP = '\u0000';
const ITEM = '\u0001';

// Naming fields and what the server sets: no manager owns them (a generateName is owned).
const IGNORED_METADATA = new Set([
  'name',
  'namespace',
  'selfLink',
  'managedFields',
  ...SERVER_SET_METADATA,
]);

/** Which part of an object a write covers. */
export type FieldScope = 'main' | 'status' | 'all';

/** Leaf paths of `obj` mapped to their value's JSON (list-item markers map to `''`). */
export function leafMap(
  obj: JsonObject,
  mergeKeys: MergeKeys,
  scope: FieldScope,
  selfOwned: SelfOwned = NO_SELF_OWNED,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (scope === 'main' && key === 'status') continue;
    if (scope === 'status' && key !== 'status') continue;
    if (key === 'metadata' && isObject(value)) {
      for (const [mk, mv] of Object.entries(value)) {
        if (IGNORED_METADATA.has(mk)) continue;
        walk(mv, `f:metadata${SEP}f:${mk}`, `metadata.${mk}`, mergeKeys, selfOwned, out);
      }
      continue;
    }
    walk(value, `f:${key}`, key, mergeKeys, selfOwned, out);
  }
  return out;
}

/**
 * Lists whose items 1.20's field manager keys by several fields (their OpenAPI list-map keys)
 * where the strategic merge key is one: a container's ports. A key field an applied
 * configuration leaves out is keyed by its default (`k:{"containerPort":80,"protocol":"TCP"}`).
 */
const LIST_MAP_KEYS: readonly [RegExp, Readonly<Record<string, JsonValue>>][] = [
  [
    /(^|\.)(containers|initContainers|ephemeralContainers)\.\*\.ports$/,
    { containerPort: null, protocol: 'TCP' },
  ],
  // A Service's ports.
  [/^spec\.ports$/, { port: null, protocol: 'TCP' }],
];

/**
 * Lists of scalars the field manager treats as sets, each value owned on its own
 * (`v:"name"`): `metadata.finalizers`, a merge-strategy list of strings.
 */
const SET_LISTS = /^metadata\.finalizers$/;

function isScalarSet(dotted: string, value: JsonValue): value is JsonValue[] {
  return (
    SET_LISTS.test(dotted) &&
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => !isObject(item) && !Array.isArray(item))
  );
}

/** The `k:` segment of a list item: its key fields, in the schema's order. */
function itemSegment(item: JsonObject, dotted: string, mergeKey: string): string {
  const keys = LIST_MAP_KEYS.find(([path]) => path.test(dotted))?.[1] ?? { [mergeKey]: null };
  const key: JsonObject = {};
  for (const [name, fallback] of Object.entries(keys)) {
    const value = item[name] ?? fallback;
    if (value !== null) key[name] = value;
  }
  return `k:${JSON.stringify(key)}`;
}

/**
 * A null `creationTimestamp` in a nested object's metadata (a pod template's, as Go encodes an
 * unset time) is in no field set on 1.20.
 */
function unlisted(dotted: string, value: JsonValue): boolean {
  return value === null && /\.metadata\.creationTimestamp$/.test(dotted);
}

function walk(
  value: JsonValue,
  path: string,
  dotted: string,
  mergeKeys: MergeKeys,
  selfOwned: SelfOwned,
  out: Map<string, string>,
): void {
  if (unlisted(dotted, value)) return;
  const shape = selfOwned(dotted, value);
  if (shape === 'omitted') return;
  if (isObject(value) && Object.keys(value).length > 0 && shape !== 'atomic') {
    if (shape === true) out.set(`${path}${SEP}${ITEM}`, '');
    for (const [key, child] of Object.entries(value)) {
      walk(child, `${path}${SEP}f:${key}`, `${dotted}.${key}`, mergeKeys, selfOwned, out);
    }
    return;
  }
  if (isScalarSet(dotted, value)) {
    if (shape === true) out.set(`${path}${SEP}${ITEM}`, '');
    for (const item of value) out.set(`${path}${SEP}v:${JSON.stringify(item)}`, '');
    return;
  }
  const mergeKey = mergeKeys[dotted];
  if (Array.isArray(value) && mergeKey && value.every((i) => isObject(i) && mergeKey in i)) {
    if (shape === true) out.set(`${path}${SEP}${ITEM}`, '');
    for (const item of value as JsonObject[]) {
      const itemPath = `${path}${SEP}${itemSegment(item, dotted, mergeKey)}`;
      out.set(`${itemPath}${SEP}${ITEM}`, '');
      for (const [key, child] of Object.entries(item)) {
        walk(child, `${itemPath}${SEP}f:${key}`, `${dotted}.*.${key}`, mergeKeys, selfOwned, out);
      }
    }
    return;
  }
  out.set(path, JSON.stringify(value));
}

/**
 * The `FieldsV1` of every leaf of `obj` (what {@link toFieldsV1} of {@link leafMap}'s keys
 * gives), built directly: the fast path for creates and single-owner updates.
 */
export function fieldsTree(
  obj: JsonObject,
  mergeKeys: MergeKeys,
  scope: FieldScope,
  selfOwned: SelfOwned = NO_SELF_OWNED,
): JsonObject {
  const root: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (scope === 'main' && key === 'status') continue;
    if (scope === 'status' && key !== 'status') continue;
    if (key === 'metadata' && isObject(value)) {
      const metaNode: JsonObject = {};
      for (const [mk, mv] of Object.entries(value)) {
        if (IGNORED_METADATA.has(mk)) continue;
        metaNode[`f:${mk}`] = treeOf(mv, `metadata.${mk}`, mergeKeys, selfOwned);
      }
      if (Object.keys(metaNode).length > 0) root['f:metadata'] = sortedNode(metaNode);
      continue;
    }
    if (skipped(key, value, selfOwned)) continue;
    const node = treeOf(value, key, mergeKeys, selfOwned);
    if (emptiedImplicit(key, value, node, selfOwned)) continue;
    root[`f:${key}`] = node;
  }
  return sortedNode(root);
}

/** A struct the empty object has whose fields were all left out: as empty, no one's. */
function emptiedImplicit(
  dotted: string,
  value: JsonValue,
  node: JsonObject,
  selfOwned: SelfOwned,
): boolean {
  return (
    isObject(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(node).length === 0 &&
    selfOwned(dotted, value) === 'implicit'
  );
}

/**
 * Not in a create's field set: an empty struct the empty object has too (no change), an empty
 * slice or map tagged omitempty (not there once converted).
 */
function skipped(dotted: string, value: JsonValue, selfOwned: SelfOwned): boolean {
  const shape = selfOwned(dotted, value);
  if (shape === 'omitted') return true;
  return shape === 'implicit' && isObject(value) && Object.keys(value).length === 0;
}

/**
 * A FieldsV1 node with its members in structured-merge-diff's order: `.` first, then fields
 * by name, then list keys (what kube-apiserver writes, whatever order the object has).
 */
function sortedNode(node: JsonObject): JsonObject {
  const keys = Object.keys(node);
  const sorted = [...keys].sort();
  if (sorted.every((key, i) => key === keys[i])) return node;
  const out: JsonObject = {};
  for (const key of sorted) out[key] = node[key] as JsonValue;
  return out;
}

function treeOf(
  value: JsonValue,
  dotted: string,
  mergeKeys: MergeKeys,
  selfOwned: SelfOwned,
): JsonObject {
  const shape = selfOwned(dotted, value);
  if (isObject(value) && shape !== 'atomic') {
    const node: JsonObject = shape === true ? { '.': {} } : {};
    for (const [key, child] of Object.entries(value)) {
      const at = `${dotted}.${key}`;
      if (unlisted(at, child) || skipped(at, child, selfOwned)) continue;
      const childNode = treeOf(child, at, mergeKeys, selfOwned);
      if (emptiedImplicit(at, child, childNode, selfOwned)) continue;
      node[`f:${key}`] = childNode;
    }
    return sortedNode(node);
  }
  if (isScalarSet(dotted, value)) {
    const node: JsonObject = shape === true ? { '.': {} } : {};
    for (const item of value) node[`v:${JSON.stringify(item)}`] = {};
    return sortedNode(node);
  }
  const mergeKey = mergeKeys[dotted];
  if (Array.isArray(value) && mergeKey && value.every((i) => isObject(i) && mergeKey in i)) {
    const node: JsonObject = shape === true ? { '.': {} } : {};
    for (const item of value as JsonObject[]) {
      const itemNode: JsonObject = { '.': {} };
      for (const [key, child] of Object.entries(item)) {
        itemNode[`f:${key}`] = treeOf(child, `${dotted}.*.${key}`, mergeKeys, selfOwned);
      }
      node[itemSegment(item, dotted, mergeKey)] = sortedNode(itemNode);
    }
    return sortedNode(node);
  }
  return {};
}

/** Renders a field set as `FieldsV1`. */
export function toFieldsV1(paths: Iterable<string>): JsonObject {
  const root: JsonObject = {};
  for (const path of paths) {
    let node = root;
    for (const segment of path.split(SEP)) {
      const key = segment === ITEM ? '.' : segment;
      let next = node[key];
      if (!isObject(next)) {
        next = {};
        node[key] = next;
      }
      node = next;
    }
  }
  return root;
}

/** Parses `FieldsV1` back into a field set. */
export function fromFieldsV1(fields: unknown): Set<string> {
  const out = new Set<string>();
  const visit = (node: unknown, prefix: string): void => {
    if (!isObject(node)) return;
    const keys = Object.keys(node);
    if (keys.length === 0 && prefix) {
      out.add(prefix);
      return;
    }
    for (const key of keys) {
      const segment = key === '.' ? ITEM : key;
      visit(node[key], prefix ? `${prefix}${SEP}${segment}` : segment);
    }
  };
  visit(fields, '');
  return out;
}

/** `.spec.containers[name="c"].image`, as conflict messages print a path. */
export function describePath(path: string): string {
  let out = '';
  for (const segment of path.split(SEP)) {
    if (segment === ITEM) continue;
    if (segment.startsWith('f:')) out += `.${segment.slice(2)}`;
    else if (segment.startsWith('v:')) out += `[=${segment.slice(2)}]`;
    else if (segment.startsWith('k:')) {
      const keyObject = JSON.parse(segment.slice(2)) as Record<string, unknown>;
      out += `[${Object.entries(keyObject)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    }
  }
  return out;
}

interface Owner {
  entry: ManagedFieldsEntry;
  fields: Set<string>;
}

function owners(obj: JsonObject): Owner[] {
  const metadata = isObject(obj.metadata) ? obj.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? metadata.managedFields : [];
  return entries.filter(isObject).map((entry) => ({
    entry: { ...(entry as ManagedFieldsEntry) },
    fields: fromFieldsV1(entry.fieldsV1),
  }));
}

function store(obj: JsonObject, list: Owner[]): void {
  const metadata: JsonObject = isObject(obj.metadata) ? { ...obj.metadata } : {};
  obj.metadata = metadata;
  // 1.20 writes Apply entries before Update ones, each by time, then by manager.
  const kept = list
    .filter((o) => o.fields.size > 0)
    .sort(
      (a, b) =>
        compareText(a.entry.operation, b.entry.operation) ||
        compareText(a.entry.time, b.entry.time) ||
        compareText(a.entry.manager, b.entry.manager),
    );
  if (kept.length === 0) {
    delete metadata.managedFields;
    return;
  }
  metadata.managedFields = kept.map(
    (o) =>
      ({
        ...(o.entry as JsonObject),
        fieldsType: 'FieldsV1',
        fieldsV1: toFieldsV1([...o.fields].sort()),
      }) as JsonObject,
  );
}

function compareText(a: string | undefined, b: string | undefined): number {
  const x = a ?? '';
  const y = b ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `mine` restamped with this write's apiVersion and time, or a new entry added to `list`. */
function stamp(
  list: Owner[],
  mine: Owner | undefined,
  manager: string,
  operation: 'Update' | 'Apply',
  apiVersion: string,
): Owner {
  if (!mine) {
    const created: Owner = {
      entry: { manager, operation, apiVersion, time: timestamp() },
      fields: new Set(),
    };
    list.push(created);
    return created;
  }
  mine.entry = { ...mine.entry, apiVersion, time: timestamp() };
  return mine;
}

/** FieldsV1 trees known to cover every field of the object they were recorded on. */
const fullTrees = new WeakSet<object>();

/** A field-manager conflict found by {@link applyConfiguration}. */
export interface FieldConflict {
  manager: string;
  /** The owner's operation: conflicts with appliers are described without the version. */
  operation: string;
  apiVersion: string;
  path: string;
}

/** `conflict with "m" using v1` (updaters) or `conflict with "m"` (appliers), as 1.20 says. */
export function describeConflictOwner(conflict: FieldConflict): string {
  return conflict.operation === 'Apply'
    ? `"${conflict.manager}"`
    : `"${conflict.manager}" using ${conflict.apiVersion}`;
}

/** Thrown by {@link applyConfiguration} when fields owned by other managers would change. */
export class ApplyConflictError extends Error {
  constructor(readonly conflicts: FieldConflict[]) {
    const byManager = new Map<string, FieldConflict[]>();
    for (const c of conflicts) {
      const key = describeConflictOwner(c);
      byManager.set(key, [...(byManager.get(key) ?? []), c]);
    }
    const n = conflicts.length;
    const parts = [...byManager].map(([who, list]) =>
      list.length === 1
        ? `conflict with ${who}: ${describePath(list[0]?.path ?? '')}`
        : `conflicts with ${who}:\n${list.map((c) => `- ${describePath(c.path)}`).join('\n')}`,
    );
    super(`Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${parts.join('\n')}`);
    this.name = 'ApplyConflictError';
  }
}

/**
 * What an apply meets on an object that has no managedFields (a Scale, which does not carry its
 * object's): 1.20 first records every field it holds as owned by `before-first-apply`, so an
 * applied value that differs from one of `changed` (dotted paths) conflicts with it.
 */
export function beforeFirstApplyConflict(
  apiVersion: string,
  changed: readonly string[],
): ApplyConflictError {
  return new ApplyConflictError(
    changed.map((dotted) => ({
      manager: 'before-first-apply',
      operation: 'Update',
      apiVersion,
      path: dotted
        .split('.')
        .map((segment) => `f:${segment}`)
        .join(SEP),
    })),
  );
}

/**
 * Records an `Update` by `manager`: it takes ownership of the fields it changed, which other
 * managers lose. `oldObj` is undefined for a create. Mutates and returns `newObj`; `stored` is
 * false when `newObj` is the request as sent and not what will be stored.
 */
export function recordUpdate(
  oldObj: JsonObject | undefined,
  newObj: JsonObject,
  manager: string,
  apiVersion: string,
  mergeKeys: MergeKeys,
  scope: FieldScope,
  selfOwned: SelfOwned = NO_SELF_OWNED,
  stored = true,
): JsonObject {
  const rawEntries = isObject(newObj.metadata) ? newObj.metadata.managedFields : undefined;
  let entries = Array.isArray(rawEntries) ? rawEntries : [];
  const liveEntries = isObject(oldObj?.metadata) ? oldObj.metadata.managedFields : undefined;
  if (entries.length === 0 && Array.isArray(liveEntries) && liveEntries.length > 0) {
    // A body without managedFields keeps the live object's (clients that do not know them
    // must not wipe them): the write is then recorded against those owners.
    entries = liveEntries;
    newObj.metadata = {
      ...(isObject(newObj.metadata) ? newObj.metadata : {}),
      managedFields: entries,
    };
  }
  const single =
    Array.isArray(entries) && entries.length === 1 && isObject(entries[0]) ? entries[0] : undefined;
  if (
    !oldObj ||
    entries.length === 0 ||
    (single?.manager === manager && single.operation === 'Update')
  ) {
    // Fast path: a create, or an update by the only manager, which owns everything it set.
    const tree = fieldsTree(newObj, mergeKeys, scope, selfOwned);
    const owned =
      !oldObj ||
      !single ||
      (isObject(single.fieldsV1) && fullTrees.has(single.fieldsV1)) ||
      jsonEqual(single.fieldsV1, fieldsTree(oldObj, mergeKeys, scope, selfOwned));
    if (owned) {
      const metadata: JsonObject = isObject(newObj.metadata) ? { ...newObj.metadata } : {};
      newObj.metadata = metadata;
      if (Object.keys(tree).length === 0) delete metadata.managedFields;
      else {
        metadata.managedFields = [
          {
            manager,
            operation: 'Update',
            apiVersion,
            // 1.20 restamps a manager's entry only when its field set changes.
            time:
              single && typeof single.time === 'string' && jsonEqual(single.fieldsV1, tree)
                ? single.time
                : timestamp(),
            fieldsType: 'FieldsV1',
            fieldsV1: tree,
          },
        ];
        // Only a tree of what is stored covers the next update's old object.
        if (stored) fullTrees.add(tree);
      }
      return newObj;
    }
  }
  const before = oldObj ? leafMap(oldObj, mergeKeys, scope, selfOwned) : new Map<string, string>();
  const after = leafMap(newObj, mergeKeys, scope, selfOwned);
  const changed = new Set<string>();
  for (const [path, value] of after) if (before.get(path) !== value) changed.add(path);
  const removed = new Set<string>();
  for (const path of before.keys()) if (!after.has(path)) removed.add(path);
  const list = owners(newObj);
  if (changed.size === 0 && removed.size === 0) return newObj;
  let mine = list.find((o) => o.entry.manager === manager && o.entry.operation === 'Update');
  for (const o of list) {
    if (o === mine) continue;
    for (const p of changed) o.fields.delete(p);
    for (const p of removed) o.fields.delete(p);
  }
  const former = mine ? { fields: new Set(mine.fields), time: mine.entry.time } : undefined;
  mine = stamp(list, mine, manager, 'Update', apiVersion);
  for (const p of changed) mine.fields.add(p);
  for (const p of removed) mine.fields.delete(p);
  if (former?.time && former.fields.size === mine.fields.size) {
    if ([...mine.fields].every((p) => former.fields.has(p))) mine.entry.time = former.time;
  }
  store(newObj, list);
  return newObj;
}

function removePath(obj: JsonObject, path: string): void {
  const segments = path.split(SEP).filter((s) => s !== ITEM);
  const isItem = path.endsWith(ITEM);
  // A map's or list's own "." marks ownership only: its members go with their own paths.
  if (isItem && segments[segments.length - 1]?.startsWith('f:')) return;
  let node: JsonValue = obj;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    if (segment.startsWith('f:') && isObject(node)) {
      const key = segment.slice(2);
      if (last) {
        delete node[key];
        return;
      }
      node = node[key] as JsonValue;
    } else if (segment.startsWith('v:') && Array.isArray(node)) {
      const item = JSON.stringify(JSON.parse(segment.slice(2)));
      const at = node.findIndex((value) => JSON.stringify(value) === item);
      if (at >= 0 && last) node.splice(at, 1);
      return;
    } else if (segment.startsWith('k:') && Array.isArray(node)) {
      const keyObject = JSON.parse(segment.slice(2)) as JsonObject;
      const at = node.findIndex(
        (item) =>
          isObject(item) &&
          Object.entries(keyObject).every(
            ([k, v]) => JSON.stringify(item[k]) === JSON.stringify(v),
          ),
      );
      if (at < 0) return;
      if (last && isItem) {
        node.splice(at, 1);
        return;
      }
      node = node[at] as JsonValue;
    } else {
      return;
    }
    if (node === undefined) return;
  }
}

/**
 * Server-side apply of `config` by `manager` over `live` (undefined to create). Throws
 * {@link ApplyConflictError} when another manager owns a field whose value would change,
 * unless `force`. Returns the new object, with managedFields updated.
 */
export function applyConfiguration(
  live: JsonObject | undefined,
  config: JsonObject,
  manager: string,
  apiVersion: string,
  mergeKeys: MergeKeys,
  scope: FieldScope,
  force: boolean,
  selfOwned: SelfOwned = NO_SELF_OWNED,
): JsonObject {
  const configLeaves = leafMap(config, mergeKeys, scope, selfOwned);
  const liveLeaves = live ? leafMap(live, mergeKeys, scope, selfOwned) : new Map<string, string>();
  const list = live ? owners(live) : [];
  let mine = list.find((o) => o.entry.manager === manager && o.entry.operation === 'Apply');
  const conflicts: FieldConflict[] = [];
  for (const [path, value] of configLeaves) {
    const current = liveLeaves.get(path);
    if (current === undefined || current === value) continue;
    for (const o of list) {
      if (o === mine || !o.fields.has(path)) continue;
      conflicts.push({
        manager: o.entry.manager ?? '',
        operation: o.entry.operation ?? 'Update',
        apiVersion: o.entry.apiVersion ?? apiVersion,
        path,
      });
    }
  }
  if (conflicts.length > 0 && !force) throw new ApplyConflictError(conflicts);
  if (force) {
    for (const c of conflicts) {
      for (const o of list) if (o !== mine) o.fields.delete(c.path);
    }
  }
  const previous = mine?.fields ?? new Set<string>();
  // removePath mutates: work on a copy, the merge shares untouched subtrees with `live`.
  const merged = clone((strategicMergePatch(live ?? {}, config, mergeKeys) ?? {}) as JsonObject);
  if (live) keepLiveOrder(merged, live, '', mergeKeys);
  for (const path of previous) {
    if (configLeaves.has(path)) continue;
    if (list.some((o) => o !== mine && o.fields.has(path))) continue;
    removePath(merged, path);
  }
  mine = stamp(list, mine, manager, 'Apply', apiVersion);
  mine.fields = new Set(configLeaves.keys());
  store(merged, list);
  return merged;
}

/**
 * Puts the items of `merged`'s keyed lists in structured-merge-diff's order: the live object's
 * items first, as they were, then the ones the configuration adds (in its order).
 */
function keepLiveOrder(
  merged: JsonValue,
  live: JsonValue,
  dotted: string,
  mergeKeys: MergeKeys,
): void {
  if (isObject(merged) && isObject(live)) {
    for (const [key, child] of Object.entries(merged)) {
      if (key in live) {
        keepLiveOrder(child, live[key] as JsonValue, dotted ? `${dotted}.${key}` : key, mergeKeys);
      }
    }
    return;
  }
  const mergeKey = mergeKeys[dotted];
  if (!mergeKey || !Array.isArray(merged) || !Array.isArray(live)) return;
  const keyOf = (item: JsonValue): string | undefined =>
    isObject(item) ? JSON.stringify(item[mergeKey]) : undefined;
  const liveAt = new Map<string, number>();
  live.forEach((item, i) => {
    const key = keyOf(item);
    if (key !== undefined) liveAt.set(key, i);
  });
  const position = (item: JsonValue): number =>
    liveAt.get(keyOf(item) ?? '') ?? Number.POSITIVE_INFINITY;
  const ordered = merged
    .map((item, i) => ({ item, i }))
    .sort((a, b) => position(a.item) - position(b.item) || a.i - b.i);
  ordered.forEach(({ item }, i) => {
    merged[i] = item;
    const key = keyOf(item);
    const liveItem = key === undefined ? undefined : live[liveAt.get(key) ?? -1];
    if (liveItem !== undefined) keepLiveOrder(item, liveItem, `${dotted}.*`, mergeKeys);
  });
}
