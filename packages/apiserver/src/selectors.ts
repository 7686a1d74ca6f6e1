import {
  escapeFieldValue,
  type FieldSelector,
  type Fields,
  fieldsFromObject,
  type KubeObject,
  parseFieldSelector,
  parseSelector,
  type Selector,
} from '@kubets/apimachinery';
import { labelSelectorError } from './label-selector-errors.js';
import { isObject, type JsonObject } from './patch.js';
import { resourceKey } from './resources.js';
import { badRequest } from './status.js';
import type { Target } from './target.js';

/** Parsed selectors of a list or watch. */
export interface Selection {
  labels: Selector | undefined;
  fields: FieldSelector | undefined;
  /** Extra field paths the field selector may use for this resource. */
  fieldPaths: readonly string[];
  /** `group/resource`, which names the resource's {@link DERIVED_FIELDS}. */
  resourceKey: string;
}

/** Field-selector fields each resource supports beyond `metadata.name` and `metadata.namespace`. */
const FIELD_PATHS: Record<string, readonly string[]> = {
  '/pods': [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  '/events': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
  '/nodes': ['spec.unschedulable'],
  'batch/jobs': ['status.successful'],
  'batch/cronjobs': ['status.successful'],
};

/**
 * Selectable fields whose value is not the object's field of that name: the path they read
 * (none: the label is accepted but never set), and Go's text for the zero value (an integer is
 * "0" when the object leaves it out).
 */
const DERIVED_FIELDS: Readonly<Record<string, { path?: string; absent: string }>> = {
  'batch/jobs status.successful': { path: 'status.succeeded', absent: '0' },
  // 1.20's conversion accepts the label, but a CronJob's field set has no such field.
  'batch/cronjobs status.successful': { absent: '' },
};

const coreConversion = (field: string) => `field label not supported: ${field}`;

/**
 * The 400 message of an unknown field label, for resources whose field labels kube-apiserver
 * 1.20 converts per kind (each with its own text); other resources get the generic one.
 */
const UNSUPPORTED_LABEL: Readonly<Record<string, (field: string) => string>> = {
  '/pods': coreConversion,
  '/nodes': coreConversion,
  '/replicationcontrollers': coreConversion,
  '/events': coreConversion,
  '/namespaces': coreConversion,
  '/secrets': coreConversion,
  'events.k8s.io/events': coreConversion,
  'batch/jobs': (field) => `field label "${field}" not supported for batchv1.Job`,
  'batch/cronjobs': (field) => `field label "${field}" not supported for "CronJob"`,
};

/**
 * Cluster-scoped kinds whose 1.20 field-label conversion leaves out `metadata.namespace` (other
 * cluster-scoped resources accept it, matching their objects' empty namespace).
 */
const WITHOUT_NAMESPACE_LABEL = new Set(['/namespaces', '/nodes']);

/** events.k8s.io's field labels and the core Event fields they select (Events are stored as core). */
const EVENTS_API_LABELS: Readonly<Record<string, string>> = {
  reason: 'reason',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent',
  type: 'type',
  'metadata.namespace': 'metadata.namespace',
  'metadata.name': 'metadata.name',
};

/** Parses and checks the selectors of a list or watch. */
export function parseSelection(
  target: Target,
  query: { labelSelector?: string | undefined; fieldSelector?: string | undefined },
): Selection {
  const { definition } = target;
  const key = resourceKey(definition.group, definition.resource);
  const eventsApi = key === 'events.k8s.io/events';
  const fieldPaths = FIELD_PATHS[eventsApi ? '/events' : key] ?? [];
  let labels: Selector | undefined;
  let fields: FieldSelector | undefined;
  if (query.labelSelector) {
    try {
      labels = parseSelector(query.labelSelector);
    } catch (error) {
      throw badRequest(
        labelSelectorError(query.labelSelector) ??
          `unable to parse requirement: ${(error as Error).message}`,
      );
    }
    if (labels.empty()) labels = undefined;
  }
  if (query.fieldSelector) {
    try {
      fields = parseFieldSelector(query.fieldSelector);
    } catch (error) {
      throw badRequest(`invalid field selector: ${(error as Error).message}`);
    }
    for (const requirement of fields.requirements()) {
      const known = eventsApi
        ? Object.hasOwn(EVENTS_API_LABELS, requirement.field)
        : requirement.field === 'metadata.name' ||
          (requirement.field === 'metadata.namespace' && !WITHOUT_NAMESPACE_LABEL.has(key)) ||
          fieldPaths.includes(requirement.field);
      if (known) continue;
      const unsupported = UNSUPPORTED_LABEL[key];
      if (unsupported) throw badRequest(unsupported(requirement.field));
      // A custom resource's field-label conversion knows only the metadata fields.
      if (definition.custom) throw badRequest(`field label not supported: ${requirement.field}`);
      throw badRequest(
        `"${requirement.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    }
    if (eventsApi) {
      const terms = fields
        .requirements()
        .map((r) => `${EVENTS_API_LABELS[r.field]}${r.operator}${escapeFieldValue(r.value)}`);
      fields = parseFieldSelector(terms.join(','));
    }
    if (fields.empty()) fields = undefined;
  }
  return { labels, fields, fieldPaths, resourceKey: key };
}

/** Whether an object passes a selection. */
export function matches(selection: Selection, obj: JsonObject): boolean {
  if (selection.labels) {
    const md = isObject(obj.metadata) ? obj.metadata : {};
    const labels = isObject(md.labels) ? (md.labels as Record<string, string>) : {};
    if (!selection.labels.matches(labels)) return false;
  }
  if (selection.fields) {
    if (!selection.fields.matches(selectableFields(selection, obj))) return false;
  }
  return true;
}

function selectableFields(selection: Selection, obj: JsonObject): Fields {
  const fields: Record<string, string> = {
    ...fieldsFromObject(obj as KubeObject, selection.fieldPaths),
  };
  for (const label of selection.fieldPaths) {
    const derived = DERIVED_FIELDS[`${selection.resourceKey} ${label}`];
    if (!derived) continue;
    const { path } = derived;
    const value = path ? fieldsFromObject(obj as KubeObject, [path])[path] : undefined;
    fields[label] = value ?? derived.absent;
  }
  return fields;
}
