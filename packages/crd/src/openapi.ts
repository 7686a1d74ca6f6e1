/**
 * From a TypeBox schema (JSON Schema 2020-12) to the OpenAPI v3 schema a CRD carries. Only the
 * rewrites that keep the meaning and the static type are made; anything else is left as it is,
 * for the structural-schema check to refuse with kube-apiserver's words.
 */
import { isObject, type JsonObject, type JsonValue } from '@kubets/apiextensions';

const CHILD_KEYS = ['items', 'additionalProperties', 'not'] as const;
const LIST_KEYS = ['allOf', 'anyOf', 'oneOf'] as const;
const ANY_KEY_PATTERN = '^.*$';

/** The OpenAPI type of every value, when they share one. */
function typeOfValues(values: JsonValue[]): string | undefined {
  const types = new Set(
    values.map((v) => {
      if (v === null) return 'null';
      if (Array.isArray(v)) return 'array';
      if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
      return typeof v;
    }),
  );
  const [only] = types;
  return types.size === 1 && only !== 'null' ? only : undefined;
}

/** A node that only lists values (`{type, enum}` or `{enum}`), as a literal union member is. */
function enumOnly(node: JsonObject): JsonValue[] | undefined {
  const keys = Object.keys(node).filter((k) => k !== 'type');
  return keys.length === 1 && Array.isArray(node.enum) ? node.enum : undefined;
}

/** `anyOf` members that are `{type: 'null'}`, and the others. */
function splitNull(members: JsonObject[]): [boolean, JsonObject[]] {
  const rest = members.filter((m) => !(m.type === 'null' && Object.keys(m).length === 1));
  return [rest.length < members.length, rest];
}

function rewrite(node: JsonObject): JsonObject {
  let out: JsonObject = { ...node };
  for (const key of CHILD_KEYS) {
    const child = out[key];
    if (isObject(child)) out[key] = rewrite(child);
  }
  for (const key of LIST_KEYS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((m) => (isObject(m) ? rewrite(m) : m));
  }
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([k, v]) => [k, isObject(v) ? rewrite(v) : v]),
    );
  }
  // `Type.Literal(x)`: OpenAPI v3 has no `const`; kube-apiserver would drop it unchecked.
  if (out.const !== undefined) {
    const { const: value, ...rest } = out;
    out = { ...rest, enum: [value] };
  }
  // `Type.Record(Type.String(), V)`: a map is `additionalProperties` in a structural schema.
  const patterns = out.patternProperties;
  if (isObject(patterns) && Object.keys(patterns).length === 1) {
    const value = patterns[ANY_KEY_PATTERN];
    if (isObject(value) && out.properties === undefined) {
      const { patternProperties: _, ...rest } = out;
      out = { ...rest, additionalProperties: value };
    }
  }
  if (Array.isArray(out.anyOf)) out = rewriteAnyOf(out, out.anyOf.filter(isObject));
  if (Array.isArray(out.enum) && out.type === undefined) {
    const type = typeOfValues(out.enum);
    if (type) out = { type, ...out };
  }
  return out;
}

/**
 * `Type.Union([X, Type.Null()])` is X with `nullable: true`; a union of literals of one type
 * is that type with an `enum`. Other unions stay (they are not structural).
 */
function rewriteAnyOf(node: JsonObject, members: JsonObject[]): JsonObject {
  const { anyOf: _, ...outer } = node;
  const [hadNull, rest] = splitNull(members);
  const nullable: JsonObject = hadNull ? { nullable: true } : {};
  if (rest.length === 1 && hadNull) return { ...(rest[0] as JsonObject), ...outer, ...nullable };
  const values = rest.map(enumOnly);
  if (rest.length > 0 && values.every((v) => v !== undefined)) {
    const all = values.flat() as JsonValue[];
    const type = typeOfValues(all);
    if (type) return { type, ...outer, enum: all, ...nullable };
  }
  return hadNull ? { ...outer, ...nullable, anyOf: rest } : node;
}

/**
 * The OpenAPI v3 form of a TypeBox schema for a CRD: a deep JSON copy in which literals become
 * `enum`, unions of literals of one type an `enum` of that type, a union with `Type.Null()`
 * a `nullable` schema, and `Type.Record(Type.String(), V)` an `additionalProperties` map. The
 * `x-kubernetes-*` extensions, defaults, bounds, patterns and `required` pass through.
 */
export function toOpenAPIV3(schema: unknown): JsonObject {
  const copy: unknown = JSON.parse(JSON.stringify(schema));
  if (!isObject(copy)) throw new TypeError('a CRD schema must be a JSON Schema object');
  return rewrite(copy);
}
