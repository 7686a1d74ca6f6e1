import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { validateAnnotations, validateLabels } from './metadata.js';
import type { FieldError } from './names.js';
import { validatePodSpec } from './pod.js';

const objectOf = (value: JsonValue | undefined): JsonObject => (isObject(value) ? value : {});

/** The pod spec of a workload spec's `template`. */
export const templateSpecOf = (spec: JsonObject): JsonObject =>
  objectOf(objectOf(spec.template).spec);

/**
 * `ValidatePodTemplateSpec` on the `template` of the workload spec at `at`: its labels and
 * annotations (named `<at>.template.labels`/`.annotations`, as kube-apiserver names them),
 * then its pod spec unless `withPodSpec` is false.
 */
export function podTemplateErrors(spec: JsonObject, at: string, withPodSpec = true): FieldError[] {
  const template = objectOf(spec.template);
  const meta = objectOf(template.metadata);
  return [
    ...validateLabels(meta.labels, `${at}.template.labels`),
    ...validateAnnotations(meta.annotations, `${at}.template.annotations`),
    ...(withPodSpec ? validatePodSpec(template.spec, `${at}.template.spec`) : []),
  ];
}
