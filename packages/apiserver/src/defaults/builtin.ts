/**
 * What kube-apiserver 1.20 does to a built-in object's fields on a write before validating
 * it: the defaults of each kind (create, update, patch and apply alike), and on create the
 * admission plugins' additions and the status the create strategy starts from.
 */

import { decodeCustomResource } from '../crd-schema/custom.js';
import type { JsonObject } from '../patch.js';
import { type ResourceDefinition, resourceKey } from '../resources.js';
import { child } from './fields.js';
import { admitNewPod, defaultPod, podQosClass } from './pod.js';
import { defaultService } from './service.js';
import {
  defaultMutatingWebhookConfiguration,
  defaultValidatingWebhookConfiguration,
} from './webhook-configurations.js';
import {
  defaultDaemonSet,
  defaultDeployment,
  defaultJob,
  defaultReplicaSet,
  defaultStatefulSet,
  initialWorkloadStatus,
  selectJobPods,
} from './workloads.js';

const DEFAULTERS: Readonly<Record<string, (obj: JsonObject) => void>> = {
  '/namespaces': defaultNamespace,
  'apiextensions.k8s.io/customresourcedefinitions': defaultCustomResourceDefinition,
  '/pods': defaultPod,
  '/services': defaultService,
  'apps/deployments': defaultDeployment,
  'apps/statefulsets': defaultStatefulSet,
  'apps/daemonsets': defaultDaemonSet,
  'apps/replicasets': defaultReplicaSet,
  'batch/jobs': defaultJob,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': defaultMutatingWebhookConfiguration,
  'admissionregistration.k8s.io/validatingwebhookconfigurations':
    defaultValidatingWebhookConfiguration,
};

/** A Namespace's status defaults to phase Active (its decoder's default, before any strategy). */
function defaultNamespace(obj: JsonObject): void {
  const status = child(obj, 'status');
  if (status.phase === undefined || status.phase === '') status.phase = 'Active';
}

/** A CRD's `names.listKind` (`<kind>List`) and `conversion` (`strategy: None`), as its decoder defaults them. */
function defaultCustomResourceDefinition(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  const names = child(spec, 'names');
  if (
    (names.listKind === undefined || names.listKind === '') &&
    typeof names.kind === 'string' &&
    names.kind !== ''
  ) {
    names.listKind = `${names.kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null)
    spec.conversion = { strategy: 'None' };
}

/**
 * Defaults `obj` (a write's body, spec and not status) in place, as its kind's defaulters do;
 * a custom resource is pruned and defaulted from its schema.
 */
export function applyDefaults(definition: ResourceDefinition, obj: JsonObject): void {
  if (definition.custom) {
    decodeCustomResource(definition, obj);
    return;
  }
  DEFAULTERS[resourceKey(definition.group, definition.resource)]?.(obj);
}

/** Only the status defaults of {@link applyDefaults} (a Namespace's phase; no other kind has any). */
export function defaultStatus(definition: ResourceDefinition, obj: JsonObject): void {
  if (!definition.custom && resourceKey(definition.group, definition.resource) === '/namespaces') {
    defaultNamespace(obj);
  }
}

/**
 * What a create adds after the defaults, once the object has its name and uid: the admission
 * plugins' fields, generated selectors, and the status the create strategy starts from.
 */
export function prepareNewBuiltin(definition: ResourceDefinition, obj: JsonObject): void {
  if (definition.custom) return;
  const key = resourceKey(definition.group, definition.resource);
  const md = child(obj, 'metadata');
  if (key === '/pods') {
    admitNewPod(obj);
    obj.status = { phase: 'Pending', qosClass: podQosClass(child(obj, 'spec')) };
  }
  if (key === 'batch/jobs') {
    selectJobPods(obj, String(md.uid), String(md.name));
    obj.status = {};
  }
  if (definition.group === 'apps' && key !== 'apps/controllerrevisions') {
    obj.status = initialWorkloadStatus(definition.resource);
  }
  if (key === '/services') obj.status = { loadBalancer: {} };
}
