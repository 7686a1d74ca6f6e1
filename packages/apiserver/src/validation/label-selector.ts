import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { eachObject, forbidden, invalid, invalidEach, required } from './field-errors.js';
import { labelValueProblems, qualifiedNameProblems, validateLabels } from './metadata.js';
import type { FieldError } from './names.js';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

const stringsOf = (value: JsonValue | undefined): string[] =>
  Array.isArray(value) ? value.map(String) : [];
const expressionsOf = (selector: JsonObject): JsonObject[] =>
  Array.isArray(selector.matchExpressions) ? selector.matchExpressions.filter(isObject) : [];
const matchLabelsOf = (selector: JsonObject): JsonObject =>
  isObject(selector.matchLabels) ? selector.matchLabels : {};

/**
 * Apimachinery's `ValidateLabelSelector`: `matchLabels` as labels, then per expression its
 * operator and values (`In`/`NotIn` need values, `Exists`/`DoesNotExist` take none) and key.
 */
export function validateLabelSelector(selector: JsonValue | undefined, path: string): FieldError[] {
  if (!isObject(selector)) return [];
  const errors = validateLabels(selector.matchLabels, `${path}.matchLabels`);
  errors.push(
    ...eachObject(selector.matchExpressions, `${path}.matchExpressions`, (expression, at) => {
      const found: FieldError[] = [];
      const operator = typeof expression.operator === 'string' ? expression.operator : '';
      const values = stringsOf(expression.values);
      if (operator === 'In' || operator === 'NotIn') {
        if (values.length === 0) {
          found.push(
            required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"),
          );
        }
      } else if (operator === 'Exists' || operator === 'DoesNotExist') {
        if (values.length > 0) {
          found.push(
            forbidden(
              `${at}.values`,
              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
          );
        }
      } else {
        found.push(invalid(`${at}.operator`, operator, 'not a valid selector operator'));
      }
      const key = typeof expression.key === 'string' ? expression.key : '';
      return [...found, ...invalidEach(`${at}.key`, key, qualifiedNameProblems)];
    }),
  );
  return errors;
}

/**
 * Whether apimachinery's `LabelSelectorAsSelector` converts `selector`: every key a qualified
 * name, every value a label value, and each operator with the number of values it takes.
 */
export function isConvertibleSelector(selector: JsonObject): boolean {
  for (const [key, value] of Object.entries(matchLabelsOf(selector))) {
    if (qualifiedNameProblems(key).length > 0) return false;
    if (labelValueProblems(typeof value === 'string' ? value : '').length > 0) return false;
  }
  return expressionsOf(selector).every((expression) => {
    const operator = String(expression.operator ?? '');
    const values = stringsOf(expression.values);
    if (!OPERATORS.includes(operator)) return false;
    if (qualifiedNameProblems(String(expression.key ?? '')).length > 0) return false;
    const wantsValues = operator === 'In' || operator === 'NotIn';
    if (wantsValues !== values.length > 0) return false;
    return values.every((v) => labelValueProblems(v).length === 0);
  });
}

/** Whether a selector has no requirement at all (it then selects everything). */
export function isEmptySelector(selector: JsonObject): boolean {
  return Object.keys(matchLabelsOf(selector)).length + expressionsOf(selector).length === 0;
}

/** Whether a convertible `LabelSelector` selects `labels`. */
export function selectorMatches(selector: JsonObject, labels: JsonObject): boolean {
  for (const [k, v] of Object.entries(matchLabelsOf(selector))) if (labels[k] !== v) return false;
  return expressionsOf(selector).every((e) => {
    const key = String(e.key);
    const has = typeof labels[key] === 'string';
    const inValues = has && stringsOf(e.values).includes(String(labels[key]));
    if (e.operator === 'In') return inValues;
    if (e.operator === 'NotIn') return !inValues;
    if (e.operator === 'Exists') return has;
    return !has;
  });
}

/** Go's `%#v` of a `map[string]string` (keys sorted), as kube-apiserver quotes labels. */
export function goStringMap(labels: JsonValue | undefined): string {
  if (!isObject(labels)) return 'map[string]string(nil)';
  const entries = Object.keys(labels)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(labels[k]))}`);
  return `map[string]string{${entries.join(', ')}}`;
}

function goStrings(values: JsonValue | undefined): string {
  if (!Array.isArray(values)) return '[]string(nil)';
  return `[]string{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;
}

/** Go's `%#v` of a `v1.LabelSelector`, as kube-apiserver quotes a selector it refuses. */
export function goLabelSelector(selector: JsonObject): string {
  const expressions = Array.isArray(selector.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${selector.matchExpressions
        .filter(isObject)
        .map(
          (e) =>
            `v1.LabelSelectorRequirement{Key:${JSON.stringify(String(e.key ?? ''))}, Operator:${JSON.stringify(String(e.operator ?? ''))}, Values:${goStrings(e.values)}}`,
        )
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(selector.matchLabels)}, MatchExpressions:${expressions}}`;
}
