import type { KubeObject, ListMeta, ObjectMeta } from '@kubets/apimachinery';

/**
 * Any Kubernetes object as plain JSON (client-go's `unstructured.Unstructured`): type meta,
 * metadata and whatever else the resource has, as unknown values. Read nested fields with
 * {@link nestedString} and friends, or convert to a typed object with
 * {@link fromUnstructured}.
 */
export interface Unstructured extends KubeObject {
  /** `group/version` of the object, e.g. `apps/v1`. */
  apiVersion: string;
  /** The object's kind, e.g. `Deployment`. */
  kind: string;
  /** Standard object metadata. */
  metadata: ObjectMeta;
}

/**
 * A list of {@link Unstructured} objects. Lists returned by the dynamic client give every
 * item the list's `apiVersion` and its `kind` without the `List` suffix, as client-go does.
 */
export interface UnstructuredList {
  /** `group/version` of the list. */
  apiVersion: string;
  /** The list kind, e.g. `DeploymentList`. */
  kind: string;
  /** The list's version and paging information. */
  metadata: ListMeta;
  /** The listed objects. */
  items: Unstructured[];
  [field: string]: unknown;
}

/** A JSON object, as the nested-field helpers walk it. */
export type UnstructuredContent = Readonly<Record<string, unknown>>;

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** True for a plain object with string `apiVersion` and `kind` and an object `metadata`. */
export function isUnstructured(value: unknown): value is Unstructured {
  return (
    isMap(value) &&
    typeof value.apiVersion === 'string' &&
    typeof value.kind === 'string' &&
    isMap(value.metadata)
  );
}

/**
 * A nested field exists but has the wrong type, or a step of the path is not an object.
 * It is a `TypeError` naming the path and what was found, e.g.
 * `.spec.replicas accessor error: "3" is of type string, expected number`.
 */
export class UnstructuredFieldError extends TypeError {
  /** The path that was read or written. */
  readonly path: readonly string[];

