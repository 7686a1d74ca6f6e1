import { isObject, type JsonObject, type JsonValue } from './patch.js';

/**
 * The age of a duration as kube-apiserver's printers write it (`45s`, `3m20s`, `5h`, `12d`):
 * precise while it is short, coarser as it grows.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const rest = seconds % 60;
    return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const rest = minutes % 60;
    return rest === 0 ? `${hours}h` : `${hours}h${rest}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) {
    const rest = hours % 24;
    return rest === 0 ? `${days}d` : `${days}d${rest}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) {
    const rest = days % 365;
    return rest === 0 ? `${years}y` : `${years}y${rest}d`;
  }
  return `${years}y`;
}

/** The age of an RFC 3339 timestamp at `now`; `<unknown>` when there is none. */
export function ageOf(timestamp: JsonValue | undefined, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? '<unknown>' : humanDuration(now - at);
}

/** `k1=v1,k2=v2` in key order, `<none>` for no labels (a service selector, a node selector). */
export function formatLabels(labels: JsonValue | undefined): string {
  if (!isObject(labels)) return '<none>';
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${String(labels[k])}`).join(',');
}

/**
 * A label selector (`matchLabels` + `matchExpressions`) as a selector string, requirements
 * sorted by key; empty when it has none (the workload printers show it so).
 */
export function formatLabelSelector(selector: JsonValue | undefined): string {
  if (!isObject(selector)) return '';
  const requirements: [string, string][] = [];
  if (isObject(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels))
      requirements.push([key, `${key}=${String(value)}`]);
  }
  if (Array.isArray(selector.matchExpressions)) {
    for (const expression of selector.matchExpressions) {
      if (!isObject(expression) || typeof expression.key !== 'string') continue;
      const key = expression.key;
      const values = Array.isArray(expression.values)
        ? expression.values.map(String).sort().join(',')
        : '';
      const text =
        expression.operator === 'In'
          ? `${key} in (${values})`
          : expression.operator === 'NotIn'
            ? `${key} notin (${values})`
            : expression.operator === 'Exists'
              ? key
              : expression.operator === 'DoesNotExist'
                ? `!${key}`
                : undefined;
      if (text !== undefined) requirements.push([key, text]);
    }
  }
  return requirements
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, text]) => text)
    .join(',');
}

/** The object at a dotted path (`spec.template.spec`), or an empty object. */
export function objectAt(obj: JsonObject, path: string): JsonObject {
  let at: JsonValue = obj;
  for (const key of path.split('.')) {
    if (!isObject(at)) return {};
    at = at[key] ?? null;
  }
  return isObject(at) ? at : {};
}

/** The array at a key of `obj`, or an empty one. */
export function arrayAt(obj: JsonObject, key: string): JsonValue[] {
  const value = obj[key];
  return Array.isArray(value) ? value : [];
}

/** The number at a key of `obj`, or 0 (Go's zero value, as the printers show it). */
export function intAt(obj: JsonObject, key: string): number {
  const value = obj[key];
  return typeof value === 'number' ? value : 0;
}

/** The string at a key of `obj`, or `fallback`. */
export function stringAt(obj: JsonObject, key: string, fallback = ''): string {
  const value = obj[key];
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/** Names and images of a pod spec's containers, comma-separated, as the workload printers show them. */
export function containersAndImages(podSpec: JsonObject): [string, string] {
  const containers = arrayAt(podSpec, 'containers').filter(isObject);
  return [
    containers.map((c) => stringAt(c, 'name')).join(','),
    containers.map((c) => stringAt(c, 'image')).join(','),
  ];
}
