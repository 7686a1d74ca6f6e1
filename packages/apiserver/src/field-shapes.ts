import { isObject, type JsonObject, type JsonValue } from './patch.js';
import type { ResourceDefinition } from './resources.js';
import { wireOrder } from './wire-order.generated.js';
import { isEmptyCollection } from './wire-order.js';
import { wireRoots, wireTypes } from './wire-types.generated.js';

/**
 * What the field manager makes of the node at `dotted` (`spec.template.spec.containers.*.env`)
 * of value `value`: `true` when it is a member of an object's field set itself, beside its
 * children (`"."` in FieldsV1); `'atomic'` when it is one leaf, its children not listed (a
 * `+structType=atomic` struct such as a LabelSelector); `'implicit'` when it is a struct the
 * empty object already has (reached from the root through structs only), so that empty it is
 * no change and no one's; `'omitted'` for an empty slice or map tagged `omitempty`, which the
 * field manager's conversion leaves out; `false` otherwise.
 */
export type SelfOwned = (
  dotted: string,
  value: JsonValue,
) => boolean | 'atomic' | 'implicit' | 'omitted';

/** No node owns itself (list items aside, which always do). */
export const NO_SELF_OWNED: SelfOwned = () => false;

/**
 * Which nodes kube-apiserver 1.20's field manager lists with `"."` on a create: those absent from
 * the empty object it compares with. A custom resource's empty object has nothing but its
 * metadata, so every other map with fields is new. A built-in object's empty object, as Go
 * encodes it, holds every struct and every field without `omitempty`: so only maps of string keys
 * (labels, data, …) and keyed lists (but a pod's `containers`) are new, going by their Go types
 * (`wire-types.generated.ts`), and pointers to structs (e.g. `rollingUpdate`, as 1.20's Go
 * types declare them: `wire-order.generated.ts`). An Apply lists what its configuration holds
 * instead (see below).
 */
export function selfOwnedNodes(
  definition: ResourceDefinition,
  version: string,
  operation: 'Update' | 'Apply',
): SelfOwned {
  if (definition.custom) {
    if (operation === 'Update') {
      return (dotted, value) =>
        isObject(value) && Object.keys(value).length > 0 && dotted !== 'metadata';
    }
    // An applied configuration lists a map itself where it is not a field its parent's schema
    // declares (a member of a map, or kept as unknown); metadata is typed as ObjectMeta.
    const schema = definition.schemas?.[version];
    return (dotted, value) =>
      isObject(value) &&
      Object.keys(value).length > 0 &&
      !/^metadata(\.|$)/.test(dotted) &&
      !declaredField(schema, dotted);
  }
  const root = wireRoots[`${definition.group}/${version}/${definition.kind}`];
  if (!root) return NO_SELF_OWNED;
  // An applied configuration of a built-in object has only declared fields and list items.
  if (operation === 'Apply') {
    return (dotted) => (shapeAt(root, dotted)?.atomic ? 'atomic' : false);
  }
  return (dotted, value) => {
    const shape = shapeAt(root, dotted);
    if (shape === undefined) return false;
    if (shape.omitEmpty && isEmptyCollection(value)) return 'omitted';
    const { type } = shape;
    if (shape.atomic) return 'atomic';
    if (type.startsWith('map[') || shape.pointer) {
      return isObject(value) && Object.keys(value).length > 0;
    }
    if (shape.implicit && wireTypes[type]) return 'implicit';
    return (
      type.startsWith('[]') &&
      Array.isArray(value) &&
      value.length > 0 &&
      !dotted.endsWith('.containers') &&
      dotted !== 'containers'
    );
  };
}

interface Shape {
  readonly type: string;
  /** A pointer to a struct: not in the empty object. */
  readonly pointer: boolean;
  /** Reached from the root through (non-pointer) structs only: in the empty object. */
  readonly implicit: boolean;
  readonly atomic: boolean;
  readonly omitEmpty: boolean;
}

/** Shapes found so far, by root and path (paths of struct fields only: a bounded set). */
const shapes = new Map<string, Shape>();

/** The wire type at a dotted path below `root`, undefined past a map or an unknown field. */
function shapeAt(root: string, dotted: string): Shape | undefined {
  const key = `${root} ${dotted}`;
  const known = shapes.get(key);
  if (known) return known;
  const found = findShape(root, dotted);
  if (found) shapes.set(key, found);
  return found;
}

function findShape(root: string, dotted: string): Shape | undefined {
  let type = root;
  let pointer = false;
  let implicit = true;
  let omitEmpty = false;
  for (const segment of dotted.split('.')) {
    if (segment === '*') {
      if (!type.startsWith('[]')) return undefined;
      type = type.slice(2);
      implicit = false;
      omitEmpty = false;
      continue;
    }
    const field = wireTypes[type]?.fields[segment];
    if (!field) return undefined;
    pointer = wireOrder[type]?.pointers?.includes(segment) ?? false;
    omitEmpty = wireOrder[type]?.omitEmpty?.includes(segment) ?? false;
    if (pointer) implicit = false;
    type = field[1];
  }
  return { type, pointer, implicit, omitEmpty, atomic: wireOrder[type]?.atomic === true };
}

/** Whether the last segment of `dotted` is a property its parent's schema declares. */
function declaredField(schema: JsonObject | undefined, dotted: string): boolean {
  let node: JsonValue | undefined = schema;
  const segments = dotted.split('.');
  for (const [i, segment] of segments.entries()) {
    if (!isObject(node)) return false;
    if (segment === '*') {
      node = node.items;
      continue;
    }
    const properties = node.properties;
    const declared = isObject(properties) ? properties[segment] : undefined;
    if (i === segments.length - 1) return declared !== undefined;
    node =
      declared ?? (isObject(node.additionalProperties) ? node.additionalProperties : undefined);
  }
  return false;
}
