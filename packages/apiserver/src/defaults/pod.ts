/**
 * The defaults kube-apiserver 1.20 gives a pod spec (its `SetDefaults_*` functions for
 * core/v1), and what it adds to a Pod itself on create: requests from limits, the
 * Priority and DefaultTolerationSeconds admission plugins' fields, and `status.qosClass`.
 * Values were probed on kube-apiserver 1.20 (the contract tests compare them).
 */
import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { child, objects, setDefault } from './fields.js';

/** Mode 0644, as kube-apiserver writes it for secret, configMap, downwardAPI, projected volumes. */
const DEFAULT_VOLUME_MODE = 420;

/**
 * `Always` for an image with no tag or `:latest` (and no digest), else `IfNotPresent`:
 * kube-apiserver's `imagePullPolicy` default.
 */
export function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return lastSegment.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: JsonValue | undefined): void {
  if (!isObject(probe)) return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  defaultHandler(probe);
}

function defaultHandler(handler: JsonValue | undefined): void {
  if (!isObject(handler)) return;
  if (isObject(handler.httpGet)) {
    setDefault(handler.httpGet, 'path', '/');
    setDefault(handler.httpGet, 'scheme', 'HTTP');
  }
}

function defaultContainer(container: JsonObject, hostNetwork: boolean): void {
  if (typeof container.image === 'string' && container.image !== '') {
    setDefault(container, 'imagePullPolicy', defaultPullPolicy(container.image));
  }
  for (const port of objects(container.ports)) {
    setDefault(port, 'protocol', 'TCP');
    if (hostNetwork) setDefault(port, 'hostPort', port.containerPort ?? 0);
  }
  for (const env of objects(container.env)) {
    const fieldRef = isObject(env.valueFrom) ? env.valueFrom.fieldRef : undefined;
    if (isObject(fieldRef)) setDefault(fieldRef, 'apiVersion', 'v1');
  }
  child(container, 'resources');
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  defaultProbe(container.livenessProbe);
  defaultProbe(container.readinessProbe);
  defaultProbe(container.startupProbe);
  if (isObject(container.lifecycle)) {
    defaultHandler(container.lifecycle.postStart);
    defaultHandler(container.lifecycle.preStop);
  }
}

const VOLUME_SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected'];

function defaultVolume(volume: JsonObject): void {
  const sources = Object.keys(volume).filter((k) => k !== 'name');
  if (sources.length === 0) volume.emptyDir = {};
  for (const source of VOLUME_SOURCES_WITH_MODE) {
    const value = volume[source];
    if (isObject(value)) setDefault(value, 'defaultMode', DEFAULT_VOLUME_MODE);
  }
  if (isObject(volume.hostPath)) setDefault(volume.hostPath, 'type', '');
}

/** Defaults a pod spec in place: a Pod's `spec` or a workload's `spec.template.spec`. */
export function defaultPodSpec(spec: JsonObject): void {
  const hostNetwork = spec.hostNetwork === true;
  for (const volume of objects(spec.volumes)) defaultVolume(volume);
  for (const container of objects(spec.initContainers)) defaultContainer(container, hostNetwork);
  for (const container of objects(spec.containers)) defaultContainer(container, hostNetwork);
  for (const container of objects(spec.ephemeralContainers)) {
    defaultContainer(container, hostNetwork);
  }
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  child(spec, 'securityContext');
  setDefault(spec, 'schedulerName', 'default-scheduler');
}

/** Defaults a workload's pod template in place (`creationTimestamp: null` as Go writes it). */
export function defaultPodTemplate(template: JsonObject): void {
  const metadata = child(template, 'metadata');
  if (metadata.creationTimestamp === undefined) metadata.creationTimestamp = null;
  defaultPodSpec(child(template, 'spec'));
}

/** A container's requests default to its limits, for each resource with no request (pods only). */
function defaultRequestsFromLimits(container: JsonObject): void {
  const resources = child(container, 'resources');
  if (!isObject(resources.limits) || Object.keys(resources.limits).length === 0) return;
  const requests = child(resources, 'requests');
  for (const [name, limit] of Object.entries(resources.limits)) {
    if (requests[name] === undefined) requests[name] = limit;
  }
}

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** The DefaultTolerationSeconds admission plugin: tolerate not-ready/unreachable for 300 s. */
function addDefaultTolerations(spec: JsonObject): void {
  const tolerations = objects(spec.tolerations);
  const tolerates = (key: string): boolean =>
    tolerations.some(
      (t) =>
        (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute') &&
        (t.key === key || ((t.key === undefined || t.key === '') && t.operator === 'Exists')),
    );
  const added = [NOT_READY, UNREACHABLE]
    .filter((key) => !tolerates(key))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}

/** The quality-of-service class kube-apiserver records in a new pod's status. */
export function podQosClass(spec: JsonObject): string {
  const containers = [...objects(spec.initContainers), ...objects(spec.containers)];
  let anySet = false;
  let guaranteed = true;
  for (const container of containers) {
    const resources = isObject(container.resources) ? container.resources : {};
    const requests = isObject(resources.requests) ? resources.requests : {};
    const limits = isObject(resources.limits) ? resources.limits : {};
    for (const name of ['cpu', 'memory']) {
      if (requests[name] !== undefined || limits[name] !== undefined) anySet = true;
      if (limits[name] === undefined) guaranteed = false;
      else if (requests[name] !== undefined && String(requests[name]) !== String(limits[name])) {
        guaranteed = false;
      }
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** A Pod's defaults on every write: the spec's, requests from limits, `enableServiceLinks`. */
export function defaultPod(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  for (const container of [...objects(spec.initContainers), ...objects(spec.containers)]) {
    defaultRequestsFromLimits(container);
  }
  defaultPodSpec(spec);
  setDefault(spec, 'enableServiceLinks', true);
}

/**
 * What the Priority and DefaultTolerationSeconds admission plugins (both in kube-apiserver's
 * default set) add to a new Pod.
 */
export function admitNewPod(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  addDefaultTolerations(spec);
  if (spec.priorityClassName === undefined || spec.priorityClassName === '') {
    setDefault(spec, 'priority', 0);
  }
  setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
}
