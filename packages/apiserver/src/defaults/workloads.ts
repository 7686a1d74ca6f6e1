/**
 * The defaults kube-apiserver 1.20 gives apps/v1 and batch/v1 workloads on every write, and
 * the status their create strategies start from (probed; the contract tests compare them).
 */
import { isObject, type JsonObject } from '../patch.js';
import { child, setDefault } from './fields.js';
import { defaultPodTemplate } from './pod.js';

function defaultTemplate(spec: JsonObject): void {
  defaultPodTemplate(child(spec, 'template'));
}

/** `strategy` RollingUpdate with 25% / 25% unless Recreate is asked for. */
function defaultRollingStrategy(spec: JsonObject, field: string, rollingUpdate: JsonObject): void {
  const strategy = child(spec, field);
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type !== 'RollingUpdate') return;
  const current = child(strategy, 'rollingUpdate');
  for (const [key, value] of Object.entries(rollingUpdate)) setDefault(current, key, value);
}

/** Defaults a Deployment's spec in place. */
export function defaultDeployment(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  setDefault(spec, 'replicas', 1);
  defaultTemplate(spec);
  defaultRollingStrategy(spec, 'strategy', { maxUnavailable: '25%', maxSurge: '25%' });
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
}

/** Defaults a StatefulSet's spec in place. */
export function defaultStatefulSet(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  setDefault(spec, 'replicas', 1);
  defaultTemplate(spec);
  setDefault(spec, 'podManagementPolicy', 'OrderedReady');
  defaultRollingStrategy(spec, 'updateStrategy', { partition: 0 });
  setDefault(spec, 'revisionHistoryLimit', 10);
}

/** Defaults a DaemonSet's spec in place. */
export function defaultDaemonSet(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  defaultTemplate(spec);
  defaultRollingStrategy(spec, 'updateStrategy', { maxUnavailable: 1 });
  setDefault(spec, 'revisionHistoryLimit', 10);
}

/** Defaults a ReplicaSet's spec in place. */
export function defaultReplicaSet(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  setDefault(spec, 'replicas', 1);
  defaultTemplate(spec);
}

/** Defaults a Job's spec in place (the selector is generated on create: {@link selectJobPods}). */
export function defaultJob(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  const completions = spec.completions;
  const parallelism = spec.parallelism;
  if (completions === undefined && parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', 6);
  defaultTemplate(spec);
  labelJobFromTemplate(obj);
}

/** A Job without labels takes its pod template's (batch/v1 defaulting). */
function labelJobFromTemplate(obj: JsonObject): void {
  const md = child(obj, 'metadata');
  if (isObject(md.labels) && Object.keys(md.labels).length > 0) return;
  const template = child(child(obj, 'spec'), 'template');
  const labels = isObject(template.metadata) ? template.metadata.labels : undefined;
  if (isObject(labels) && Object.keys(labels).length > 0) md.labels = { ...labels };
}

/**
 * A new Job's generated selector: `controller-uid` (and `job-name` on the template), unless
 * `manualSelector` is set.
 */
export function selectJobPods(obj: JsonObject, uid: string, name: string): void {
  const spec = child(obj, 'spec');
  if (spec.manualSelector === true) return;
  const template = child(spec, 'template');
  const labels = child(child(template, 'metadata'), 'labels');
  labels['controller-uid'] = uid;
  labels['job-name'] = name;
  const selector = isObject(spec.selector) ? spec.selector : undefined;
  if (!selector) spec.selector = { matchLabels: { 'controller-uid': uid } };
  // kube-apiserver defaults the Job again as it reads the new object back from storage: a Job
  // still without labels then takes its template's, these included (owned by no manager).
  labelJobFromTemplate(obj);
}

/** The status an apps/v1 workload starts from on create (as its create strategy writes it). */
export function initialWorkloadStatus(resource: string): JsonObject {
  if (resource === 'statefulsets' || resource === 'replicasets') return { replicas: 0 };
  if (resource === 'daemonsets') {
    return {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    };
  }
  return {};
}
