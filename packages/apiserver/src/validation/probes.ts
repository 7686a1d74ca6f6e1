import { isObject, type JsonValue } from '../patch.js';
import {
  exactlyOneErrors,
  invalidEach,
  nonNegative,
  required,
  type UnionMember,
} from './field-errors.js';
import { type FieldError, notSupportedErrors } from './names.js';
import { validatePortNumOrName } from './ports.js';

const HTTP_HEADER_NAME = /^[-A-Za-z0-9]+$/;
const HTTP_HEADER_NAME_MSG =
  "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";

function httpGetErrors(action: JsonValue, at: string): FieldError[] {
  const get = isObject(action) ? action : {};
  const errors: FieldError[] = [];
  if (typeof get.path !== 'string' || get.path === '') errors.push(required(`${at}.path`));
  errors.push(...validatePortNumOrName(get.port, `${at}.port`));
  errors.push(...notSupportedErrors(get.scheme, ['HTTP', 'HTTPS'], `${at}.scheme`));
  for (const header of Array.isArray(get.httpHeaders) ? get.httpHeaders : []) {
    const name = isObject(header) && typeof header.name === 'string' ? header.name : '';
    errors.push(
      ...invalidEach(`${at}.httpHeaders`, name, (n) =>
        HTTP_HEADER_NAME.test(n) ? [] : [HTTP_HEADER_NAME_MSG],
      ),
    );
  }
  return errors;
}

const HANDLERS: UnionMember[] = [
  {
    key: 'exec',
    check: (action, at) => {
      const command = isObject(action) ? action.command : undefined;
      return Array.isArray(command) && command.length > 0 ? [] : [required(`${at}.command`)];
    },
  },
  { key: 'httpGet', check: httpGetErrors },
  {
    key: 'tcpSocket',
    check: (action, at) =>
      validatePortNumOrName(isObject(action) ? action.port : undefined, `${at}.port`),
  },
];

/** `validateHandler`: exactly one of exec, httpGet, tcpSocket, each checked. */
export function validateHandler(handler: JsonValue | undefined, path: string): FieldError[] {
  return exactlyOneErrors(isObject(handler) ? handler : {}, HANDLERS, path, 'handler');
}

const PROBE_COUNTS = [
  'initialDelaySeconds',
  'timeoutSeconds',
  'periodSeconds',
  'successThreshold',
  'failureThreshold',
];

/** `validateProbe`: its handler, then its counts ≥ 0; nothing when there is no probe. */
export function validateProbe(probe: JsonValue | undefined, path: string): FieldError[] {
  if (!isObject(probe)) return [];
  const errors = validateHandler(probe, path);
  for (const count of PROBE_COUNTS) errors.push(...nonNegative(probe[count], `${path}.${count}`));
  return errors;
}
