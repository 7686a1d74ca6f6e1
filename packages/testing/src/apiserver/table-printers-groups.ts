import { isObject, type JsonObject, type JsonValue } from './patch.js';
import {
  AGE,
  ageCell,
  CONTAINERS,
  columns,
  IMAGES,
  NAME,
  nameOf,
  type Printer,
  SELECTOR,
} from './table-columns.js';
import {
  ageOf,
  arrayAt,
  containersAndImages,
  formatLabelSelector,
  humanDuration,
  intAt,
  objectAt,
  stringAt,
} from './table-format.js';

/**
 * The printers of the batch, autoscaling, networking, policy, rbac and storage resources the
 * in-memory server serves, by `group/resource`, with kube-apiserver 1.20's columns.
 */

function boolText(value: JsonValue | undefined): string {
  return value === true ? 'True' : value === false ? 'False' : '<unset>';
}

function intOrStringText(value: JsonValue | undefined, fallback: string): string {
  return typeof value === 'number' || typeof value === 'string' ? String(value) : fallback;
}

function jobCompletions(job: JsonObject): string {
  const spec = objectAt(job, 'spec');
  const succeeded = intAt(objectAt(job, 'status'), 'succeeded');
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = intAt(spec, 'parallelism');
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: JsonObject, now: number): string {
  const status = objectAt(job, 'status');
  if (typeof status.startTime !== 'string') return '';
  const start = Date.parse(status.startTime);
  const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : now;
  return humanDuration(end - start);
}

/** `Role/name` and the subjects of a binding, split by kind. */
function bindingCells(binding: JsonObject): [string, string, string, string] {
  const ref = objectAt(binding, 'roleRef');
  const subjects = arrayAt(binding, 'subjects').filter(isObject);
  const named = (kind: string) =>
    subjects
      .filter((s) => s.kind === kind)
      .map((s) => stringAt(s, 'name'))
      .join(',');
  const serviceAccounts = subjects
    .filter((s) => s.kind === 'ServiceAccount')
    .map((s) => `${stringAt(s, 'namespace')}/${stringAt(s, 'name')}`)
    .join(',');
  return [
    `${stringAt(ref, 'kind')}/${stringAt(ref, 'name')}`,
    named('User'),
    named('Group'),
    serviceAccounts,
  ];
}

const bindingPrinter: Printer = {
  columns: columns(
    NAME,
    ['Role', 'string', 'The role it grants.'],
    AGE,
    ['Users', 'string', 'Users it binds.', 1],
    ['Groups', 'string', 'Groups it binds.', 1],
    ['ServiceAccounts', 'string', 'Service accounts it binds.', 1],
  ),
  row: (obj, now) => {
    const [role, users, groups, serviceAccounts] = bindingCells(obj);
    return { cells: [nameOf(obj), role, ageCell(obj, now), users, groups, serviceAccounts] };
  },
};

