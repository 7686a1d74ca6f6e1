import { isObject, type JsonValue } from '../patch.js';
import { chDirProblems } from './data-keys.js';
import { eachObject, invalid, invalidEach, required } from './field-errors.js';
import { type FieldError, nameProblems } from './names.js';

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const ENV_NAME_MSG =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

/** Apimachinery's `IsEnvVarName`. */
export function envNameProblems(name: string): string[] {
  return [...(ENV_NAME.test(name) ? [] : [ENV_NAME_MSG]), ...chDirProblems(name)];
}

const VALUE_SOURCES = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'];

/** `validateEnvVarValueFrom`'s count of sources: exactly one, and no `value` beside it. */
function valueFromErrors(value: JsonValue | undefined, from: JsonValue | undefined, at: string) {
  if (!isObject(from)) return [];
  const sources = VALUE_SOURCES.filter((s) => from[s] !== undefined && from[s] !== null).length;
  if (sources === 0) {
    return [
      invalid(
        at,
        '',
        'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      ),
    ];
  }
  if (typeof value === 'string' && value !== '') {
    return [invalid(at, '', 'may not be specified when `value` is not empty')];
  }
  if (sources > 1) return [invalid(at, '', 'may not have more than one field specified at a time')];
  return [];
}

/** `ValidateEnv`: per variable its name (required, valid), then its `valueFrom`. */
export function validateEnv(env: JsonValue | undefined, path: string): FieldError[] {
  return eachObject(env, path, (variable, at) => {
    const name = typeof variable.name === 'string' ? variable.name : '';
    return [
      ...(name === ''
        ? [required(`${at}.name`)]
        : invalidEach(`${at}.name`, name, envNameProblems)),
      ...valueFromErrors(variable.value, variable.valueFrom, `${at}.valueFrom`),
    ];
  });
}

/** A ConfigMap or Secret reference's required name, a DNS subdomain. */
function referenceNameErrors(reference: JsonValue, at: string): FieldError[] {
  const name = isObject(reference) && typeof reference.name === 'string' ? reference.name : '';
  if (name === '') return [required(`${at}.name`)];
  return nameProblems(name, 'subdomain').map((problem) => invalid(`${at}.name`, name, problem));
}

/**
 * `ValidateEnvFrom`: per source its prefix (a variable name), then exactly one of
 * `configMapRef` and `secretRef`, each with a name. The count's causes name the whole
 * `envFrom` list, as kube-apiserver 1.20 does.
 */
export function validateEnvFrom(envFrom: JsonValue | undefined, path: string): FieldError[] {
  return eachObject(envFrom, path, (source, at) => {
    const prefix = typeof source.prefix === 'string' ? source.prefix : '';
    const errors = prefix === '' ? [] : invalidEach(`${at}.prefix`, prefix, envNameProblems);
    const refs = ['configMapRef', 'secretRef'].filter((k) => isObject(source[k]));
    for (const ref of refs)
      errors.push(...referenceNameErrors(source[ref] ?? null, `${at}.${ref}`));
    if (refs.length === 0) {
      errors.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    } else if (refs.length > 1) {
      errors.push(invalid(path, '', 'may not have more than one field specified at a time'));
    }
    return errors;
  });
}
