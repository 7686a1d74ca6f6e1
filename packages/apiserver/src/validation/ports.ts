import type { JsonValue } from '../patch.js';
import { eachObject, invalid, invalidEach, portNumberProblems, required } from './field-errors.js';
import { duplicateErrors, type FieldError, notSupportedErrors } from './names.js';

/** The protocols a container or service port may name, as kube-apiserver lists them. */
export const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** Apimachinery's `IsValidPortName` (IANA service names: ≤ 15, lowercase, a letter). */
export function portNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) {
    problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  }
  if (!/[a-z]/.test(name)) problems.push('must contain at least one letter or number (a-z, 0-9)');
  if (name.includes('--')) problems.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) {
    problems.push('must not begin or end with a hyphen');
  }
  return problems;
}

/** `ValidatePortNumOrName`: a number in 1–65535 or a valid port name (probes, targetPort). */
export function validatePortNumOrName(port: JsonValue | undefined, field: string): FieldError[] {
  if (typeof port === 'string') return invalidEach(field, port, portNameProblems);
  const number = typeof port === 'number' ? port : 0;
  return portNumberProblems(number).map((problem) => invalid(field, number, problem));
}

/**
 * `validateContainerPorts`: per port, its name (valid, then unique), `containerPort`
 * (required, 1–65535), `hostPort` when set, `protocol` (required, SCTP/TCP/UDP).
 */
export function validateContainerPorts(ports: JsonValue | undefined, path: string): FieldError[] {
  const names = new Set<string>();
  return eachObject(ports, path, (port, at) => {
    const errors: FieldError[] = [];
    const name = typeof port.name === 'string' ? port.name : '';
    if (name !== '') {
      const bad = invalidEach(`${at}.name`, name, portNameProblems);
      errors.push(...(bad.length > 0 ? bad : duplicateErrors(name, names, `${at}.name`)));
    }
    const containerPort = typeof port.containerPort === 'number' ? port.containerPort : 0;
    if (containerPort === 0) errors.push(required(`${at}.containerPort`));
    else errors.push(...validatePortNumOrName(containerPort, `${at}.containerPort`));
    if (typeof port.hostPort === 'number' && port.hostPort !== 0) {
      errors.push(...validatePortNumOrName(port.hostPort, `${at}.hostPort`));
    }
    if (typeof port.protocol !== 'string' || port.protocol === '') {
      errors.push(required(`${at}.protocol`));
    } else {
      errors.push(...notSupportedErrors(port.protocol, PORT_PROTOCOLS, `${at}.protocol`));
    }
    return errors;
  });
}