function ingressHosts(ingress: JsonObject): string {
  const rules = arrayAt(objectAt(ingress, 'spec'), 'rules').filter(isObject);
  const hosts = rules
    .slice(0, 3)
    .map((r) => stringAt(r, 'host'))
    .filter((h) => h !== '');
  if (hosts.length === 0) return '*';
  return rules.length > 3 ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

function loadBalancerText(status: JsonObject): string {
  return arrayAt(objectAt(status, 'loadBalancer'), 'ingress')
    .filter(isObject)
    .map((i) => stringAt(i, 'ip', stringAt(i, 'hostname')))
    .filter((s) => s !== '')
    .join(',');
}

/** autoscaling/v1's CPU target as 1.20 prints it: `current/target`, `<unknown>` before a reading. */
function hpaTargets(hpa: JsonObject): string {
  const spec = objectAt(hpa, 'spec');
  if (typeof spec.targetCPUUtilizationPercentage !== 'number') return '<none>';
  const current = objectAt(hpa, 'status').currentCPUUtilizationPercentage;
  return `${typeof current === 'number' ? `${current}%` : '<unknown>'}/${spec.targetCPUUtilizationPercentage}%`;
}

const volumeAttachmentColumns = columns(
  NAME,
  ['Attacher', 'string', 'The driver that attaches the volume.'],
  ['PV', 'string', 'The persistent volume attached.'],
  ['Node', 'string', 'The node it is attached to.'],
  ['Attached', 'boolean', 'Whether the volume is attached.'],
  AGE,
).map((c) => (c.name === 'Attacher' ? { ...c, format: 'name' } : c));

/** See the file's comment: printers by `group/resource`. */
export const groupPrinters: Readonly<Record<string, Printer>> = {
  'batch/jobs': {
    columns: columns(
      NAME,
      ['Completions', 'string', 'Succeeded pods of the completions wanted.'],
      ['Duration', 'string', 'How long the job ran.'],
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR,
    ),
    row: (job, now) => ({
      cells: [
        nameOf(job),
        jobCompletions(job),
        jobDuration(job, now),
        ageCell(job, now),
        ...containersAndImages(objectAt(job, 'spec.template.spec')),
        formatLabelSelector(objectAt(job, 'spec').selector),
      ],
    }),
  },
  'batch/cronjobs': {
    columns: columns(
      NAME,
      ['Schedule', 'string', 'The cron schedule.'],
      ['Suspend', 'boolean', 'Whether runs are suspended.'],
      ['Active', 'integer', 'Jobs running now.'],
      ['Last Schedule', 'string', 'When a job was last scheduled.'],
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR,
    ),
    row: (cronJob, now) => {
      const spec = objectAt(cronJob, 'spec');
      const status = objectAt(cronJob, 'status');
      const jobSpec = objectAt(cronJob, 'spec.jobTemplate.spec');
      return {
        cells: [
          nameOf(cronJob),
          stringAt(spec, 'schedule'),
          boolText(spec.suspend),
          arrayAt(status, 'active').length,
          typeof status.lastScheduleTime === 'string'
            ? ageOf(status.lastScheduleTime, now)
            : '<none>',
          ageCell(cronJob, now),
          ...containersAndImages(objectAt(jobSpec, 'template.spec')),
          formatLabelSelector(jobSpec.selector) || '<none>',
        ],
      };
    },
  },
  'autoscaling/horizontalpodautoscalers': {
    columns: columns(
      NAME,
      ['Reference', 'string', 'What it scales.'],
      ['Targets', 'string', 'Current and target metrics.'],
      ['MinPods', 'string', 'The fewest replicas.'],
      ['MaxPods', 'string', 'The most replicas.'],
      ['Replicas', 'string', 'Replicas now.'],
      AGE,
    ),
    row: (hpa, now) => {
      const spec = objectAt(hpa, 'spec');
      const target = objectAt(spec, 'scaleTargetRef');
      return {
        cells: [
          nameOf(hpa),
          `${stringAt(target, 'kind')}/${stringAt(target, 'name')}`,
          hpaTargets(hpa),
          intOrStringText(spec.minReplicas, '<unset>'),
          intAt(spec, 'maxReplicas'),
          intAt(objectAt(hpa, 'status'), 'currentReplicas'),
          ageCell(hpa, now),
        ],
      };
    },
  },
  'networking.k8s.io/ingresses': {
    columns: columns(
      NAME,
      ['Class', 'string', 'The ingress class.'],
      ['Hosts', 'string', 'Hosts its rules match.'],
      ['Address', 'string', 'Where the load balancer listens.'],
      ['Ports', 'string', 'Ports it serves.'],
      AGE,
    ),
    row: (ingress, now) => {
      const spec = objectAt(ingress, 'spec');
      return {
        cells: [
          nameOf(ingress),
          stringAt(spec, 'ingressClassName', '<none>'),
          ingressHosts(ingress),
          loadBalancerText(objectAt(ingress, 'status')),
          arrayAt(spec, 'tls').length > 0 ? '80, 443' : '80',
          ageCell(ingress, now),
        ],
      };
    },
  },
  'networking.k8s.io/ingressclasses': {
    columns: columns(
      NAME,
      ['Controller', 'string', 'The controller that implements the class.'],
      ['Parameters', 'string', 'Where its parameters are.'],
      AGE,
    ),
    row: (obj, now) => {
      const spec = objectAt(obj, 'spec');
      const parameters = objectAt(spec, 'parameters');
      return {
        cells: [
          nameOf(obj),
          stringAt(spec, 'controller'),
          isObject(spec.parameters)
            ? `${stringAt(parameters, 'kind')}/${stringAt(parameters, 'name')}`
            : '<none>',
          ageCell(obj, now),
        ],
      };
    },
  },
  'networking.k8s.io/networkpolicies': {
    columns: columns(NAME, ['Pod-Selector', 'string', 'The pods it applies to.'], AGE),
    row: (obj, now) => ({
      cells: [
        nameOf(obj),
        formatLabelSelector(objectAt(obj, 'spec').podSelector) || '<none>',
        ageCell(obj, now),
      ],
    }),
  },
  'policy/poddisruptionbudgets': {
    columns: columns(
      NAME,
      ['Min Available', 'string', 'Pods that must stay available.'],
      ['Max Unavailable', 'string', 'Pods that may be unavailable.'],
      ['Allowed Disruptions', 'integer', 'Disruptions allowed now.'],
      AGE,
    ),
    row: (obj, now) => {
      const spec = objectAt(obj, 'spec');
      return {
        cells: [
          nameOf(obj),
          intOrStringText(spec.minAvailable, 'N/A'),
          intOrStringText(spec.maxUnavailable, 'N/A'),
          intAt(objectAt(obj, 'status'), 'disruptionsAllowed'),
          ageCell(obj, now),
        ],
      };
    },
  },
  'rbac.authorization.k8s.io/rolebindings': bindingPrinter,
  'rbac.authorization.k8s.io/clusterrolebindings': bindingPrinter,
  'storage.k8s.io/storageclasses': {
    columns: columns(
      NAME,
      ['Provisioner', 'string', 'The volume plugin that provisions volumes.'],
      ['ReclaimPolicy', 'string', 'What happens to released volumes.'],
      ['VolumeBindingMode', 'string', 'When volumes are bound.'],
      ['AllowVolumeExpansion', 'string', 'Whether volumes may grow.'],
      AGE,
    ),
    row: (obj, now) => {
      const annotations = objectAt(obj, 'metadata.annotations');
      const isDefault =
        annotations['storageclass.kubernetes.io/is-default-class'] === 'true' ||
        annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
      return {
        cells: [
          isDefault ? `${nameOf(obj)} (default)` : nameOf(obj),
          stringAt(obj, 'provisioner'),
          stringAt(obj, 'reclaimPolicy', 'Delete'),
          stringAt(obj, 'volumeBindingMode', 'Immediate'),
          obj.allowVolumeExpansion === true,
          ageCell(obj, now),
        ],
      };
    },
  },
  'storage.k8s.io/csidrivers': {
    columns: columns(
      NAME,
      ['AttachRequired', 'boolean', 'Whether volumes need attaching.'],
      ['PodInfoOnMount', 'boolean', 'Whether mounts get pod information.'],
      ['Modes', 'string', 'Volume lifecycle modes it supports.'],
      AGE,
    ),
    row: (obj, now) => {
      const spec = objectAt(obj, 'spec');
      const modes = arrayAt(spec, 'volumeLifecycleModes').map(String);
      return {
        cells: [
          nameOf(obj),
          spec.attachRequired !== false,
          spec.podInfoOnMount === true,
          modes.length > 0 ? modes.join(',') : '<none>',
          ageCell(obj, now),
        ],
      };
    },
  },
  'storage.k8s.io/csinodes': {
    columns: columns(NAME, ['Drivers', 'integer', 'CSI drivers on the node.'], AGE),
    row: (obj, now) => ({
      cells: [nameOf(obj), arrayAt(objectAt(obj, 'spec'), 'drivers').length, ageCell(obj, now)],
    }),
  },
  'storage.k8s.io/volumeattachments': {
    columns: volumeAttachmentColumns,
    row: (obj, now) => {
      const spec = objectAt(obj, 'spec');
      return {
        cells: [
          nameOf(obj),
          stringAt(spec, 'attacher'),
          stringAt(objectAt(spec, 'source'), 'persistentVolumeName'),
          stringAt(spec, 'nodeName'),
          objectAt(obj, 'status').attached === true,
          ageCell(obj, now),
        ],
      };
    },
  },
};
