import { isObject, type JsonValue } from '../patch.js';
import { chDirProblems } from './data-keys.js';
import { eachObject, invalid, invalidEach, required } from './field-errors.js';
import type { FieldError } from './names.js';

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
