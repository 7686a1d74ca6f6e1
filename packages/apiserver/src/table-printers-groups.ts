import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { namedPrinter, nameOf, type Printer, workloadPrinter } from './table-columns.js';
import {
  ageOf,
  arrayAt,
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

const bindingPrinter = namedPrinter({
  columns: `
    Role | string | The role it grants.
  `,
  cells: (binding) => [bindingCells(binding)[0]],
  afterAge: `
    Users | string | Users it binds. | wide
    Groups | string | Groups it binds. | wide
    ServiceAccounts | string | Service accounts it binds. | wide
  `,
  afterAgeCells: (binding) => bindingCells(binding).slice(1),
});

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

const volumeAttachmentLayout = namedPrinter({
  columns: `
    Attacher | string | The driver that attaches the volume.
    PV | string | The persistent volume attached.
    Node | string | The node it is attached to.
    Attached | boolean | Whether the volume is attached.
  `,
  cells: (obj) => {
    const spec = objectAt(obj, 'spec');
    return [
      stringAt(spec, 'attacher'),
      stringAt(objectAt(spec, 'source'), 'persistentVolumeName'),
      stringAt(spec, 'nodeName'),
      objectAt(obj, 'status').attached === true,
    ];
  },
});

/** 1.20 gives the Attacher column the `name` format too. */
const volumeAttachmentPrinter: Printer = {
  ...volumeAttachmentLayout,
  columns: volumeAttachmentLayout.columns.map((c) =>
    c.name === 'Attacher' ? { ...c, format: 'name' } : c,
  ),
};

/** See the file's comment: printers by `group/resource`. */
export const groupPrinters: Readonly<Record<string, Printer>> = {
  'batch/jobs': workloadPrinter({
    columns: `
      Completions | string | Succeeded pods of the completions wanted.
      Duration | string | How long the job ran.
    `,
    cells: (job, now) => [jobCompletions(job), jobDuration(job, now)],
    selector: (job) => formatLabelSelector(objectAt(job, 'spec').selector),
  }),
  'batch/cronjobs': workloadPrinter({
    columns: `
      Schedule | string | The cron schedule.
      Suspend | boolean | Whether runs are suspended.
      Active | integer | Jobs running now.
      Last Schedule | string | When a job was last scheduled.
    `,
    cells: (cronJob, now) => {
      const spec = objectAt(cronJob, 'spec');
      const status = objectAt(cronJob, 'status');
      return [
        stringAt(spec, 'schedule'),
        boolText(spec.suspend),
        arrayAt(status, 'active').length,
        typeof status.lastScheduleTime === 'string'
          ? ageOf(status.lastScheduleTime, now)
          : '<none>',
      ];
    },
    podSpecPath: 'spec.jobTemplate.spec.template.spec',
    selector: (cronJob) =>
      formatLabelSelector(objectAt(cronJob, 'spec.jobTemplate.spec').selector) || '<none>',
  }),
  'autoscaling/horizontalpodautoscalers': namedPrinter({
    columns: `
      Reference | string | What it scales.
      Targets | string | Current and target metrics.
      MinPods | string | The fewest replicas.
      MaxPods | string | The most replicas.
      Replicas | string | Replicas now.
    `,
    cells: (hpa) => {
      const spec = objectAt(hpa, 'spec');
      const target = objectAt(spec, 'scaleTargetRef');
      return [
        `${stringAt(target, 'kind')}/${stringAt(target, 'name')}`,
        hpaTargets(hpa),
        intOrStringText(spec.minReplicas, '<unset>'),
        intAt(spec, 'maxReplicas'),
        intAt(objectAt(hpa, 'status'), 'currentReplicas'),
      ];
    },
  }),
  'networking.k8s.io/ingresses': namedPrinter({
    columns: `
      Class | string | The ingress class.
      Hosts | string | Hosts its rules match.
      Address | string | Where the load balancer listens.
      Ports | string | Ports it serves.
    `,
    cells: (ingress) => {
      const spec = objectAt(ingress, 'spec');
      return [
        stringAt(spec, 'ingressClassName', '<none>'),
        ingressHosts(ingress),
        loadBalancerText(objectAt(ingress, 'status')),
        arrayAt(spec, 'tls').length > 0 ? '80, 443' : '80',
      ];
    },
  }),
  'networking.k8s.io/ingressclasses': namedPrinter({
    columns: `
      Controller | string | The controller that implements the class.
      Parameters | string | Where its parameters are.
    `,
    cells: (obj) => {
      const spec = objectAt(obj, 'spec');
      const parameters = objectAt(spec, 'parameters');
      return [
        stringAt(spec, 'controller'),
        isObject(spec.parameters)
          ? `${stringAt(parameters, 'kind')}/${stringAt(parameters, 'name')}`
          : '<none>',
      ];
    },
  }),
  'networking.k8s.io/networkpolicies': namedPrinter({
    columns: `
      Pod-Selector | string | The pods it applies to.
    `,
    cells: (obj) => [formatLabelSelector(objectAt(obj, 'spec').podSelector) || '<none>'],
  }),
  'policy/poddisruptionbudgets': namedPrinter({
    columns: `
      Min Available | string | Pods that must stay available.
      Max Unavailable | string | Pods that may be unavailable.
      Allowed Disruptions | integer | Disruptions allowed now.
    `,
    cells: (obj) => {
      const spec = objectAt(obj, 'spec');
      return [
        intOrStringText(spec.minAvailable, 'N/A'),
        intOrStringText(spec.maxUnavailable, 'N/A'),
        intAt(objectAt(obj, 'status'), 'disruptionsAllowed'),
      ];
    },
  }),
  'rbac.authorization.k8s.io/rolebindings': bindingPrinter,
  'rbac.authorization.k8s.io/clusterrolebindings': bindingPrinter,
  'storage.k8s.io/storageclasses': namedPrinter({
    columns: `
      Provisioner | string | The volume plugin that provisions volumes.
      ReclaimPolicy | string | What happens to released volumes.
      VolumeBindingMode | string | When volumes are bound.
      AllowVolumeExpansion | string | Whether volumes may grow.
    `,
    cells: (obj) => [
      stringAt(obj, 'provisioner'),
      stringAt(obj, 'reclaimPolicy', 'Delete'),
      stringAt(obj, 'volumeBindingMode', 'Immediate'),
      obj.allowVolumeExpansion === true,
    ],
    name: (obj) => {
      const annotations = objectAt(obj, 'metadata.annotations');
      const isDefault = [
        'storageclass.kubernetes.io/is-default-class',
        'storageclass.beta.kubernetes.io/is-default-class',
      ].some((key) => annotations[key] === 'true');
      return isDefault ? `${nameOf(obj)} (default)` : nameOf(obj);
    },
  }),
  'storage.k8s.io/csidrivers': namedPrinter({
    columns: `
      AttachRequired | boolean | Whether volumes need attaching.
      PodInfoOnMount | boolean | Whether mounts get pod information.
      Modes | string | Volume lifecycle modes it supports.
    `,
    cells: (obj) => {
      const spec = objectAt(obj, 'spec');
      const modes = arrayAt(spec, 'volumeLifecycleModes').map(String);
      return [
        spec.attachRequired !== false,
        spec.podInfoOnMount === true,
        modes.length > 0 ? modes.join(',') : '<none>',
      ];
    },
  }),
  'storage.k8s.io/csinodes': namedPrinter({
    columns: `
      Drivers | integer | CSI drivers on the node.
    `,
    cells: (obj) => [arrayAt(objectAt(obj, 'spec'), 'drivers').length],
  }),
  'storage.k8s.io/volumeattachments': volumeAttachmentPrinter,
};
