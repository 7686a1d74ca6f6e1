import { isObject, type JsonObject } from '../patch.js';
import { type FieldError, nameProblems } from './names.js';

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** kube-apiserver's limit on the summed length of all annotation keys and values. */
const TOTAL_ANNOTATION_SIZE = 256 * 1024;

/** Apimachinery's `IsQualifiedName`: an optional DNS subdomain prefix and '/', then a name. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  const problems: string[] = [];
  let name: string;
  if (parts.length === 1) {
    name = value;
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') problems.push('prefix part must be non-empty');
    else for (const p of nameProblems(prefix, 'subdomain')) problems.push(`prefix part ${p}`);
  } else {
    return [
      `a qualified name ${QUALIFIED_NAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === '') problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME.test(name)) problems.push(`name part ${QUALIFIED_NAME_MSG}`);
  return problems;
}

/** Apimachinery's `IsValidLabelValue`. */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) problems.push(LABEL_VALUE_MSG);
  return problems;
}

function invalidValue(field: string, value: string, problem: string): FieldError {
  return {
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${JSON.stringify(value)}: ${problem}`,
    field,
  };
}

/** `ValidateLabels` on a labels map found at `field` (keys, then the value, per label). */
export function validateLabels(labels: unknown, field: string): FieldError[] {
  if (!isObject(labels)) return [];
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels)) {
    for (const p of qualifiedNameProblems(key)) errors.push(invalidValue(field, key, p));
    const text = typeof value === 'string' ? value : '';
    for (const p of labelValueProblems(text)) errors.push(invalidValue(field, text, p));
  }
  return errors;
}

/** `ValidateAnnotations`: keys are qualified names (checked lowercased), 256 KiB in all. */
export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  if (!isObject(annotations)) return [];
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const p of qualifiedNameProblems(key.toLowerCase())) {
      errors.push(invalidValue(field, key, p));
    }
    size += Buffer.byteLength(key) + Buffer.byteLength(typeof value === 'string' ? value : '');
  }
  if (size > TOTAL_ANNOTATION_SIZE) {
    errors.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE} bytes`,
      field,
    });
  }
  return errors;
}

/** The label and annotation causes of an object's metadata, as `ValidateObjectMeta` lists them. */
export function validateMetadataMaps(obj: JsonObject): FieldError[] {
  const md = isObject(obj.metadata) ? obj.metadata : {};
  return [
    ...validateLabels(md.labels, 'metadata.labels'),
    ...validateAnnotations(md.annotations, 'metadata.annotations'),
  ];
}
