import { isObject, type JsonValue } from '../patch.js';
import { dnsLabelErrors, duplicateErrors, type FieldError, notSupportedErrors } from './names.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function portProblems(value: JsonValue | undefined, field: string): FieldError[] {
  if (typeof value !== 'number' || (value >= 1 && value <= 65535)) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${value}: must be between 1 and 65535, inclusive`,
      field,
    },
  ];
}

/**
 * `ValidateService`'s port rules that kubets checks, in kube-apiserver 1.20's order: ports
 * required (unless headless or ExternalName); per port, a name when there are several (DNS
 * label, unique), `port` in 1–65535, `protocol` one of SCTP/TCP/UDP, a numeric `targetPort`
 * in 1–65535 (it defaults to `port`, so a bad port is reported twice, as the real server does).
 */
export function validateServiceSpec(spec: JsonValue | undefined): FieldError[] {
  const s = isObject(spec) ? spec : {};
  const ports = Array.isArray(s.ports) ? s.ports.filter(isObject) : [];
  const errors: FieldError[] = [];
  if (ports.length === 0) {
    if (s.clusterIP !== 'None' && s.type !== 'ExternalName') {
      errors.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.ports' });
    }
    return errors;
  }
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = `spec.ports[${i}]`;
    const name = typeof port.name === 'string' ? port.name : '';
    if (ports.length > 1 && name === '') {
      errors.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.name` });
    } else if (name !== '') {
      errors.push(...dnsLabelErrors(name, `${at}.name`));
      errors.push(...duplicateErrors(name, names, `${at}.name`));
    }
    errors.push(...portProblems(port.port, `${at}.port`));
    errors.push(...notSupportedErrors(port.protocol, PROTOCOLS, `${at}.protocol`));
    const target = port.targetPort === undefined ? port.port : port.targetPort;
    errors.push(...portProblems(target, `${at}.targetPort`));
  });
  return errors;
}
