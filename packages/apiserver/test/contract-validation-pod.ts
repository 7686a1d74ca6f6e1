import { describe, expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls } from './contract-helpers.js';
import {
  type Cause,
  DNS_LABEL,
  defineInvalidCreates,
  duplicate,
  expectInvalid,
  forbidden,
  invalid,
  QUALIFIED,
  required,
  SUBDOMAIN,
  unsupported,
} from './validation-causes.js';

/**
 * Validation of the pod spec beyond names and images (issue 18 item 1): container ports,
 * env, volumes and mounts, probes, and the policy enums, as kube-apiserver 1.20 lists them.
 */

const RANGE = 'must be between 1 and 65535, inclusive';
const ID_RANGE = 'must be between 0 and 2147483647, inclusive';
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const ENV_NAME =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";
/** A container named `c` with image `x` and `fields`. */
const container = (fields: Record<string, unknown>) => ({ name: 'c', image: 'x', ...fields });
const notFound = (field: string, value: string): Cause => ({
  reason: 'FieldValueNotFound',
  message: `Not found: ${JSON.stringify(value)}`,
  field,
});

/** Pod specs and the causes kube-apiserver 1.20 answered for them. */
const POD_SPEC_CASES: [string, Record<string, unknown>, Cause[]][] = [
  [
    'container ports, pull and termination-message policies, dnsPolicy',
    {
      dnsPolicy: 'Bad',
      containers: [
        container({
          imagePullPolicy: 'Sometimes',
          terminationMessagePolicy: 'Nope',
          ports: [
            { containerPort: 0, name: 'Http' },
            { containerPort: 70000, name: 'a--b', protocol: 'FOO', hostPort: -1 },
            { containerPort: 80, name: 'web' },
            { containerPort: 81, name: 'web' },
          ],
        }),
      ],
    },
    [
      invalid(
        'spec.containers[0].terminationMessagePolicy',
        'Nope',
        "must be 'File' or 'FallbackToLogsOnError'",
      ),
      invalid(
        'spec.containers[0].ports[0].name',
        'Http',
        'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      ),
      required('spec.containers[0].ports[0].containerPort'),
      invalid('spec.containers[0].ports[1].name', 'a--b', 'must not contain consecutive hyphens'),
      invalid('spec.containers[0].ports[1].containerPort', 70000, RANGE),
      invalid('spec.containers[0].ports[1].hostPort', -1, RANGE),
      unsupported('spec.containers[0].ports[1].protocol', 'FOO', PROTOCOLS),
      duplicate('spec.containers[0].ports[3].name', 'web'),
      unsupported('spec.containers[0].imagePullPolicy', 'Sometimes', [
        'Always',
        'IfNotPresent',
        'Never',
      ]),
      unsupported('spec.dnsPolicy', 'Bad', [
        'ClusterFirstWithHostNet',
        'ClusterFirst',
        'Default',
        'None',
      ]),
    ],
  ],
  [
    'env names and valueFrom (exactly one source, no value beside it)',
    {
      containers: [
        container({
          env: [
            { name: '' },
            { name: '1A', value: 'x' },
            { name: 'A', valueFrom: {} },
            { name: 'B', value: 'v', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } },
            {
              name: 'C',
              valueFrom: {
                configMapKeyRef: { name: 'cm', key: 'k' },
                secretKeyRef: { name: 's', key: 'k' },
              },
            },
            { name: '..', value: 'x' },
          ],
        }),
      ],
    },
    [
      required('spec.containers[0].env[0].name'),
      invalid('spec.containers[0].env[1].name', '1A', ENV_NAME),
      invalid(
        'spec.containers[0].env[2].valueFrom',
        '',
        'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      ),
      invalid(
        'spec.containers[0].env[3].valueFrom',
        '',
        'may not be specified when `value` is not empty',
      ),
      invalid(
        'spec.containers[0].env[4].valueFrom',
        '',
        'may not have more than one field specified at a time',
      ),
      invalid('spec.containers[0].env[5].name', '..', "must not be '..'"),
    ],
  ],
  [
    'volumes (names, one source each) and mounts (a known volume, a unique path)',
    {
      volumes: [
        { name: 'v', emptyDir: {} },
        { name: 'v', emptyDir: {} },
        { name: 'Bad_V', emptyDir: {} },
        { name: 'none' },
        { name: 'two', emptyDir: {}, configMap: { name: 'x' } },
        { name: 'ceph', emptyDir: {}, cephfs: { monitors: ['m'] } },
        { name: 's', secret: {} },
        { name: 'c', configMap: {} },
        { name: 'p', persistentVolumeClaim: {} },
      ],
      containers: [
        container({
          volumeMounts: [
            { name: 'missing', mountPath: '/a' },
            { name: 'v', mountPath: '/a' },
            { name: '', mountPath: '' },
            { name: 'two', mountPath: '/b' },
            { name: 'none', mountPath: '/c' },
          ],
        }),
      ],
    },
    [
      duplicate('spec.volumes[1].name', 'v'),
      invalid('spec.volumes[2].name', 'Bad_V', DNS_LABEL),
      forbidden('spec.volumes[4].configMap', 'may not specify more than 1 volume type'),
      forbidden('spec.volumes[5].cephFS', 'may not specify more than 1 volume type'),
      required('spec.volumes[6].secret.secretName'),
      required('spec.volumes[7].configMap.name'),
      required('spec.volumes[8].persistentVolumeClaim.claimName'),
      notFound('spec.containers[0].volumeMounts[0].name', 'missing'),
      invalid('spec.containers[0].volumeMounts[1].mountPath', '/a', 'must be unique'),
      required('spec.containers[0].volumeMounts[2].name'),
      notFound('spec.containers[0].volumeMounts[2].name', ''),
      required('spec.containers[0].volumeMounts[2].mountPath'),
      notFound('spec.containers[0].volumeMounts[3].name', 'two'),
    ],
  ],
  [
    'probes and lifecycle hooks: one handler, counts ≥ 0, liveness and startup succeed once',
    {
      containers: [
        container({
          lifecycle: { preStop: { exec: {} }, postStart: { httpGet: { port: 'Bad' } } },
          livenessProbe: { successThreshold: 2, periodSeconds: -1 },
          readinessProbe: { httpGet: { port: 0 }, tcpSocket: { port: 80 } },
          startupProbe: { exec: { command: ['x'] }, initialDelaySeconds: -1 },
        }),
      ],
    },
    [
      invalid(
        'spec.containers[0].lifecycle.postStart.httpGet.port',
        'Bad',
        'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      ),
      required('spec.containers[0].lifecycle.preStop.exec.command'),
      required('spec.containers[0].livenessProbe', 'must specify a handler type'),
      invalid(
        'spec.containers[0].livenessProbe.periodSeconds',
        -1,
        'must be greater than or equal to 0',
      ),
      invalid('spec.containers[0].livenessProbe.successThreshold', 2, 'must be 1'),
      invalid(
        'spec.containers[0].startupProbe.initialDelaySeconds',
        -1,
        'must be greater than or equal to 0',
      ),
      invalid('spec.containers[0].readinessProbe.httpGet.port', 0, RANGE),
      forbidden(
        'spec.containers[0].readinessProbe.tcpSocket',
        'may not specify more than 1 handler type',
      ),
    ],
  ],
  [
    'envFrom: a prefix that is a variable name, exactly one named source (counted on the list)',
    {
      containers: [
        container({
          envFrom: [
            { prefix: '1x' },
            { configMapRef: { name: 'Bad_Name' }, secretRef: { name: '' } },
            { secretRef: {} },
          ],
        }),
      ],
    },
    [
      invalid('spec.containers[0].envFrom[0].prefix', '1x', ENV_NAME),
      invalid(
        'spec.containers[0].envFrom',
        '',
        'must specify one of: `configMapRef` or `secretRef`',
      ),
      invalid('spec.containers[0].envFrom[1].configMapRef.name', 'Bad_Name', SUBDOMAIN),
      required('spec.containers[0].envFrom[1].secretRef.name'),
      invalid(
        'spec.containers[0].envFrom',
        '',
        'may not have more than one field specified at a time',
      ),
      required('spec.containers[0].envFrom[2].secretRef.name'),
    ],
  ],
  [
    'user and group ids, nodeSelector, names the pod refers to, activeDeadlineSeconds, hostname',
    {
      nodeSelector: { '-a': 'b' },
      serviceAccountName: 'Bad_SA',
      nodeName: 'Bad_Node',
      activeDeadlineSeconds: 0,
      hostname: 'Bad.Host',
      subdomain: 'a_b',
      securityContext: { runAsUser: -1, fsGroup: -2, runAsGroup: -3, supplementalGroups: [1, -4] },
      containers: [
        container({ securityContext: { privileged: true, runAsUser: -5, runAsGroup: -6 } }),
      ],
    },
    [
      invalid('spec.containers[0].securityContext.runAsUser', -5, ID_RANGE),
      invalid('spec.containers[0].securityContext.runAsGroup', -6, ID_RANGE),
      invalid('spec.nodeSelector', '-a', `name part ${QUALIFIED}`),
      invalid('spec.securityContext.fsGroup', -2, ID_RANGE),
      invalid('spec.securityContext.runAsUser', -1, ID_RANGE),
      invalid('spec.securityContext.runAsGroup', -3, ID_RANGE),
      invalid('spec.securityContext.supplementalGroups[1]', -4, ID_RANGE),
      invalid('spec.serviceAccountName', 'Bad_SA', SUBDOMAIN),
      invalid('spec.nodeName', 'Bad_Node', SUBDOMAIN),
      invalid('spec.activeDeadlineSeconds', 0, 'must be between 1 and 2147483647, inclusive'),
      invalid('spec.hostname', 'Bad.Host', DNS_LABEL),
      invalid('spec.subdomain', 'a_b', DNS_LABEL),
    ],
  ],
];

/** Changes to a created pod (spec `activeDeadlineSeconds: 10`, one container) and their causes. */
const POD_UPDATE_CASES: [string, (spec: PodSpec) => void, Cause[]][] = [
  [
    'an empty image (listed by the pod spec and by the update rules)',
    (spec) => {
      spec.containers[0].image = '';
    },
    [required('spec.containers[0].image'), required('spec.containers[0].image')],
  ],
  [
    'an image with outer spaces',
    (spec) => {
      spec.containers[0].image = ' x';
    },
    [
      invalid('spec.containers[0].image', ' x', 'must not have leading or trailing whitespace'),
      invalid('spec.containers[0].image', ' x', 'must not have leading or trailing whitespace'),
    ],
  ],
  [
    'an added container',
    (spec) => {
      spec.containers.push({
        name: 'd',
        image: 'y',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'Always',
      });
    },
    [forbidden('spec.containers', 'pod updates may not add or remove containers')],
  ],
  [
    'a raised deadline',
    (spec) => {
      spec.activeDeadlineSeconds = 20;
    },
    [invalid('spec.activeDeadlineSeconds', 20, 'must be less than or equal to previous value')],
  ],
  [
    'a removed deadline',
    (spec) => {
      delete spec.activeDeadlineSeconds;
    },
    [
      invalid(
        'spec.activeDeadlineSeconds',
        'null',
        'must not update from a positive integer to nil value',
      ),
    ],
  ],
  [
    'a negative deadline',
    (spec) => {
      spec.activeDeadlineSeconds = -1;
    },
    [
      invalid('spec.activeDeadlineSeconds', -1, 'must be between 1 and 2147483647, inclusive'),
      invalid('spec.activeDeadlineSeconds', -1, 'must be between 0 and 2147483647, inclusive'),
    ],
  ],
];

interface PodSpec {
  containers: [Record<string, unknown>, ...Record<string, unknown>[]];
  activeDeadlineSeconds?: number;
}

export function definePodSpecValidationContract(getTarget: () => ContractEndpoint): void {
  defineInvalidCreates(
    getTarget,
    'validation of pod specs',
    POD_SPEC_CASES.map(([what, spec, causes]) => ({
      what,
      apiVersion: 'v1',
      resource: 'pods',
      kind: 'Pod',
      spec,
      causes,
    })),
  );
  const { call, create, newNamespace } = contractCalls(getTarget);
  describe('validation of pod specs', () => {
    it('checks a pod’s spec again on update, then what an update may change; images without outer spaces (422)', async () => {
      const ns = await newNamespace('valid-podup');
      const path = `/api/v1/namespaces/${ns}/pods`;
      const made = await create(path, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'up' },
        spec: { activeDeadlineSeconds: 10, containers: [container({})] },
      });
      const text = JSON.stringify(made.json);
      for (const [what, change, causes] of POD_UPDATE_CASES) {
        const body = JSON.parse(text) as { spec: PodSpec };
        change(body.spec);
        const res = await call('PUT', `${path}/up`, { body });
        expect(res.status, what).toBe(422);
        expectInvalid(res, 'Pod', 'up', causes);
      }
      const spaced = await call('POST', path, {
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'spaced' },
          spec: { containers: [container({ image: ' x' })] },
        },
      });
      expectInvalid(spaced, 'Pod', 'spaced', [
        invalid('spec.containers[0].image', ' x', 'must not have leading or trailing whitespace'),
      ]);
    });
  });
}
