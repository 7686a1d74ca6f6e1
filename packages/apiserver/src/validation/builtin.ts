import { validateCustomResourceDefinition } from '@kubets/apiextensions';
import { validateCustomResource } from '../crd-schema/custom.js';
import { objectName } from '../object-meta.js';
import type { JsonObject } from '../patch.js';
import { type ResourceDefinition, resourceKey } from '../resources.js';
import { validateConfigMapData, validateSecretData } from './data-keys.js';
import { validateDataUpdate } from './data-update.js';
import { isEventResource, validateEventCreate, validateEventUpdate } from './events.js';
import { validateCronJobName, validateCronJobSpec, validateJobSpec } from './jobs.js';
import { validateMetadataMaps } from './metadata.js';
import type { FieldError } from './names.js';
import { validatePodCreate, validatePodUpdate } from './pod-update.js';
import { validateSecretType } from './secret-types.js';
import { validateServiceSpec, validateServiceUpdate } from './service.js';
import { validateWebhookConfiguration } from './webhook-configurations.js';
import {
  validateDaemonSetSpec,
  validateDeploymentSpec,
  validateReplicaSetSpec,
  validateStatefulSetSpec,
} from './workloads.js';

/**
 * The causes kube-apiserver 1.20 lists for `obj` on create, given the causes of its name
 * (`validateObjectName` under the resource's rule), which come first but for Events.
 */
export function validateCreate(
  definition: ResourceDefinition,
  obj: JsonObject,
  nameErrors: FieldError[],
): FieldError[] {
  if (isEventResource(definition)) {
    return validateEventCreate(definition, obj, nameErrors, validateMetadataMaps(obj));
  }
  const errors = [...nameErrors, ...validateMetadataMaps(obj)];
  if (definition.custom) return [...errors, ...validateCustomResource(definition, obj)];
  const key = resourceKey(definition.group, definition.resource);
  if (key === '/pods') errors.push(...validatePodCreate(obj.spec));
  errors.push(...validateSpec(key, obj));
  if (key === 'batch/cronjobs') errors.push(...validateCronJobName(objectName(obj)));
  return errors;
}

/**
 * The causes kube-apiserver 1.20 lists for an update of `old` to `next` (not `/status`).
 * It validates the labels and annotations several times on update (common fields, object
 * metadata update, the strategy's checks): probed, it lists each such cause four times for
 * core objects (configmaps, pods, services, secrets, serviceaccounts, namespaces), three
 * times for deployments and custom resources. Events differ (`events.ts`).
 */
export function validateUpdate(
  definition: ResourceDefinition,
  next: JsonObject,
  old: JsonObject,
): FieldError[] {
  const metaErrors = validateMetadataMaps(next);
  if (isEventResource(definition)) return validateEventUpdate(definition, next, metaErrors);
  const errors = [...metaErrors, ...metaErrors, ...metaErrors];
  if (definition.custom) return [...errors, ...validateCustomResource(definition, next)];
  const key = resourceKey(definition.group, definition.resource);
  // The update rules of a Secret or ConfigMap come between the third and fourth copies.
  errors.push(...validateDataUpdate(key, next, old));
  if (definition.group === '') errors.push(...metaErrors);
  if (key === '/pods') errors.push(...validatePodUpdate(next.spec, old.spec));
  if (key === '/services') errors.push(...validateServiceUpdate(next.spec, old.spec));
  errors.push(...validateSpec(key, next));
  return errors;
}

/** Per resource (`group/resource`), the rules of its object checked on create and update. */
const OBJECT_RULES: Readonly<Record<string, (obj: JsonObject) => FieldError[]>> = {
  'apps/deployments': (obj) => validateDeploymentSpec(obj.spec),
  'apps/replicasets': (obj) => validateReplicaSetSpec(obj.spec),
  'apps/daemonsets': (obj) => validateDaemonSetSpec(obj.spec),
  'apps/statefulsets': (obj) => validateStatefulSetSpec(obj.spec),
  'batch/jobs': (obj) => validateJobSpec(obj.spec),
  'batch/cronjobs': (obj) => validateCronJobSpec(obj.spec),
  // The object's name was checked as every name is (validateObjectName).
  'apiextensions.k8s.io/customresourcedefinitions': (obj) =>
    validateCustomResourceDefinition(obj, { nameFormatChecked: true }),
  '/services': (obj) => validateServiceSpec(obj.spec),
  '/configmaps': validateConfigMapData,
  '/secrets': (obj) => [...validateSecretData(obj), ...validateSecretType(obj)],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': (obj) =>
    validateWebhookConfiguration(obj, false),
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': (obj) =>
    validateWebhookConfiguration(obj, true),
};

/** The spec rules checked on both create and update. */
function validateSpec(key: string, obj: JsonObject): FieldError[] {
  return OBJECT_RULES[key]?.(obj) ?? [];
}