  constructor(path: readonly string[], message: string) {
    super(`.${path.join('.')} accessor error: ${message}`);
    this.name = 'UnstructuredFieldError';
    this.path = path;
  }
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value);
  const shown =
    text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 60)}...` : text;
  return `${shown} is of type ${typeName(value)}`;
}

/**
 * The value at `path` without copying it (client-go's `NestedFieldNoCopy`), or `undefined`
 * when any step is missing. JSON has no `undefined`, so `undefined` always means "not
 * found"; a `null` in the object is returned as `null`.
 *
 * @throws {UnstructuredFieldError} when a step before the last is present but not an object.
 */
export function nestedField(obj: UnstructuredContent, ...path: string[]): unknown {
  let current: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    if (!isMap(current)) {
      if (current === undefined) return undefined;
      throw new UnstructuredFieldError(
        path.slice(0, i),
        `${describeValue(current)}, expected an object`,
      );
    }
    const key = path[i] as string;
    if (!Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** Like {@link nestedField}, but returns a deep copy (client-go's `NestedFieldCopy`). */
export function nestedFieldCopy(obj: UnstructuredContent, ...path: string[]): unknown {
  const value = nestedField(obj, ...path);
  return value === undefined ? undefined : structuredClone(value);
}

function typed<T>(
  obj: UnstructuredContent,
  path: string[],
  expected: string,
  check: (value: unknown) => value is T,
): T | undefined {
  const value = nestedField(obj, ...path);
  // Go clients serialize empty slices and maps as `null`: for a typed read that is "absent".
  if (value === undefined || value === null) return undefined;
  if (!check(value))
    throw new UnstructuredFieldError(path, `${describeValue(value)}, expected ${expected}`);
  return value;
}

/**
 * The string at `path`, or `undefined` when absent. For this and the other typed getters,
 * `null` counts as absent (Kubernetes writes `null` for empty lists and maps).
 *
 * @throws {UnstructuredFieldError} when the value is not a string.
 */
export function nestedString(obj: UnstructuredContent, ...path: string[]): string | undefined {
  return typed(obj, path, 'string', (v): v is string => typeof v === 'string');
}

/**
 * The boolean at `path`, or `undefined` when absent.
 *
 * @throws {UnstructuredFieldError} when the value is not a boolean.
 */
export function nestedBool(obj: UnstructuredContent, ...path: string[]): boolean | undefined {
  return typed(obj, path, 'boolean', (v): v is boolean => typeof v === 'boolean');
}

/**
 * The integer at `path` (client-go's `NestedInt64`), or `undefined` when absent. JSON
 * numbers arrive as JS numbers, so integers beyond 2^53 have already lost precision.
 *
 * @throws {UnstructuredFieldError} when the value is not an integer.
 */
export function nestedInt64(obj: UnstructuredContent, ...path: string[]): number | undefined {
  return typed(obj, path, 'an integer', (v): v is number => Number.isInteger(v));
}

/**
 * The number at `path`, or `undefined` when absent.
 *
 * @throws {UnstructuredFieldError} when the value is not a number.
 */
export function nestedFloat64(obj: UnstructuredContent, ...path: string[]): number | undefined {
  return typed(obj, path, 'number', (v): v is number => typeof v === 'number');
}

/**
 * A copy of the array of strings at `path`, or `undefined` when absent.
 *
 * @throws {UnstructuredFieldError} when the value is not an array of strings.
 */
export function nestedStringSlice(
  obj: UnstructuredContent,
  ...path: string[]
): string[] | undefined {
  const value = typed(
    obj,
    path,
    'an array of strings',
    (v): v is string[] => Array.isArray(v) && v.every((item) => typeof item === 'string'),
  );
  return value === undefined ? undefined : [...value];
}

/**
 * A deep copy of the array at `path`, or `undefined` when absent.
 *
 * @throws {UnstructuredFieldError} when the value is not an array.
 */
export function nestedSlice(obj: UnstructuredContent, ...path: string[]): unknown[] | undefined {
  const value = typed(obj, path, 'array', (v): v is unknown[] => Array.isArray(v));
  return value === undefined ? undefined : structuredClone(value);
}

/**
 * A deep copy of the object at `path`, or `undefined` when absent.
 *
 * @throws {UnstructuredFieldError} when the value is not an object.
 */
export function nestedMap(
  obj: UnstructuredContent,
  ...path: string[]
): Record<string, unknown> | undefined {
  const value = typed(obj, path, 'an object', isMap);
  return value === undefined ? undefined : structuredClone(value);
}

/**
 * A copy of the string-to-string object at `path` (labels, annotations, ConfigMap data),
 * or `undefined` when absent.
 *
 * @throws {UnstructuredFieldError} when the value is not an object of strings.
 */
export function nestedStringMap(
  obj: UnstructuredContent,
  ...path: string[]
): Record<string, string> | undefined {
  const value = typed(
    obj,
    path,
    'an object of strings',
    (v): v is Record<string, string> =>
      isMap(v) && Object.values(v).every((item) => typeof item === 'string'),
  );
  return value === undefined ? undefined : { ...value };
}

/**
 * Sets the value at `path`, creating missing objects on the way (client-go's
 * `SetNestedField`). The value is deep-copied first, so later changes to it do not leak in.
 *
 * @throws {UnstructuredFieldError} when a step of the path exists but is not an object.
 * @throws {TypeError} when `path` is empty.
 */
export function setNestedField(
  obj: Record<string, unknown>,
  value: unknown,
  ...path: string[]
): void {
  if (path.length === 0) throw new TypeError('setNestedField needs a path of at least one field');
  let current: Record<string, unknown> = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i] as string;
    const next = Object.hasOwn(current, key) ? current[key] : undefined;
    if (next === undefined || next === null) {
      const created: Record<string, unknown> = {};
      current[key] = created;
      current = created;
    } else if (isMap(next)) {
      current = next;
    } else {
      throw new UnstructuredFieldError(
        path.slice(0, i + 1),
        `value cannot be set because ${describeValue(next)}, not an object`,
      );
    }
  }
  current[path[path.length - 1] as string] = value === undefined ? value : structuredClone(value);
}

/**
 * Removes the field at `path` (client-go's `RemoveNestedField`); nothing happens when it
 * is absent or a step on the way is not an object.
 */
export function removeNestedField(obj: Record<string, unknown>, ...path: string[]): void {
  let current: unknown = obj;
  for (let i = 0; i < path.length - 1; i++) {
    if (!isMap(current)) return;
    current = current[path[i] as string];
  }
  const last = path[path.length - 1];
  if (last !== undefined && isMap(current)) delete current[last];
}

/** What {@link fromUnstructured} and {@link toTypedList} check, and whether they copy. */
export interface ConversionCheck {
  /** The `apiVersion` the object must have, e.g. `v1` or `apps/v1`. */
  apiVersion?: string;
  /** The `kind` the object must have (for {@link toTypedList}: the item kind, e.g. `Pod`). */
  kind?: string;
  /** Return a deep copy instead of the same object (default `false`: no copy, no cost). */
  clone?: boolean;
}

/** An unstructured object did not have the apiVersion/kind the conversion expected. */
export class UnstructuredConversionError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'UnstructuredConversionError';
  }
}

function objectName(obj: Record<string, unknown>): string {
  const metadata = isMap(obj.metadata) ? obj.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
  return namespace ? `${namespace}/${name}` : name;
}

function verify(
  obj: unknown,
  check: ConversionCheck,
  what: string,
): asserts obj is Record<string, unknown> {
  if (!isMap(obj)) {
    throw new UnstructuredConversionError(`${what} is not an object (got ${typeName(obj)})`);
  }
  const problems: string[] = [];
  if (check.apiVersion !== undefined && obj.apiVersion !== check.apiVersion) {
    problems.push(
      `apiVersion is ${JSON.stringify(obj.apiVersion) ?? 'missing'}, expected "${check.apiVersion}"`,
    );
  }
  if (check.kind !== undefined && obj.kind !== check.kind) {
    problems.push(`kind is ${JSON.stringify(obj.kind) ?? 'missing'}, expected "${check.kind}"`);
  }
  if (problems.length > 0) {
    const name = objectName(obj);
    throw new UnstructuredConversionError(
      `cannot convert ${what}${name ? ` "${name}"` : ''}: ${problems.join('; ')}`,
    );
  }
}

/**
 * Treats an unstructured object as a typed one (the use of client-go's
 * `DefaultUnstructuredConverter.FromUnstructured`), after checking its `apiVersion` and
 * `kind` when asked. Types are compile-time only, so this checks the identity of the
 * object, not every field.
 *
 * By default the same object is returned (typed), so changes to one show in the other;
 * pass `clone: true` for an independent deep copy.
 *
 * @throws {UnstructuredConversionError} naming the object and each mismatch, e.g.
 *   `cannot convert object "default/web": kind is "Deployment", expected "Pod"`.
 */
export function fromUnstructured<T>(obj: unknown, check: ConversionCheck = {}): T {
  verify(obj, check, 'object');
  return (check.clone ? structuredClone(obj) : obj) as T;
}

/** A list of typed objects, as {@link toTypedList} returns it. */
export interface TypedList<T> {
  /** `group/version` of the list. */
  apiVersion: string;
  /** The list kind, e.g. `DeploymentList`. */
  kind: string;
  /** The list's version and paging information. */
  metadata: ListMeta;
  /** The listed objects, converted to `T`. */
  items: T[];
}

/**
 * Converts an unstructured list (e.g. from `dynamic.resource(pods).list()`) to a typed
 * list. The list must be `<kind>List` in `apiVersion` (when it says), and every item must
 * be `kind` in `apiVersion` (items that carry neither are taken to be what the list says).
 *
 * ```ts
 * const pods = toTypedList<Pod>(await dynamic.resource(podsGVR).namespace('default').list(),
 *   { apiVersion: 'v1', kind: 'Pod' });
 * ```
 *
 * No copies unless `clone: true` (see {@link fromUnstructured}).
 *
 * @throws {UnstructuredConversionError} naming the first offending item and its index.
 */
export function toTypedList<T>(
  list:
    | UnstructuredList
    | { apiVersion?: string; kind?: string; metadata?: ListMeta; items: unknown[] },
  expected: ConversionCheck & { apiVersion: string; kind: string },
): TypedList<T> {
  const listCheck: ConversionCheck = {
    ...(list.apiVersion !== undefined ? { apiVersion: expected.apiVersion } : {}),
    ...(list.kind !== undefined ? { kind: `${expected.kind}List` } : {}),
  };
  verify(list, listCheck, 'list');
  if (!Array.isArray(list.items)) {
    throw new UnstructuredConversionError('cannot convert list: "items" is not an array');
  }
  const items = list.items.map((item, index) => {
    if (isMap(item) && item.apiVersion === undefined && item.kind === undefined) {
      verify(item, {}, `item ${index}`);
    } else {
      verify(item, expected, `item ${index}`);
    }
    return (expected.clone ? structuredClone(item) : item) as T;
  });
  return {
    apiVersion: list.apiVersion ?? expected.apiVersion,
    kind: list.kind ?? `${expected.kind}List`,
    metadata: (expected.clone ? structuredClone(list.metadata) : list.metadata) ?? {},
    items,
  };
}
