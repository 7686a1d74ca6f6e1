import type { ContractEndpoint } from './contract-client.js';
import {
  type Cause,
  defineInvalidCreates,
  forbidden,
  type InvalidCreate,
  invalid,
  LABEL_VALUE,
  QUALIFIED,
  required,
  unsupported,
} from './validation-causes.js';

/**
 * Validation of workloads (issue 18 item 1): ReplicaSets, DaemonSets, StatefulSets, Jobs and
 * the parts of a Deployment beyond its selector, and label selectors' own syntax, as
 * kube-apiserver 1.20 lists them.
 */

const NON_NEGATIVE = 'must be greater than or equal to 0';
const BAD_LABEL_KEY = invalid('spec.template.labels', '-x', `name part ${QUALIFIED}`);
const containers = [{ name: 'c', image: 'x' }];
/** A template labelled a=b plus a bad label key, whose pods never restart and have a deadline. */
const neverRestarting = {
  metadata: { labels: { a: 'b', '-x': 'y' } },
  spec: { restartPolicy: 'Never', activeDeadlineSeconds: 5, containers },
};
const notAlways = unsupported('spec.template.spec.restartPolicy', 'Never', ['Always']);
const noDeadline = (owner: string): Cause =>
  forbidden(
    'spec.template.spec.activeDeadlineSeconds',
    `activeDeadlineSeconds in ${owner} is not Supported`,
  );
