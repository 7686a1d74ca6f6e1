import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import type { FieldError } from './names.js';

/**
 * Builders of the causes kube-apiserver lists (apimachinery's `field.Invalid`, `Required`, …),
 * with its message formats: a string value is quoted, a number is not.
 */

/** `Invalid value: <value>: <problem>`. */
export function invalid(field: string, value: string | number, problem: string): FieldError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${problem}`, field };
}

/** `Required value`, or `Required value: <detail>`. */
export function required(field: string, detail = ''): FieldError {
  const message = detail === '' ? 'Required value' : `Required value: ${detail}`;
  return { reason: 'FieldValueRequired', message, field };
}

/** `Forbidden: <detail>`. */
export function forbidden(field: string, detail: string): FieldError {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

/** `Not found: <value>`. */
export function notFound(field: string, value: string): FieldError {
  return { reason: 'FieldValueNotFound', message: `Not found: ${JSON.stringify(value)}`, field };
}

/** One `Invalid value` cause per problem `check` finds with `value`. */
export function invalidEach(
  field: string,
  value: string,
  check: (value: string) => string[],
): FieldError[] {
  return check(value).map((problem) => invalid(field, value, problem));
}

/** `ValidateNonnegativeField`: a number below 0 is invalid. */
export function nonNegative(value: unknown, field: string): FieldError[] {
  if (typeof value !== 'number' || value >= 0) return [];
  return [invalid(field, value, 'must be greater than or equal to 0')];
}

/** Apimachinery's `IsValidPortNum`: 1–65535. */
export function portNumberProblems(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** The causes `check` finds in each object of `list`, an item at `path[i]`. */
export function eachObject(
  list: JsonValue | undefined,
  path: string,
  check: (item: JsonObject, at: string) => FieldError[],
): FieldError[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item, i) => (isObject(item) ? check(item, `${path}[${i}]`) : []));
}

/** A member of a union of which exactly one may be set, and its own checks. */
export interface UnionMember {
  /** The member's field on the wire. */
  key: string;
  /** Its name in a cause's field, when kube-apiserver spells it otherwise. */
  path?: string;
  check?: (value: JsonValue, at: string) => FieldError[];
}

/**
 * A union of which exactly one member must be set (a probe's handler, a volume's source):
 * the first set member is checked, each later one is `Forbidden`, none is `Required`.
 */
export function exactlyOneErrors(
  obj: JsonObject,
  members: readonly UnionMember[],
  path: string,
  kind: string,
): FieldError[] {
  const errors: FieldError[] = [];
  let found = false;
  for (const { key, path: name = key, check } of members) {
    const value = obj[key];
    if (value === undefined || value === null) continue;
    if (found) {
      errors.push(forbidden(`${path}.${name}`, `may not specify more than 1 ${kind} type`));
      continue;
    }
    found = true;
    if (check) errors.push(...check(value, `${path}.${name}`));
  }
  if (!found) errors.push(required(path, `must specify a ${kind} type`));
  return errors;
}
