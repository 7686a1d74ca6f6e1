import { isObject, type JsonValue } from '../patch.js';
import { invalid } from './field-errors.js';
import type { FieldError } from './names.js';

const MAX_ID = 2147483647;

/** Apimachinery's `IsValidUserID`/`IsValidGroupID`: 0 to 2³¹−1. */
function idErrors(value: JsonValue | undefined, field: string): FieldError[] {
  if (typeof value !== 'number' || (value >= 0 && value <= MAX_ID)) return [];
  return [invalid(field, value, `must be between 0 and ${MAX_ID}, inclusive`)];
}

/** `ValidatePodSecurityContext`'s ids: `fsGroup`, `runAsUser`, `runAsGroup`, `supplementalGroups`. */
export function validatePodSecurityContext(context: JsonValue | undefined, path: string) {
  if (!isObject(context)) return [];
  const errors: FieldError[] = [];
  for (const id of ['fsGroup', 'runAsUser', 'runAsGroup']) {
    errors.push(...idErrors(context[id], `${path}.${id}`));
  }
  const groups = Array.isArray(context.supplementalGroups) ? context.supplementalGroups : [];
  groups.forEach((gid, i) => {
    errors.push(...idErrors(gid, `${path}.supplementalGroups[${i}]`));
  });
  return errors;
}

/**
 * `ValidateSecurityContext`'s ids of a container: `runAsUser`, `runAsGroup`. (Its refusal of
 * `privileged` beside `allowPrivilegeEscalation: false` quotes Go pointers' addresses, which
 * kubets cannot reproduce, so it is not checked.)
 */
export function validateContainerSecurityContext(context: JsonValue | undefined, path: string) {
  if (!isObject(context)) return [];
  return [
    ...idErrors(context.runAsUser, `${path}.runAsUser`),
    ...idErrors(context.runAsGroup, `${path}.runAsGroup`),
  ];
}
