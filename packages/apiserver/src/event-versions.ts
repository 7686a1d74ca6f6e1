import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { apiVersionOf, type ResourceDefinition } from './resources.js';
import type { Target } from './target.js';

/**
 * The two Event APIs share one store, as in kube-apiserver: Events are kept as core/v1 Events
 * and converted on the way in and out of events.k8s.io. Field names, order and the fields Go's
 * encoder always writes (`null` times, `{}` structs, `""` reporting fields) follow 1.20.
 */

/** Whether `definition` is events.k8s.io's `events`, served from the core Event store. */
export function isEventsApi(definition: Pick<ResourceDefinition, 'group' | 'resource'>): boolean {
  return definition.group === 'events.k8s.io' && definition.resource === 'events';
}

/** Whether `definition` is core/v1 `events`. */
export function isCoreEvents(definition: Pick<ResourceDefinition, 'group' | 'resource'>): boolean {
  return definition.group === '' && definition.resource === 'events';
}

/**
 * The group a 422 of `definition`'s validation names: kube-apiserver validates an Event written
 * through events.k8s.io as the core Event it stores, and names that kind (`Event "x" is invalid`).
 */
export function validationGroup(
  definition: Pick<ResourceDefinition, 'group' | 'resource'>,
): string {
  return isEventsApi(definition) ? '' : definition.group;
}

/** core/v1 field ↔ events.k8s.io field, for the fields that are renamed. */
const RENAMED: readonly (readonly [core: string, events: string])[] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];

/** How Go writes a field when it holds its zero value: left out, or written as this value. */
type Zero = 'omit' | JsonValue;

/** core/v1 Event's fields in the order 1.20 writes them, and what a zero value writes. */
const CORE_FIELDS: readonly (readonly [string, Zero])[] = [
  ['involvedObject', {}],
  ['reason', 'omit'],
  ['message', 'omit'],
  ['source', {}],
  ['firstTimestamp', null],
  ['lastTimestamp', null],
  ['count', 'omit'],
  ['type', 'omit'],
  ['eventTime', null],
  ['series', 'omit'],
  ['action', 'omit'],
  ['related', 'omit'],
  ['reportingComponent', ''],
  ['reportingInstance', ''],
];

/** events.k8s.io Event's fields in the order 1.20 writes them, and what a zero value writes. */
const EVENTS_FIELDS: readonly (readonly [string, Zero])[] = [
  ['eventTime', null],
  ['series', 'omit'],
  ['reportingController', 'omit'],
  ['reportingInstance', 'omit'],
  ['action', 'omit'],
  ['reason', 'omit'],
  ['regarding', {}],
  ['related', 'omit'],
  ['note', 'omit'],
  ['type', 'omit'],
  ['deprecatedSource', {}],
  ['deprecatedFirstTimestamp', null],
  ['deprecatedLastTimestamp', null],
  ['deprecatedCount', 'omit'],
];

function isZero(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || value === '' || value === 0;
}

function build(
  source: JsonObject,
  apiVersion: string,
  fields: readonly (readonly [string, Zero])[],
  rename: ReadonlyMap<string, string>,
): JsonObject {
  const out: JsonObject = { kind: 'Event', apiVersion };
  if (source.metadata !== undefined) out.metadata = source.metadata;
  for (const [field, zero] of fields) {
    const value = source[rename.get(field) ?? field];
    if (!isZero(value)) out[field] = value as JsonValue;
    else if (zero !== 'omit') out[field] = isObject(zero) ? {} : zero;
  }
  return out;
}

const CORE_FROM_EVENTS = new Map(RENAMED.map(([core, events]) => [core, events]));
const EVENTS_FROM_CORE = new Map(RENAMED.map(([core, events]) => [events, core]));
const SAME = new Map<string, string>();

/** A core/v1 Event as 1.20 stores and writes it (unknown fields dropped). */
export function canonicalCoreEvent(event: JsonObject): JsonObject {
  return build(event, 'v1', CORE_FIELDS, SAME);
}

/** An events.k8s.io Event (any version) as the core/v1 Event it is stored as. */
export function coreEventFromEventsApi(event: JsonObject): JsonObject {
  return build(event, 'v1', CORE_FIELDS, CORE_FROM_EVENTS);
}

/** A stored core/v1 Event as events.k8s.io at `apiVersion` (`events.k8s.io/v1`) shows it. */
export function eventsApiFromCoreEvent(event: JsonObject, apiVersion: string): JsonObject {
  return build(event, apiVersion, EVENTS_FIELDS, EVENTS_FROM_CORE);
}

/**
 * A stored object as the request's API shows it: the base a patch or an apply through
 * events.k8s.io merges into. Other resources are stored as served.
 */
export function asServed(target: Target, obj: JsonObject): JsonObject {
  const { definition, version } = target;
  if (!isEventsApi(definition)) return obj;
  return eventsApiFromCoreEvent(obj, apiVersionOf(definition.group, version));
}
