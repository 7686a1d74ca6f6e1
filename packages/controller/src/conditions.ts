/** A condition's status, as meta/v1 defines it. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * One entry of a `status.conditions` list in the meta/v1 `Condition` shape, in wire format
 * (`lastTransitionTime` is an RFC 3339 string).
 */
export interface Condition {
  /** The condition's type in CamelCase, e.g. `Ready`, `Available`. */
  type: string;
  /** Whether the condition holds. */
  status: ConditionStatus;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
  /** When `status` last changed (RFC 3339, whole seconds). */
  lastTransitionTime: string;
  /** A CamelCase, machine-readable reason for the last transition. */
  reason: string;
  /** A human-readable message about the transition. */
  message: string;
}

/**
 * What {@link setStatusCondition} takes: a {@link Condition} whose `lastTransitionTime` may
 * be left out (then the time of the change is used).
 */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & {
  /** When the status changed; default: now, if it changed. */
  lastTransitionTime?: string;
};

/**
 * Sets `newCondition` in `conditions` (apimachinery's `meta.SetStatusCondition`): appended
 * when its type is missing; otherwise status, reason, message and observedGeneration are
 * updated in place, and `lastTransitionTime` changes only when the status does (to the given
 * one, or `now`). Returns whether anything changed, so the status is written only then.
 */
export function setStatusCondition(
  conditions: Condition[],
  newCondition: ConditionInput,
  now: Date = new Date(),
): boolean {
  checkCondition(newCondition);
  const existing = findStatusCondition(conditions, newCondition.type);
  if (existing === undefined) {
    conditions.push({
      ...newCondition,
      lastTransitionTime: newCondition.lastTransitionTime || rfc3339(now),
    });
    return true;
  }
  let changed = false;
  if (existing.status !== newCondition.status) {
    existing.status = newCondition.status;
    existing.lastTransitionTime = newCondition.lastTransitionTime || rfc3339(now);
    changed = true;
  }
  if (existing.reason !== newCondition.reason) {
    existing.reason = newCondition.reason;
    changed = true;
  }
  if (existing.message !== newCondition.message) {
    existing.message = newCondition.message;
    changed = true;
  }
  if (existing.observedGeneration !== newCondition.observedGeneration) {
    if (newCondition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = newCondition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of `type` from `conditions`; returns whether there was one. */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const at = conditions.findIndex((c) => c.type === type);
  if (at === -1) return false;
  conditions.splice(at, 1);
  return true;
}

/** The condition of `type`, or `undefined`. It is the list's own entry, not a copy. */
export function findStatusCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of `type` is present with status `True`. */
export function isStatusConditionTrue(
  conditions: readonly Condition[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/** Whether the condition of `type` is present with status `False`. */
export function isStatusConditionFalse(
  conditions: readonly Condition[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}

/** Whether the condition of `type` is present with `status`. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: ConditionStatus,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

// meta/v1 Time is serialized in whole seconds; writing milliseconds would make every
// comparison with what the server returns differ.
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

const statuses: readonly string[] = ['True', 'False', 'Unknown'];

function checkCondition(condition: ConditionInput): void {
  if (typeof condition.type !== 'string' || condition.type === '') {
    throw new TypeError(
      `condition type must be a non-empty string, got ${JSON.stringify(condition.type)}`,
    );
  }
  if (!statuses.includes(condition.status)) {
    throw new TypeError(
      `condition ${condition.type}: status must be True, False or Unknown, got ${JSON.stringify(condition.status)}`,
    );
  }
}