const goInvalid = (field: string, goValue: string, detail: string): Cause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${goValue}${detail ? `: ${detail}` : ''}`,
  field,
});
const DS_MAX_UNAVAILABLE = 'spec.updateStrategy.rollingUpdate.maxUnavailable';
const EMPTY_SELECTOR =
  'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}';

/** One case per `[value, causes]`: an apps/v1 workload selecting its a=b template, with `field` set to value. */
function fieldCases(
  kind: string,
  resource: string,
  field: string,
  table: [Record<string, unknown>, Cause[]][],
): InvalidCreate[] {
  return table.map(([value, causes]) => ({
    what: `a ${kind} ${field} ${JSON.stringify(value)}`,
    apiVersion: 'apps/v1',
    resource,
    kind,
    spec: {
      [field]: value,
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers } },
    },
    causes,
  }));
}

/** Workload specs and the causes kube-apiserver 1.20 answered for them. */
const CASES: InvalidCreate[] = [
  {
    what: 'a Deployment template: its labels, restartPolicy Always, no deadline; minReadySeconds',
    apiVersion: 'apps/v1',
    resource: 'deployments',
    kind: 'Deployment',
    spec: { minReadySeconds: -1, selector: { matchLabels: { a: 'b' } }, template: neverRestarting },
    causes: [
      BAD_LABEL_KEY,
      notAlways,
      noDeadline('ReplicaSet'),
      invalid('spec.minReadySeconds', -1, NON_NEGATIVE),
    ],
  },
  {
    what: 'label selector syntax; a selector that does not convert skips the template',
    apiVersion: 'apps/v1',
    resource: 'deployments',
    kind: 'Deployment',
    spec: {
      progressDeadlineSeconds: 5,
      minReadySeconds: 5,
      revisionHistoryLimit: -1,
      selector: {
        matchLabels: { a: 'b' },
        matchExpressions: [
          { key: 'k', operator: 'In' },
          { key: '-k', operator: 'Exists', values: ['v'] },
          { key: 'k', operator: 'Has', values: [] },
        ],
      },
      template: { metadata: { labels: { a: 'b' } }, spec: { restartPolicy: 'Never', containers } },
    },
    causes: [
      required(
        'spec.selector.matchExpressions[0].values',
        "must be specified when `operator` is 'In' or 'NotIn'",
      ),
      forbidden(
        'spec.selector.matchExpressions[1].values',
        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ),
      invalid('spec.selector.matchExpressions[1].key', '-k', `name part ${QUALIFIED}`),
      invalid('spec.selector.matchExpressions[2].operator', 'Has', 'not a valid selector operator'),
      goInvalid(
        'spec.selector',
        'v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"k", Operator:"In", Values:[]string(nil)}, v1.LabelSelectorRequirement{Key:"-k", Operator:"Exists", Values:[]string{"v"}}, v1.LabelSelectorRequirement{Key:"k", Operator:"Has", Values:[]string{}}}}',
        'invalid label selector',
      ),
      invalid('spec.revisionHistoryLimit', -1, NON_NEGATIVE),
      invalid('spec.progressDeadlineSeconds', 5, 'must be greater than minReadySeconds'),
    ],
  },
  ...fieldCases('Deployment', 'deployments', 'strategy', [
    [
      { type: 'Recreate', rollingUpdate: { maxSurge: 1 } },
      [
        forbidden(
          'spec.strategy.rollingUpdate',
          "may not be specified when strategy `type` is 'Recreate'",
        ),
      ],
    ],
    [
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 'x', maxSurge: -1 } },
      [
        goInvalid(
          'spec.strategy.rollingUpdate.maxUnavailable',
          'intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}',
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        ),
        invalid('spec.strategy.rollingUpdate.maxSurge', -1, NON_NEGATIVE),
      ],
    ],
    [
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '150%', maxSurge: '0%' } },
      [
        goInvalid(
          'spec.strategy.rollingUpdate.maxUnavailable',
          'intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}',
          'must not be greater than 100%',
        ),
      ],
    ],
    [
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
      [
        goInvalid(
          'spec.strategy.rollingUpdate.maxUnavailable',
          'intstr.IntOrString{Type:0, IntVal:0, StrVal:""}',
          'may not be 0 when `maxSurge` is 0',
        ),
      ],
    ],
    [
      { type: 'Bad' },
      [
        {
          reason: 'FieldValueNotSupported',
          message:
            'Unsupported value: apps.DeploymentStrategy{Type:"Bad", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
          field: 'spec.strategy',
        },
      ],
    ],
  ]),
  {
    what: 'a ReplicaSet: replicas, minReadySeconds, then the template as a Deployment’s',
    apiVersion: 'apps/v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    spec: {
      replicas: -1,
      minReadySeconds: -1,
      selector: { matchLabels: { a: 'b' } },
      template: neverRestarting,
    },
    causes: [
      invalid('spec.replicas', -1, NON_NEGATIVE),
      invalid('spec.minReadySeconds', -1, NON_NEGATIVE),
      BAD_LABEL_KEY,
      notAlways,
      noDeadline('ReplicaSet'),
    ],
  },
  {
    what: 'a ReplicaSet’s empty selector (said to be invalid “for deployment”)',
    apiVersion: 'apps/v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    spec: { selector: {}, template: neverRestarting },
    causes: [
      goInvalid('spec.selector', EMPTY_SELECTOR, 'empty selector is invalid for deployment'),
      BAD_LABEL_KEY,
      notAlways,
      noDeadline('ReplicaSet'),
    ],
  },
  {
    what: 'a DaemonSet: its template selected, labels, Always, no deadline, minReadySeconds',
    apiVersion: 'apps/v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    spec: { minReadySeconds: -1, selector: { matchLabels: { a: 'c' } }, template: neverRestarting },
    causes: [
      goInvalid(
        'spec.template.metadata.labels',
        'map[string]string{"-x":"y", "a":"b"}',
        '`selector` does not match template `labels`',
      ),
      BAD_LABEL_KEY,
      notAlways,
      noDeadline('DaemonSet'),
      invalid('spec.minReadySeconds', -1, NON_NEGATIVE),
    ],
  },
  {
    what: 'a DaemonSet without a selector (it selects nothing, and is not itself reported)',
    apiVersion: 'apps/v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers } } },
    causes: [
      goInvalid(
        'spec.template.metadata.labels',
        'map[string]string{"a":"b"}',
        '`selector` does not match template `labels`',
      ),
    ],
  },
  {
    what: 'a DaemonSet selector with a bad value (it does not convert: no match check)',
    apiVersion: 'apps/v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    spec: {
      selector: { matchLabels: { a: '-b' } },
      template: { metadata: { labels: { a: 'x' } }, spec: { containers } },
    },
    causes: [invalid('spec.selector.matchLabels', '-b', LABEL_VALUE)],
  },
  ...fieldCases('DaemonSet', 'daemonsets', 'updateStrategy', [
    [
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } },
      [
        goInvalid(
          DS_MAX_UNAVAILABLE,
          'intstr.IntOrString{Type:0, IntVal:0, StrVal:""}',
          'cannot be 0',
        ),
      ],
    ],
    [
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 'x' } },
      [
        goInvalid(
          DS_MAX_UNAVAILABLE,
          'intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}',
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        ),
        goInvalid(
          DS_MAX_UNAVAILABLE,
          'intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}',
          'cannot be 0',
        ),
      ],
    ],
    [
      { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '120%' } },
      [
        goInvalid(
          DS_MAX_UNAVAILABLE,
          'intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}',
          'must not be greater than 100%',
        ),
      ],
    ],
    [
      { type: 'Bad' },
      [
        {
          reason: 'FieldValueNotSupported',
          message:
            'Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Bad", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"',
          field: 'spec.updateStrategy',
        },
      ],
    ],
  ]),
  {
    what: 'a StatefulSet: podManagementPolicy, replicas, template labels, Always, no deadline',
    apiVersion: 'apps/v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    spec: {
      podManagementPolicy: 'Whenever',
      replicas: -1,
      selector: { matchLabels: { a: 'b' } },
      template: neverRestarting,
    },
    causes: [
      invalid('spec.podManagementPolicy', 'Whenever', "must be 'OrderedReady' or 'Parallel'"),
      invalid('spec.replicas', -1, NON_NEGATIVE),
      BAD_LABEL_KEY,
      notAlways,
      noDeadline('StatefulSet'),
    ],
  },
  {
    what: 'a StatefulSet: updateStrategy type, empty selector; its pod spec is not validated',
    apiVersion: 'apps/v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    spec: { updateStrategy: { type: 'Bad' }, selector: {}, template: { spec: { containers: [] } } },
    causes: [
      goInvalid(
        'spec.updateStrategy',
        'apps.StatefulSetUpdateStrategy{Type:"Bad", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}',
        "must be 'RollingUpdate' or 'OnDelete'",
      ),
      goInvalid('spec.selector', EMPTY_SELECTOR, 'empty selector is invalid for statefulset'),
    ],
  },
  {
    what: 'a StatefulSet: partition ≥ 0, a selector that does not convert (no detail)',
    apiVersion: 'apps/v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    spec: {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1 } },
      selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['b c'] }] },
      template: { metadata: { labels: { a: 'x' } }, spec: { containers } },
    },
    causes: [
      invalid('spec.updateStrategy.rollingUpdate.partition', -1, NON_NEGATIVE),
      goInvalid(
        'spec.selector',
        'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"In", Values:[]string{"b c"}}}}',
        '',
      ),
    ],
  },
  {
    what: 'a Job: counts ≥ 0, and restartPolicy required to be OnFailure or Never',
    apiVersion: 'batch/v1',
    resource: 'jobs',
    kind: 'Job',
    spec: {
      parallelism: -1,
      completions: -1,
      backoffLimit: -1,
      activeDeadlineSeconds: -1,
      template: { spec: { containers } },
    },
    causes: [
      invalid('spec.parallelism', -1, NON_NEGATIVE),
      invalid('spec.completions', -1, NON_NEGATIVE),
      invalid('spec.activeDeadlineSeconds', -1, NON_NEGATIVE),
      invalid('spec.backoffLimit', -1, NON_NEGATIVE),
      required('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"'),
    ],
  },
  {
    what: 'a Job whose restartPolicy is not one at all (listed by the pod spec and the Job)',
    apiVersion: 'batch/v1',
    resource: 'jobs',
    kind: 'Job',
    spec: { template: { spec: { restartPolicy: 'Sometimes', containers } } },
    causes: [
      unsupported('spec.template.spec.restartPolicy', 'Sometimes', [
        'Always',
        'OnFailure',
        'Never',
      ]),
      unsupported('spec.template.spec.restartPolicy', 'Sometimes', ['OnFailure', 'Never']),
    ],
  },
  {
    what: 'a Job whose pods restart Always',
    apiVersion: 'batch/v1',
    resource: 'jobs',
    kind: 'Job',
    spec: { template: { spec: { restartPolicy: 'Always', containers } } },
    causes: [required('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"')],
  },
  {
    what: 'a CronJob’s required schedule',
    apiVersion: 'batch/v1beta1',
    resource: 'cronjobs',
    kind: 'CronJob',
    spec: { jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers } } } } },
    causes: [required('spec.schedule')],
  },
  {
    what: 'a CronJob: schedule syntax, deadlines and limits ≥ 0, concurrencyPolicy, its job template',
    apiVersion: 'batch/v1beta1',
    resource: 'cronjobs',
    kind: 'CronJob',
    spec: {
      schedule: '61 * * * *',
      startingDeadlineSeconds: -1,
      concurrencyPolicy: 'Sometimes',
      successfulJobsHistoryLimit: -1,
      failedJobsHistoryLimit: -2,
      jobTemplate: {
        spec: {
          parallelism: -1,
          manualSelector: true,
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { '-x': 'y' } }, spec: { containers } },
        },
      },
    },
    causes: [
      invalid('spec.schedule', '61 * * * *', 'End of range (61) above maximum (59): 61'),
      invalid('spec.startingDeadlineSeconds', -1, NON_NEGATIVE),
      unsupported('spec.concurrencyPolicy', 'Sometimes', ['Allow', 'Forbid', 'Replace']),
      invalid('spec.jobTemplate.spec.parallelism', -1, NON_NEGATIVE),
      invalid('spec.jobTemplate.spec.template.labels', '-x', `name part ${QUALIFIED}`),
      required(
        'spec.jobTemplate.spec.template.spec.restartPolicy',
        'valid values: "OnFailure", "Never"',
      ),
      goInvalid(
        'spec.jobTemplate.spec.selector',
        'v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}',
        '`selector` will be auto-generated',
      ),
      unsupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']),
      invalid('spec.successfulJobsHistoryLimit', -1, NON_NEGATIVE),
      invalid('spec.failedJobsHistoryLimit', -2, NON_NEGATIVE),
    ],
  },
];

export function defineWorkloadValidationContract(getTarget: () => ContractEndpoint): void {
  defineInvalidCreates(getTarget, 'validation of workloads and label selectors', CASES);
}
