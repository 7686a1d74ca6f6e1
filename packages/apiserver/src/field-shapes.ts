import { isObject, type JsonValue } from './patch.js';
import type { ResourceDefinition } from './resources.js';
import { wireRoots, wireTypes } from './wire-types.generated.js';

/**
 * Whether the node at `dotted` (`spec.template.spec.containers.*.env`) of value `value` is a
 * member of an object's field set itself, beside its children: `"."` in FieldsV1.
 */
export type SelfOwned = (dotted: string, value: JsonValue) => boolean;

/** No node owns itself (list items aside, which always do). */
export const NO_SELF_OWNED: SelfOwned = () => false;

/**
 * Which nodes kube-apiserver 1.20's field manager lists with `"."` on a create: those absent from
 * the empty object it compares with. A custom resource's empty object has nothing but its
 * metadata, so every other map with fields is new. A built-in object's empty object, as Go
 * encodes it, holds every struct and every field without `omitempty`: so only maps of string keys
 * (labels, data, …) and keyed lists (but a pod's `containers`) are new, going by their Go types
 * (`wire-types.generated.ts`). Pointers to structs (e.g. `rollingUpdate`) are not told apart
 * from structs there, and are left out. An Apply lists what its configuration holds instead
 * (see below).
 */
export function selfOwnedNodes(
  definition: ResourceDefinition,
  version: string,
  operation: 'Update' | 'Apply',
): SelfOwned {
  if (definition.custom) {
    // An applied configuration lists a map itself only where its schema declares no fields: all
    // of a custom resource but its metadata (typed as ObjectMeta).
    const skip = operation === 'Apply' ? /^metadata(\.|$)/ : /^metadata$/;
    return (dotted, value) =>
      isObject(value) && Object.keys(value).length > 0 && !skip.test(dotted);
  }
  // An applied configuration of a built-in object has only declared fields and list items.
  if (operation === 'Apply') return NO_SELF_OWNED;
  const root = wireRoots[`${definition.group}/${version}/${definition.kind}`];
  if (!root) return NO_SELF_OWNED;
  return (dotted, value) => {
    const type = typeAt(root, dotted);
    if (type === undefined) return false;
    if (type.startsWith('map[')) return isObject(value) && Object.keys(value).length > 0;
    return (
      type.startsWith('[]') &&
      Array.isArray(value) &&
      value.length > 0 &&
      !dotted.endsWith('.containers') &&
      dotted !== 'containers'
    );
  };
}

/** The wire type at a dotted path below `root`, undefined past a map or an unknown field. */
function typeAt(root: string, dotted: string): string | undefined {
  let type = root;
  for (const segment of dotted.split('.')) {
    if (segment === '*') {
      if (!type.startsWith('[]')) return undefined;
      type = type.slice(2);
      continue;
    }
    const field = wireTypes[type]?.fields[segment];
    if (!field) return undefined;
    type = field[1];
  }
  return type;
}
