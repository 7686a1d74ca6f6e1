import { coreEventFromEventsApi, isCoreEvents, isEventsApi } from '../event-versions.js';
import { meta } from '../object-meta.js';
import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import type { ResourceDefinition } from '../resources.js';
import { invalid, invalidEach, required } from './field-errors.js';
import { qualifiedNameProblems } from './metadata.js';
import { type FieldError, validateObjectName } from './names.js';

/**
 * Event validation as kube-apiserver 1.20 does it. Both APIs store the same core Event, and the
 * rules read that form, so a cause names the core field even when the request came through
 * events.k8s.io (`message`, not `note`; `reportingController` on both). Writes through core/v1
 * get the lenient checks old clients rely on; creates through events.k8s.io/v1 the strict ones.
 */

/** Whether `definition` is either Event API. */
export function isEventResource(
  definition: Pick<ResourceDefinition, 'group' | 'resource'>,
): boolean {
  return isCoreEvents(definition) || isEventsApi(definition);
}

/** Byte limits of 1.20 (`len` of a Go string counts bytes). */
const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/**
 * The causes of an Event's create. `nameErrors` are the generic metadata checks' name causes;
 * 1.20 runs those checks (name, labels, annotations) only when the Event's own rules pass.
 */
export function validateEventCreate(
  definition: Pick<ResourceDefinition, 'group' | 'resource'>,
  obj: JsonObject,
  nameErrors: FieldError[],
  metadataErrors: FieldError[],
): FieldError[] {
  const event = coreForm(definition, obj);
  const errors = legacyEventErrors(event, namespaceOf(obj));
  if (isEventsApi(definition)) errors.push(...strictCreateErrors(obj, event, metadataErrors));
  return errors.length > 0 ? errors : [...nameErrors, ...metadataErrors];
}

/**
 * The causes of an Event's update. 1.20's update strategy compares the new Event with itself
 * (its "old" Event is the new one), so no field is immutable and a changed `series` is never
 * checked: what remains is the metadata checked twice in common, the lenient rules, and through
 * events.k8s.io the metadata a third time.
 */
export function validateEventUpdate(
  definition: Pick<ResourceDefinition, 'group' | 'resource'>,
  next: JsonObject,
  metadataErrors: FieldError[],
): FieldError[] {
  const errors = [
    ...metadataErrors,
    ...metadataErrors,
    ...legacyEventErrors(coreForm(definition, next), namespaceOf(next)),
  ];
  if (isEventsApi(definition)) errors.push(...metadataErrors);
  return errors;
}

function coreForm(
  definition: Pick<ResourceDefinition, 'group' | 'resource'>,
  obj: JsonObject,
): JsonObject {
  return isEventsApi(definition) ? coreEventFromEventsApi(obj) : obj;
}

function namespaceOf(obj: JsonObject): string {
  return text(meta(obj).namespace);
}

function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

/** A Go time that is not its zero value: JSON `null` or an absent field decode to zero. */
function isTimeSet(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null && value !== '';
}

/** Required when `mustBeSet`, and at most `limit` bytes. */
function boundedText(
  field: string,
  value: string,
  limit: number,
  mustBeSet: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  if (mustBeSet && value === '') errors.push(required(field));
  if (Buffer.byteLength(value, 'utf8') > limit) {
    errors.push(invalid(field, '', `can have at most ${limit} characters`));
  }
  return errors;
}

/**
 * The rules every Event passes, through either API. An Event without `eventTime` (an old
 * client's) only needs its involved object in its own namespace (or none, when the Event is in
 * `default` or no namespace); one with `eventTime` needs the reporting fields.
 */
function legacyEventErrors(event: JsonObject, namespace: string): FieldError[] {
  const involved = isObject(event.involvedObject) ? event.involvedObject : {};
  const involvedNamespace = text(involved.namespace);
  const mismatch = invalid(
    'involvedObject.namespace',
    involvedNamespace,
    'does not match event.namespace',
  );
  if (!isTimeSet(event.eventTime)) {
    const agrees =
      involvedNamespace === ''
        ? namespace === '' || namespace === 'default'
        : involvedNamespace === namespace;
    return agrees ? [] : [mismatch];
  }
  const errors: FieldError[] = [];
  if (involvedNamespace === '' && namespace !== 'kube-system') errors.push(mismatch);
  const controller = text(event.reportingComponent);
  if (controller === '') errors.push(required('reportingController'));
  errors.push(...invalidEach('reportingController', controller, qualifiedNameProblems));
  errors.push(
    ...boundedText(
      'reportingInstance',
      text(event.reportingInstance),
      REPORTING_INSTANCE_LIMIT,
      true,
    ),
    ...boundedText('action', text(event.action), ACTION_LIMIT, true),
    ...boundedText('reason', text(event.reason), REASON_LIMIT, true),
    ...boundedText('message', text(event.message), NOTE_LIMIT, false),
  );
  return errors;
}

/** The rules only a create through events.k8s.io/v1 (and newer) adds. */
function strictCreateErrors(
  obj: JsonObject,
  event: JsonObject,
  metadataErrors: FieldError[],
): FieldError[] {
  const md = meta(obj);
  const name = text(md.name);
  const generateName = text(md.generateName);
  const errors = [
    ...validateObjectName(name || undefined, generateName || undefined, 'subdomain'),
    ...metadataErrors,
    ...seriesErrors(event.series),
  ];
  if (!isTimeSet(event.eventTime)) errors.push(required('eventTime'));
  const type = text(event.type);
  if (type !== 'Normal' && type !== 'Warning') {
    errors.push(invalid('type', '', `has invalid value: ${type}`));
  }
  const mustBeUnset = (field: string) => invalid(field, '', 'needs to be unset');
  if (isTimeSet(event.firstTimestamp)) errors.push(mustBeUnset('firstTimestamp'));
  if (isTimeSet(event.lastTimestamp)) errors.push(mustBeUnset('lastTimestamp'));
  if (typeof event.count === 'number' && event.count !== 0) errors.push(mustBeUnset('count'));
  const source = isObject(event.source) ? event.source : {};
  if (text(source.component) !== '' || text(source.host) !== '') {
    errors.push(mustBeUnset('source'));
  }
  return errors;
}

function seriesErrors(series: JsonValue | undefined): FieldError[] {
  if (!isObject(series)) return [];
  const errors: FieldError[] = [];
  const count = typeof series.count === 'number' ? series.count : 0;
  if (count < 2) errors.push(invalid('series.count', '', 'should be at least 2'));
  if (!isTimeSet(series.lastObservedTime)) errors.push(required('series.lastObservedTime'));
  return errors;
}
