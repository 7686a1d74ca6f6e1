import {
  escapeFieldValue,
  type FieldSelector,
  fieldsFromObject,
  type KubeObject,
  parseFieldSelector,
  parseSelector,
  type Selector,
} from '@kubets/apimachinery';
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
  'apps/replicasets': ['status.replicas'],
};

/**
 * Resources whose field selectors kube-apiserver converts per kind: an unknown field gets
 * `field label not supported: <field>` there, and the generic message elsewhere.
 */
const CONVERTED_LABELS = new Set([
  '/pods',
  '/nodes',
  '/replicationcontrollers',
  '/events',
  '/namespaces',
  '/secrets',
  'events.k8s.io/events',
]);

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
      throw badRequest(`unable to parse requirement: ${(error as Error).message}`);
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
      if (CONVERTED_LABELS.has(key))
        throw badRequest(`field label not supported: ${requirement.field}`);
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
  return { labels, fields, fieldPaths };
}

/** Whether an object passes a selection. */
export function matches(selection: Selection, obj: JsonObject): boolean {
  if (selection.labels) {
    const md = isObject(obj.metadata) ? obj.metadata : {};
    const labels = isObject(md.labels) ? (md.labels as Record<string, string>) : {};
    if (!selection.labels.matches(labels)) return false;
  }
  if (selection.fields) {
    if (!selection.fields.matches(fieldsFromObject(obj as KubeObject, selection.fieldPaths)))
      return false;
  }
  return true;
}
