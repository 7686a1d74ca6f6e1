import { isObject, type JsonObject } from '../patch.js';
import { invalid, required } from './field-errors.js';
import { goUnmarshalMapError } from './go-json.js';
import type { FieldError } from './names.js';

const REDACTED = '<secret contents redacted>';

/** A docker config key that must be present and hold a JSON object (or null). */
function dockerConfig(data: JsonObject, key: string): FieldError[] {
  const value = data[key];
  if (typeof value !== 'string') return [required(`data[${key}]`)];
  const problem = goUnmarshalMapError(Buffer.from(value, 'base64').toString('utf8'));
  return problem === undefined ? [] : [invalid(`data[${key}]`, REDACTED, problem)];
}

/**
 * `ValidateSecret`'s per-type rules, after the key checks: the keys each well-known `type`
 * requires. Two of them name their field `data[%s][key]`: kube-apiserver 1.20 builds that
 * path from a format string it never fills in, and clients see it as is.
 */
export function validateSecretType(obj: JsonObject): FieldError[] {
  const data = isObject(obj.data) ? obj.data : {};
  const has = (key: string): boolean => typeof data[key] === 'string';
  switch (obj.type) {
    case 'kubernetes.io/service-account-token': {
      const md = isObject(obj.metadata) ? obj.metadata : {};
      const annotations = isObject(md.annotations) ? md.annotations : {};
      const name = annotations['kubernetes.io/service-account.name'];
      if (typeof name === 'string' && name !== '') return [];
      return [required('metadata.annotations[kubernetes.io/service-account.name]')];
    }
    case 'kubernetes.io/dockercfg':
      return dockerConfig(data, '.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return dockerConfig(data, '.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      if (has('username') || has('password')) return [];
      return [required('data[%s][username]'), required('data[%s][password]')];
    case 'kubernetes.io/ssh-auth': {
      const key = data['ssh-privatekey'];
      if (typeof key === 'string' && key !== '') return [];
      return [required('data[%s][ssh-privatekey]')];
    }
    case 'kubernetes.io/tls':
      return [
        ...(has('tls.crt') ? [] : [required('data[tls.crt]')]),
        ...(has('tls.key') ? [] : [required('data[tls.key]')]),
      ];
    default:
      return [];
  }
}
