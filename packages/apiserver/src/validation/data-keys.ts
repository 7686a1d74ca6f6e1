import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { invalid, invalidEach } from './field-errors.js';
import type { FieldError } from './names.js';

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** The most bytes a ConfigMap's or a Secret's values may hold together (`core.MaxSecretSize`). */
export const MAX_DATA_SIZE = 1024 * 1024;

/** Apimachinery's `hasChDirPrefix`: a key or a name that could leave its directory. */
export function chDirProblems(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

/** Apimachinery's `IsConfigMapKey`, the rule for ConfigMap and Secret keys. */
export function configKeyProblems(key: string): string[] {
  const problems: string[] = [];
  if (key.length > 253) problems.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key)) problems.push(CONFIG_KEY_MSG);
  return [...problems, ...chDirProblems(key)];
}

function entriesOf(bag: JsonValue | undefined): [string, JsonValue][] {
  return isObject(bag) ? Object.entries(bag) : [];
}

const textBytes = (value: JsonValue): number =>
  typeof value === 'string' ? Buffer.byteLength(value) : 0;
const base64Bytes = (value: JsonValue): number =>
  typeof value === 'string' ? Buffer.from(value, 'base64').length : 0;

/**
 * `ValidateConfigMap`'s own rules: every `data` key (and whether `binaryData` has it too),
 * then every `binaryData` key, then the size of all values (the cause's field is `[]`, as
 * kube-apiserver names the whole object). Keys are checked in the order sent; the real
 * server walks a Go map, so several bad keys in one bag come in a random order there.
 */
export function validateConfigMapData(obj: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const binary = isObject(obj.binaryData) ? obj.binaryData : {};
  let size = 0;
  for (const [key, value] of entriesOf(obj.data)) {
    errors.push(...invalidEach(`data[${key}]`, key, configKeyProblems));
    if (key in binary) {
      errors.push(invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    }
    size += textBytes(value);
  }
  for (const [key, value] of Object.entries(binary)) {
    errors.push(...invalidEach(`binaryData[${key}]`, key, configKeyProblems));
    size += base64Bytes(value);
  }
  if (size > MAX_DATA_SIZE) errors.push(tooLong('[]'));
  return errors;
}

/**
 * `ValidateSecret`'s key and size rules on `data` (which already holds `stringData`, merged
 * before validation as kube-apiserver's conversion does).
 */
export function validateSecretData(obj: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of entriesOf(obj.data)) {
    errors.push(...invalidEach(`data[${key}]`, key, configKeyProblems));
    size += base64Bytes(value);
  }
  if (size > MAX_DATA_SIZE) errors.push(tooLong('data'));
  return errors;
}

function tooLong(field: string): FieldError {
  return {
    reason: 'FieldValueTooLong',
    message: `Too long: must have at most ${MAX_DATA_SIZE} bytes`,
    field,
  };
}
