import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { forbidden, invalid, portNumberProblems, required } from './field-errors.js';
import { nonSpecialIpErrors, validIpErrors } from './ip-addresses.js';
import { validateLabels } from './metadata.js';
import {
  dnsLabelErrors,
  duplicateErrors,
  type FieldError,
  nameProblems,
  notSupportedErrors,
} from './names.js';
import { PORT_PROTOCOLS } from './ports.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
/** The port a LoadBalancer may not expose: the kubelet's. */
const KUBELET_PORT = 10250;
const MAX_AFFINITY_SECONDS = 86400;

function portProblems(value: JsonValue | undefined, field: string): FieldError[] {
  if (typeof value !== 'number') return [];
  return portNumberProblems(value).map((problem) => invalid(field, value, problem));
}

/** The cluster IPs the real server validates: `clusterIPs`, or `[clusterIP]` as its strategy syncs them. */
function clusterIPsOf(spec: JsonObject): string[] {
  if (Array.isArray(spec.clusterIPs)) return spec.clusterIPs.map(String);
  return typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? [spec.clusterIP] : [];
}

/** Whether a field holds something: not absent, null or an empty list. */
const isSet = (value: JsonValue | undefined): boolean =>
  value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);

/** The rules of each service `type` that come before the ports' own. */
function typeErrors(spec: JsonObject, ports: JsonObject[], clusterIPs: string[]): FieldError[] {
  const headless = clusterIPs[0] === 'None';
  const errors: FieldError[] = [];
  const headlessRefused = (type: string): void => {
    if (!headless) return;
    errors.push(
      invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${type} services`),
    );
  };
  switch (spec.type) {
    case 'LoadBalancer':
      ports.forEach((port, i) => {
        if (port.port !== KUBELET_PORT) return;
        errors.push(
          invalid(
            `spec.ports[${i}]`,
            KUBELET_PORT,
            `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`,
          ),
        );
      });
      headlessRefused('LoadBalancer');
      break;
    case 'NodePort':
      headlessRefused('NodePort');
      break;
    case 'ExternalName': {
      const given = [clusterIPs, spec.ipFamilies, spec.ipFamilyPolicy].map(isSet);
      ['clusterIPs', 'ipFamilies', 'ipFamilyPolicy'].forEach((key, i) => {
        if (given[i])
          errors.push(forbidden(`spec.${key}`, 'may not be set for ExternalName services'));
      });
      // A trailing dot marks the name fully qualified.
      const cname =
        typeof spec.externalName === 'string' ? spec.externalName.replace(/\.$/, '') : '';
      if (cname === '') errors.push(required('spec.externalName'));
      else {
        for (const problem of nameProblems(cname, 'subdomain')) {
          errors.push(invalid('spec.externalName', cname, problem));
        }
      }
      break;
    }
  }
  return errors;
}

/** Per port: a name when there are several (DNS label, unique), port, protocol, targetPort. */
function portErrors(ports: JsonObject[]): FieldError[] {
  const names = new Set<string>();
  const errors: FieldError[] = [];
  ports.forEach((port, i) => {
    const at = `spec.ports[${i}]`;
    const name = typeof port.name === 'string' ? port.name : '';
    if (ports.length > 1 && name === '') errors.push(required(`${at}.name`));
    else if (name !== '') {
      errors.push(...dnsLabelErrors(name, `${at}.name`));
      errors.push(...duplicateErrors(name, names, `${at}.name`));
    }
    errors.push(...portProblems(port.port, `${at}.port`));
    errors.push(...notSupportedErrors(port.protocol, PORT_PROTOCOLS, `${at}.protocol`));
    const target = port.targetPort === undefined ? port.port : port.targetPort;
    errors.push(...portProblems(target, `${at}.targetPort`));
  });
  return errors;
}

function sessionAffinityErrors(spec: JsonObject): FieldError[] {
  const affinity = spec.sessionAffinity;
  const errors = notSupportedErrors(affinity, ['ClientIP', 'None'], 'spec.sessionAffinity');
  // With `None` there is no config to check: the defaults drop it.
  const config = spec.sessionAffinityConfig;
  if (affinity === 'ClientIP') {
    const clientIP = isObject(config) && isObject(config.clientIP) ? config.clientIP : {};
    const timeout = clientIP.timeoutSeconds;
    if (typeof timeout === 'number' && (timeout <= 0 || timeout > MAX_AFFINITY_SECONDS)) {
      errors.push(
        invalid(
          'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
          timeout,
          `must be greater than 0 and less than ${MAX_AFFINITY_SECONDS}`,
        ),
      );
    }
  }
  return errors;
}

/** Go's `%#v` of the (protocol, port) key kube-apiserver finds twice. */
function goServicePortKey(protocol: string, port: number): string {
  return `core.ServicePort{Name:"", Protocol:${JSON.stringify(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
}

/** `nodePort` forbidden on ClusterIP services, then duplicate node ports and ports per protocol. */
function portUseErrors(spec: JsonObject, ports: JsonObject[]): FieldError[] {
  const errors: FieldError[] = [];
  if (spec.type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if (typeof port.nodePort === 'number' && port.nodePort !== 0) {
        errors.push(
          forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"),
        );
      }
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    if (typeof port.nodePort !== 'number' || port.nodePort === 0) return;
    const key = `${String(port.protocol)}/${port.nodePort}`;
    if (nodePorts.has(key)) {
      errors.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${port.nodePort}`,
        field: `spec.ports[${i}].nodePort`,
      });
    }
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((port, i) => {
    const protocol = String(port.protocol ?? '');
    const number = typeof port.port === 'number' ? port.port : 0;
    const key = `${protocol}/${number}`;
    if (seen.has(key)) {
      errors.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${goServicePortKey(protocol, number)}`,
        field: `spec.ports[${i}]`,
      });
    }
    seen.add(key);
  });
  return errors;
}

/**
 * `ValidateService`'s rules that kubets checks, in kube-apiserver 1.20's order: ports
 * required (unless headless or ExternalName); the type's own rules (LoadBalancer: not the
 * kubelet's port, not headless; NodePort: not headless; ExternalName: no cluster IPs or
 * families, a DNS subdomain `externalName`); per port, a name when there are several (DNS
 * label, unique), `port` in 1–65535, `protocol`, a numeric `targetPort` in 1–65535 (it
 * defaults to `port`, so a bad port is reported twice); the selector's labels;
 * `sessionAffinity` and its config; cluster IPs; external IPs; `type`; node ports on a
 * ClusterIP service; duplicate node ports and ports.
 */
export function validateServiceSpec(specValue: JsonValue | undefined): FieldError[] {
  const spec = isObject(specValue) ? specValue : {};
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObject) : [];
  const clusterIPs = clusterIPsOf(spec);
  const errors: FieldError[] = [];
  if (ports.length === 0 && clusterIPs[0] !== 'None' && spec.type !== 'ExternalName') {
    errors.push(required('spec.ports'));
  }
  errors.push(...typeErrors(spec, ports, clusterIPs));
  errors.push(...portErrors(ports));
  errors.push(...validateLabels(spec.selector, 'spec.selector'));
  errors.push(...sessionAffinityErrors(spec));
  if (spec.type !== 'ExternalName') {
    clusterIPs.forEach((ip, i) => {
      if (i === 0 && ip === 'None') return;
      errors.push(...validIpErrors(ip, `spec.clusterIPs[${i}]`));
    });
  }
  const externalIPs = Array.isArray(spec.externalIPs) ? spec.externalIPs.map(String) : [];
  externalIPs.forEach((ip, i) => {
    errors.push(...nonSpecialIpErrors(ip, `spec.externalIPs[${i}]`));
  });
  errors.push(...notSupportedErrors(spec.type, SERVICE_TYPES, 'spec.type'));
  errors.push(...portUseErrors(spec, ports));
  return errors;
}

/**
 * What a Service update may not change: a cluster IP once allocated (the first of
 * `clusterIPs`, quoted as the whole new list), unless the Service is headless or ExternalName
 * on either side.
 */
export function validateServiceUpdate(
  next: JsonValue | undefined,
  old: JsonValue | undefined,
): FieldError[] {
  if (!isObject(next) || !isObject(old)) return [];
  const oldIps = clusterIpsOf(old);
  const newIps = clusterIpsOf(next);
  const needsIp = (ips: string[], spec: JsonObject) =>
    spec.type !== 'ExternalName' && ips[0] !== undefined && ips[0] !== '' && ips[0] !== 'None';
  if (!needsIp(oldIps, old) || !needsIp(newIps, next) || oldIps[0] === newIps[0]) return [];
  const quoted = `[]string{${newIps.map((ip) => JSON.stringify(ip)).join(', ')}}`;
  return [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${quoted}: may not change once set`,
      field: 'spec.clusterIPs[0]',
    },
  ];
}

function clusterIpsOf(spec: JsonObject): string[] {
  if (Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0) {
    return spec.clusterIPs.map((ip) => String(ip));
  }
  return typeof spec.clusterIP === 'string' ? [spec.clusterIP] : [];
}
