/**
 * Service address allocation as kube-apiserver 1.20 does it with its default flags: a
 * cluster IP from `10.0.0.0/24` (the first address is the `kubernetes` service's) and node
 * ports from 30000–32767, chosen at random among the free ones, refused (422) when taken or
 * out of range. What is taken is read from the stored Services, so a delete frees them.
 */
import { randomInt } from 'node:crypto';
import type { FieldError } from '@kubets/apiextensions';
import { isObject, type JsonObject } from './patch.js';
import { invalid } from './status.js';
import type { Target } from './target.js';
import type { VersionedStore } from './versioned-store.js';

/** The service CIDR kube-apiserver (and envtest) use unless told otherwise. */
export const SERVICE_CIDR = '10.0.0.0/24';
const IP_PREFIX = '10.0.0.';
/** .0 is the network, .1 the `kubernetes` service's, .255 the broadcast address. */
const FIRST_HOST = 2;
const LAST_HOST = 254;
/** kube-apiserver's default `--service-node-port-range`. */
export const NODE_PORT_MIN = 30000;
export const NODE_PORT_MAX = 32767;

interface Taken {
  ips: Set<string>;
  nodePorts: Set<number>;
}

function takenByOthers(store: VersionedStore, namespace: string, name: string): Taken {
  const ips = new Set<string>([`${IP_PREFIX}1`]);
  const nodePorts = new Set<number>();
  for (const entry of store.existingStore('', 'services')?.entries(undefined) ?? []) {
    if (entry.namespace === namespace && entry.name === name) continue;
    const spec = isObject(entry.obj.spec) ? entry.obj.spec : {};
    if (typeof spec.clusterIP === 'string') ips.add(spec.clusterIP);
    for (const port of Array.isArray(spec.ports) ? spec.ports.filter(isObject) : []) {
      if (typeof port.nodePort === 'number') nodePorts.add(port.nodePort);
    }
  }
  return { ips, nodePorts };
}

function pickFree<T>(candidates: T[], taken: (candidate: T) => boolean): T | undefined {
  const free = candidates.filter((c) => !taken(c));
  return free.length === 0 ? undefined : free[randomInt(free.length)];
}

function inServiceRange(ip: string): boolean {
  if (!ip.startsWith(IP_PREFIX)) return false;
  const host = Number(ip.slice(IP_PREFIX.length));
  return Number.isInteger(host) && String(host) === ip.slice(IP_PREFIX.length) && host <= 255;
}

function allocateClusterIp(
  spec: JsonObject,
  old: JsonObject | undefined,
  taken: Taken,
): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  let ip = typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? spec.clusterIP : ips[0];
  if ((ip === undefined || ip === '') && old && typeof old.clusterIP === 'string') {
    ip = old.clusterIP;
  }
  if (typeof ip === 'string' && ip !== '' && ip !== 'None' && ip !== old?.clusterIP) {
    const problem = !inServiceRange(ip)
      ? `provided IP is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`
      : taken.ips.has(ip)
        ? 'provided IP is already allocated'
        : undefined;
    if (problem) {
      return [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: []string{${JSON.stringify(ip)}}: failed to allocated ip:${ip} with error:${problem}`,
          field: 'spec.clusterIPs',
        },
      ];
    }
  }
  if (typeof ip !== 'string' || ip === '') {
    const hosts = Array.from({ length: LAST_HOST - FIRST_HOST + 1 }, (_, i) => i + FIRST_HOST);
    const host = pickFree(hosts, (h) => taken.ips.has(`${IP_PREFIX}${h}`));
    if (host === undefined) {
      return [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: []string(nil): failed to allocate a serviceIP: range is full`,
          field: 'spec.clusterIPs',
        },
      ];
    }
    ip = `${IP_PREFIX}${host}`;
  }
  spec.clusterIP = ip;
  spec.clusterIPs = [ip];
  return [];
}

function allocateNodePorts(
  spec: JsonObject,
  old: JsonObject | undefined,
  taken: Taken,
): FieldError[] {
  if (spec.type !== 'NodePort' && spec.type !== 'LoadBalancer') return [];
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObject) : [];
  const oldPorts = old && Array.isArray(old.ports) ? old.ports.filter(isObject) : [];
  const kept = new Set(oldPorts.map((p) => p.nodePort).filter((p) => typeof p === 'number'));
  const errors: FieldError[] = [];
  const used = new Set(taken.nodePorts);
  ports.forEach((port, i) => {
    if (port.nodePort === undefined || port.nodePort === 0) {
      const previous = oldPorts.find((p) => p.port === port.port && p.protocol === port.protocol);
      if (typeof previous?.nodePort === 'number' && !used.has(previous.nodePort)) {
        port.nodePort = previous.nodePort;
      }
    }
    const wanted = port.nodePort;
    if (typeof wanted === 'number' && wanted !== 0) {
      const problem =
        wanted < NODE_PORT_MIN || wanted > NODE_PORT_MAX
          ? `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_MIN}-${NODE_PORT_MAX}`
          : used.has(wanted) && !kept.has(wanted)
            ? 'provided port is already allocated'
            : undefined;
      if (problem) {
        errors.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${wanted}: ${problem}`,
          field: `spec.ports[${i}].nodePort`,
        });
      }
      used.add(wanted);
      return;
    }
    const range = Array.from(
      { length: NODE_PORT_MAX - NODE_PORT_MIN + 1 },
      (_, k) => k + NODE_PORT_MIN,
    );
    const free = pickFree(range, (p) => used.has(p));
    if (free !== undefined) {
      port.nodePort = free;
      used.add(free);
    }
  });
  return errors;
}

/**
 * Gives a Service being written its cluster IP and node ports (kept from `old` on update),
 * throwing 422 when the ones asked for are out of range or taken by another Service.
 */
export function allocateServiceAddresses(
  store: VersionedStore,
  target: Target,
  obj: JsonObject,
  old?: JsonObject | undefined,
): void {
  const { definition } = target;
  if (definition.custom || definition.group !== '' || definition.resource !== 'services') return;
  const spec = isObject(obj.spec) ? obj.spec : {};
  const oldSpec = old && isObject(old.spec) ? old.spec : undefined;
  const md = isObject(obj.metadata) ? obj.metadata : {};
  const taken = takenByOthers(store, target.namespace ?? '', String(md.name ?? ''));
  const errors = [
    ...allocateClusterIp(spec, oldSpec, taken),
    ...allocateNodePorts(spec, oldSpec, taken),
  ];
  if (errors.length > 0) throw invalid('Service', String(md.name ?? ''), errors);
}
