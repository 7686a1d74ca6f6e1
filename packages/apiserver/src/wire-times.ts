import { daysIn } from './go-time.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import type { Target } from './target.js';
import { wireRoots, wireTypes } from './wire-types.generated.js';

/**
 * Rewrites a built-in object as kube-apiserver 1.20 stores it once decoded into its Go struct:
 * fields the struct does not have are dropped (`kind` and `apiVersion` are kept wherever they
 * are: the field tables leave TypeMeta out), maps' keys are sorted (Go encodes a map sorted:
 * labels, annotations, a ConfigMap's data, selectors), metav1.Time and metav1.MicroTime fields are in UTC,
 * a Time in whole seconds (`2006-01-02T15:04:05Z`), a MicroTime with six fractional digits.
 * Times that do not parse are left for the decoder's checks; custom resources keep what was
 * sent (their schema prunes them).
 */
export function normaliseWireObject(target: Target, obj: JsonObject): void {
  const { definition, version } = target;
  if (definition.custom) return;
  const root = wireRoots[`${definition.group}/${version}/${definition.kind}`];
  if (root) normaliseValue(obj, root);
}

function normaliseValue(value: JsonValue, type: string): JsonValue {
  if (type === 'time' || type === 'microtime') {
    return typeof value === 'string' ? (inUtc(value, type === 'microtime') ?? value) : value;
  }
  if (type.startsWith('map[string]')) {
    if (!isObject(value)) return value;
    // Go's encoding/json writes a map's keys sorted, whatever order they were sent in.
    const element = type.slice('map[string]'.length);
    const keys = Object.keys(value);
    const sorted = [...keys].sort();
    let rewritten = sorted.some((key, i) => key !== keys[i]);
    const next: JsonObject = {};
    for (const key of sorted) {
      const item = normaliseValue(value[key] as JsonValue, element);
      if (item !== value[key]) rewritten = true;
      next[key] = item;
    }
    return rewritten ? next : value;
  }
  if (type.startsWith('[]')) {
    if (Array.isArray(value)) {
      const element = type.slice(2);
      for (let i = 0; i < value.length; i++) {
        const next = normaliseValue(value[i] as JsonValue, element);
        if (next !== value[i]) value[i] = next;
      }
    }
    return value;
  }
  const struct = wireTypes[type];
  if (!struct || !isObject(value)) return value;
  for (const key of Object.keys(value)) {
    const field = struct.fields[key];
    if (!field) {
      // Unknown to the Go struct: the decoder skips it. Only values a request produced reach
      // here with such a key, never a stored (already decoded) part, so deleting is safe.
      if (key !== 'kind' && key !== 'apiVersion') delete value[key];
      continue;
    }
    // Assigned only when rewritten: a patched object may share parts with the stored one.
    const next = normaliseValue(value[key] as JsonValue, field[1]);
    if (next !== value[key]) value[key] = next;
  }
  return value;
}

/**
 * Go's RFC3339 with optional fractional seconds, as `time.Parse` reads it (a one-digit hour, and
 * `,` before the fraction, pass too).
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** `value` formatted in UTC as Go's Time (seconds) or MicroTime (microseconds) writes it. */
function inUtc(value: string, micro: boolean): string | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', sign, offH, offM] = m;
  // Out of range (month 13, 31 April, hour 24, ...): Date would roll it over into another
  // instant, so it is kept as sent instead of being rewritten into a different time.
  if (
    Number(month) < 1 ||
    Number(month) > 12 ||
    Number(day) < 1 ||
    Number(day) > daysIn(Number(month), Number(year)) ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59
  ) {
    return undefined;
  }
  const at = new Date(0);
  at.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  at.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM)) : 0;
  at.setTime(at.getTime() - offsetMinutes * 60_000);
  if (Number.isNaN(at.getTime())) return undefined;
  const seconds = at.toISOString().slice(0, 19);
  return micro ? `${seconds}.${fraction.slice(0, 6).padEnd(6, '0')}Z` : `${seconds}Z`;
}
