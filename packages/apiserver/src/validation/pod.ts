import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { validateEnv, validateEnvFrom } from './env.js';
import { invalid, required } from './field-errors.js';
import { dnsLabelErrors, duplicateErrors, type FieldError, notSupportedErrors } from './names.js';
import { validatePodFields } from './pod-fields.js';
import { validateContainerPorts } from './ports.js';
import { validateHandler, validateProbe } from './probes.js';
import { validateContainerSecurityContext } from './security-context.js';
import { validateVolumeMounts, validateVolumes } from './volumes.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];

const BINARY_SUFFIXES: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL_SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const QUANTITY = /^([+-]?[0-9.]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/** A resource quantity (`500m`, `2Gi`, `1e3`) as a number, or undefined when unparsable. */
export function quantityValue(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value);
  if (!match) return undefined;
  const base = Number(match[1]);
  const suffix = match[2] ?? '';
  if (Number.isNaN(base)) return undefined;
  if (suffix in BINARY_SUFFIXES) return base * (BINARY_SUFFIXES[suffix] ?? 1);
  if (suffix in DECIMAL_SUFFIXES) return base * (DECIMAL_SUFFIXES[suffix] ?? 1);
  return base * 10 ** Number(suffix.slice(1));
}

function containersOf(spec: JsonObject, key: string): JsonObject[] {
  const list = spec[key];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** `ValidateResourceRequirements`' request ≤ limit rule. */
function validateResources(container: JsonObject, path: string): FieldError[] {
  const resources = isObject(container.resources) ? container.resources : {};
  const requests = isObject(resources.requests) ? resources.requests : {};
  const limits = isObject(resources.limits) ? resources.limits : {};
  const errors: FieldError[] = [];
  for (const [resource, request] of Object.entries(requests)) {
    const want = quantityValue(request);
    const limit = quantityValue(limits[resource]);
    if (want === undefined || limit === undefined || want <= limit) continue;
    errors.push(
      invalid(
        `${path}.resources.requests`,
        String(request),
        `must be less than or equal to ${resource} limit`,
      ),
    );
  }
  return errors;
}

/** A probe that must succeed once to count (liveness, startup) with another threshold. */
function successThresholdErrors(probe: JsonValue | undefined, path: string): FieldError[] {
  if (!isObject(probe) || probe.successThreshold === undefined) return [];
  const threshold = probe.successThreshold;
  if (threshold === 1 || typeof threshold !== 'number') return [];
  return [invalid(`${path}.successThreshold`, threshold, 'must be 1')];
}

function lifecycleErrors(lifecycle: JsonValue | undefined, path: string): FieldError[] {
  if (!isObject(lifecycle)) return [];
  return ['postStart', 'preStop'].flatMap((hook) =>
    lifecycle[hook] === undefined ? [] : validateHandler(lifecycle[hook], `${path}.${hook}`),
  );
}

// kube-apiserver defaults it (and the pull and DNS policies) before validating, so the
// `Required value` it would give for an empty one never reaches a client.
function terminationMessagePolicyErrors(policy: JsonValue | undefined, path: string) {
  if (policy === undefined || policy === 'File' || policy === 'FallbackToLogsOnError') return [];
  return [invalid(path, String(policy), "must be 'File' or 'FallbackToLogsOnError'")];
}

/**
 * `validateContainers`, per container in kube-apiserver 1.20's order: name (DNS label,
 * unique), image, lifecycle hooks, liveness and startup probes, `terminationMessagePolicy`,
 * readiness probe, ports, env, volume mounts, `imagePullPolicy`, requests ≤ limits.
 */
function validateContainers(
  containers: JsonObject[],
  path: string,
  names: Set<string>,
  volumes: Set<string>,
): FieldError[] {
  const errors: FieldError[] = [];
  containers.forEach((container, i) => {
    const at = `${path}[${i}]`;
    const name = typeof container.name === 'string' ? container.name : '';
    if (name === '') errors.push(required(`${at}.name`));
    else errors.push(...dnsLabelErrors(name, `${at}.name`));
    errors.push(...duplicateErrors(name, names, `${at}.name`));
    if (typeof container.image !== 'string' || container.image === '') {
      errors.push(required(`${at}.image`));
    }
    errors.push(...lifecycleErrors(container.lifecycle, `${at}.lifecycle`));
    for (const probe of ['livenessProbe', 'startupProbe']) {
      errors.push(...validateProbe(container[probe], `${at}.${probe}`));
      errors.push(...successThresholdErrors(container[probe], `${at}.${probe}`));
    }
    errors.push(
      ...terminationMessagePolicyErrors(
        container.terminationMessagePolicy,
        `${at}.terminationMessagePolicy`,
      ),
    );
    errors.push(...validateProbe(container.readinessProbe, `${at}.readinessProbe`));
    errors.push(...validateContainerPorts(container.ports, `${at}.ports`));
    errors.push(...validateEnv(container.env, `${at}.env`));
    errors.push(...validateEnvFrom(container.envFrom, `${at}.envFrom`));
    errors.push(...validateVolumeMounts(container.volumeMounts, volumes, `${at}.volumeMounts`));
    errors.push(
      ...notSupportedErrors(container.imagePullPolicy, PULL_POLICIES, `${at}.imagePullPolicy`),
    );
    errors.push(...validateResources(container, at));
    errors.push(
      ...validateContainerSecurityContext(container.securityContext, `${at}.securityContext`),
    );
  });
  return errors;
}

/**
 * The semantic rules of `ValidatePodSpec` that kubets checks, in kube-apiserver 1.20's order:
 * volumes, containers (required; see {@link validateContainers}), init containers (also
 * unique against the containers), `restartPolicy`, `dnsPolicy`.
 */
export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  const podSpec = isObject(spec) ? spec : {};
  const volumes = validateVolumes(podSpec.volumes, `${path}.volumes`);
  const errors: FieldError[] = [...volumes.errors];
  const containers = containersOf(podSpec, 'containers');
  if (containers.length === 0) errors.push(required(`${path}.containers`));
  else {
    errors.push(...validateContainers(containers, `${path}.containers`, new Set(), volumes.names));
  }
  const inits = containersOf(podSpec, 'initContainers');
  errors.push(...validateContainers(inits, `${path}.initContainers`, new Set(), volumes.names));
  const taken = new Set(containers.map((c) => (typeof c.name === 'string' ? c.name : '')));
  inits.forEach((init, i) => {
    const name = typeof init.name === 'string' ? init.name : '';
    // Unlike containers' own check, an empty init container name is not recorded.
    if (taken.has(name) || name !== '') {
      errors.push(...duplicateErrors(name, taken, `${path}.initContainers[${i}].name`));
    }
  });
  errors.push(
    ...notSupportedErrors(podSpec.restartPolicy, RESTART_POLICIES, `${path}.restartPolicy`),
  );
  errors.push(...notSupportedErrors(podSpec.dnsPolicy, DNS_POLICIES, `${path}.dnsPolicy`));
  errors.push(...validatePodFields(podSpec, path));
  return errors;
}
