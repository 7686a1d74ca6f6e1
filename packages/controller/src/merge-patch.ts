import { jsonEqual } from '@kubets/apimachinery';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The RFC 7386 JSON merge patch that turns `before` into `after`: changed and new fields
 * with their new values, removed fields as `null`; arrays are replaced whole. Returns an
 * empty object when nothing changed.
 */
export function createMergePatch(before: object, after: object): Record<string, unknown> {
  return diffObjects(before as Record<string, Json>, after as Record<string, Json>);
}

function diffObjects(
  before: Record<string, Json>,
  after: Record<string, Json>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) {
    if (!(key in after) || after[key] === undefined) {
      if (before[key] !== undefined) patch[key] = null;
    }
  }
  for (const [key, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before[key];
    if (isPlainObject(old) && isPlainObject(value)) {
      const nested = diffObjects(old, value);
      if (Object.keys(nested).length > 0) patch[key] = nested;
    } else if (!jsonEqual(old, value)) {
      patch[key] = value;
    }
  }
  return patch;
}

function isPlainObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
