// The command line of the operator: the cluster and klog flags every app has, and a
// controller-runtime manager's settings (metrics, health probes, leader election).

import { type Command, duration, positiveInt } from '@kubets-apps/shared';

/** A TCP port, 1-65535. */
function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) throw new Error('want a port, 1-65535');
  return n;
}

import { defaultImage } from './operator.ts';

export const command: Command = {
  name: 'mydemo-operator',
  summary:
    "an operator for seed 003's Mydemo custom resource: a Deployment, a Service and an external record per Mydemo.",
  details: [
    'Serves /metrics and /healthz, /readyz, and with --enable-webhooks the Mydemo webhooks over HTTPS. With --leader-elect, replicas compete for a Lease and only',
    'the leader reconciles; all of them keep their caches warm. SIGINT/SIGTERM stops taking new work,',
    'waits up to --graceful-shutdown-timeout for the reconciles in flight, and exits 0.',
  ].join('\n'),
};

export const flagSpecs = {
  'records-dir': {
    type: 'string',
    default: '',
    description:
      'directory of the external records, one JSON file per Mydemo (default: <tmpdir>/mydemo-operator-records; in demo mode a new temporary directory, removed at exit)',
  },
  image: {
    type: 'string',
    default: defaultImage,
    description: 'container image of the Mydemos whose spec names none',
  },
  'max-concurrent-reconciles': {
    type: 'string',
    default: '1',
    parse: positiveInt,
    description: 'how many Mydemos are reconciled at once',
  },
  'metrics-bind-address': {
    type: 'string',
    default: '',
    description:
      "where /metrics is served, host:port or :port; '0' disables it (default :8080; in demo mode a free loopback port)",
  },
  'health-probe-bind-address': {
    type: 'string',
    default: '',
    description:
      "where /healthz and /readyz are served; '0' disables them (default :8081; in demo mode a free loopback port)",
  },
  'graceful-shutdown-timeout': {
    type: 'string',
    default: '30s',
    parse: duration,
    description: 'how long a stop waits for the reconciles in flight',
  },
  'cache-sync-timeout': {
    type: 'string',
    default: '2m',
    parse: duration,
    description:
      'how long the manager waits for its informers to sync before it fails naming those that did not (e.g. a list refused by RBAC)',
  },
  'enable-webhooks': {
    type: 'boolean',
    description:
      'serve the defaulting, validating and conversion webhooks (the deploy manifests set it; demo mode always serves them)',
  },
  'webhook-host': {
    type: 'string',
    default: '',
    description: 'address the webhook server listens on (default every interface)',
  },
  'webhook-port': {
    type: 'string',
    default: '9443',
    parse: port,
    description: 'port of the webhook server',
  },
  'webhook-cert-dir': {
    type: 'string',
    default: '',
    description:
      'directory of the webhook serving certificate (tls.crt, tls.key), read again when it changes (default <tmpdir>/k8s-webhook-server/serving-certs)',
  },
  'leader-elect': {
    type: 'boolean',
    description: 'reconcile only while holding the leader Lease, so that several replicas can run',
  },
  'leader-elect-resource-name': {
    type: 'string',
    default: 'mydemo-operator',
    description: 'name of the coordination.k8s.io/v1 Lease the replicas compete for',
  },
  'leader-elect-resource-namespace': {
    type: 'string',
    default: 'default',
    description: 'namespace of the Lease',
  },
  'leader-elect-lease-duration': {
    type: 'string',
    default: '15s',
    parse: duration,
    description:
      'how long a follower waits after it last saw the Lease renewed before it takes over',
  },
  'leader-elect-renew-deadline': {
    type: 'string',
    default: '10s',
    parse: duration,
    description:
      'how long the leader keeps trying to renew before it gives up; less than the lease duration',
  },
  'leader-elect-retry-period': {
    type: 'string',
    default: '2s',
    parse: duration,
    description: 'how long candidates wait between tries to acquire or renew',
  },
} as const;
