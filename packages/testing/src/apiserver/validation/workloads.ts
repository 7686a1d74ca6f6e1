import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { validateAnnotations, validateLabels } from './metadata.js';
import type { FieldError } from './names.js';
import { validatePodSpec } from './pod.js';

/** Go's `%#v` of a `map[string]string`, as kube-apiserver quotes template labels. */
function goStringMap(labels: JsonValue | undefined): string {
  if (!isObject(labels)) return 'map[string]string(nil)';
  const entries = Object.keys(labels)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(labels[k]))}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/** Whether a `LabelSelector` (matchLabels and matchExpressions) selects `labels`. */
function selectorMatches(selector: JsonObject, labels: JsonObject): boolean {
  const matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  for (const [k, v] of Object.entries(matchLabels)) if (labels[k] !== v) return false;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const e of expressions.filter(isObject)) {
    const key = String(e.key);
    const values = Array.isArray(e.values) ? e.values.map(String) : [];
    const has = typeof labels[key] === 'string';
    const inValues = has && values.includes(String(labels[key]));
    if (e.operator === 'In' && !inValues) return false;
    if (e.operator === 'NotIn' && inValues) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function isEmptySelector(selector: JsonObject): boolean {
  const labels = isObject(selector.matchLabels) ? Object.keys(selector.matchLabels).length : 0;
  const exprs = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.length : 0;
  return labels + exprs === 0;
}

/**
 * `ValidateDeploymentSpec`'s rules that kubets checks, in kube-apiserver 1.20's order:
 * `replicas` ≥ 0, `selector` required and not empty, the template's labels selected by it,
 * then the template's labels, annotations and pod spec.
 */
export function validateDeploymentSpec(spec: JsonValue | undefined): FieldError[] {
  const s = isObject(spec) ? spec : {};
  const errors: FieldError[] = [];
  if (typeof s.replicas === 'number' && s.replicas < 0) {
    errors.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${s.replicas}: must be greater than or equal to 0`,
      field: 'spec.replicas',
    });
  }
  const template = isObject(s.template) ? s.template : {};
  const templateMeta = isObject(template.metadata) ? template.metadata : {};
  const labels = isObject(templateMeta.labels) ? templateMeta.labels : {};
  const selector = isObject(s.selector) ? s.selector : undefined;
  if (!selector)
    errors.push({
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.selector',
    });
  // The message quotes Go's empty LabelSelector as the real server does for `{}`.
  else if (isEmptySelector(selector)) {
    errors.push({
      reason: 'FieldValueInvalid',
      message:
        'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
      field: 'spec.selector',
    });
  }
  // A missing selector selects nothing; an empty one everything (and is refused above).
  if (!selector || (!isEmptySelector(selector) && !selectorMatches(selector, labels))) {
    errors.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goStringMap(templateMeta.labels)}: \`selector\` does not match template \`labels\``,
      field: 'spec.template.metadata.labels',
    });
  }
  errors.push(...validateLabels(templateMeta.labels, 'spec.template.metadata.labels'));
  errors.push(
    ...validateAnnotations(templateMeta.annotations, 'spec.template.metadata.annotations'),
  );
  errors.push(...validatePodSpec(template.spec, 'spec.template.spec'));
  return errors;
}
