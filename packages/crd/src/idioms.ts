/**
 * TypeBox builders for the Kubernetes schema idioms a CRD needs and plain JSON Schema lacks:
 * int-or-string, list-maps and sets, maps of one value type, fields kept unpruned and embedded
 * objects. Each is an ordinary TypeBox schema carrying the `x-kubernetes-*` extension, so it
 * nests anywhere and `Static` gives its TypeScript type.
 */
import type { KubeObject } from '@kubets/apimachinery';
import Type, {
  type Static,
  type TArray,
  type TArrayOptions,
  type TObject,
  type TSchema,
  type TSchemaOptions,
  type TUnsafe,
} from 'typebox';

/**
 * A value that is an integer or a string (`x-kubernetes-int-or-string`), as a Service's
 * `targetPort` (`8080` or `"http"`) or a rolling update's `maxSurge` (`1` or `"25%"`).
 */
export function intOrString(options: TSchemaOptions = {}): TUnsafe<number | string> {
  return Type.Unsafe<number | string>({ ...options, 'x-kubernetes-int-or-string': true });
}

/**
 * A list whose items are objects identified by `keys` (`x-kubernetes-list-type: map`), as a
 * Pod's containers by `name`: server-side apply merges entries by key, and the API server
 * refuses two entries with the same key. kube-apiserver requires every key to be a required
 * property of the item or to have a default; the check of `defineCustomResource` says so.
 */
export function listMap<T extends TObject, const K extends keyof Static<T> & string>(
  item: T,
  keys: readonly [K, ...K[]],
  options: TArrayOptions = {},
): TArray<T> {
  return Type.Array(item, {
    ...options,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': [...keys],
  });
}

/** A list of scalars without duplicates (`x-kubernetes-list-type: set`), merged as a set. */
export function listSet<T extends TSchema>(item: T, options: TArrayOptions = {}): TArray<T> {
  return Type.Array(item, { ...options, 'x-kubernetes-list-type': 'set' });
}

/** A list replaced as a whole by server-side apply (`x-kubernetes-list-type: atomic`). */
export function atomicList<T extends TSchema>(item: T, options: TArrayOptions = {}): TArray<T> {
  return Type.Array(item, { ...options, 'x-kubernetes-list-type': 'atomic' });
}

/**
 * A map from any string key to values of `value`'s schema (`additionalProperties`), as
 * labels are a map of strings: `stringMap(Type.String())`.
 */
export function stringMap<T extends TSchema>(
  value: T,
  options: TSchemaOptions = {},
): TUnsafe<Record<string, Static<T>>> {
  return Type.Unsafe<Record<string, Static<T>>>({
    ...options,
    type: 'object',
    additionalProperties: value,
  });
}

/**
 * An object whose fields the API server keeps as they are, unchecked and unpruned
 * (`x-kubernetes-preserve-unknown-fields`): free-form configuration. `T` is the type the
 * program reads it as (default `Record<string, unknown>`).
 */
export function preserveUnknownFields<T = Record<string, unknown>>(
  options: TSchemaOptions = {},
): TUnsafe<T> {
  return Type.Unsafe<T>({
    ...options,
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  });
}

/**
 * A whole Kubernetes object inside the resource (`x-kubernetes-embedded-resource`), as a
 * template: the API server checks its `apiVersion`, `kind` and `metadata` as an object's
 * and keeps its other fields.
 */
export function embeddedResource<T extends KubeObject = KubeObject>(
  options: TSchemaOptions = {},
): TUnsafe<T> {
  return Type.Unsafe<T>({
    ...options,
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
  });
}
