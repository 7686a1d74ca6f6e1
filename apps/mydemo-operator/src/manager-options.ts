// The Manager's settings from the command line: what main.ts runs with, and what
// manifests.ts derives the Deployment's RBAC rules and webhooks from (the same flags, so they match).

import type { ManagerOptions } from '@kubets/controller';
import { type Flags, klogLogger } from '@kubets-apps/shared';
import type { flagSpecs } from './flags.ts';

/**
 * The Manager's options for `flags`; `demo` binds the endpoints to free loopback ports, and
 * serves the webhooks with the certificate in `demoWebhookCertDir` when it is given.
 */
export function managerOptions(
  flags: Pick<
    Flags<typeof flagSpecs>,
    | 'metrics-bind-address'
    | 'health-probe-bind-address'
    | 'graceful-shutdown-timeout'
    | 'cache-sync-timeout'
    | 'leader-elect'
    | 'leader-elect-resource-name'
    | 'leader-elect-resource-namespace'
    | 'leader-elect-lease-duration'
    | 'leader-elect-renew-deadline'
    | 'leader-elect-retry-period'
    | 'enable-webhooks'
    | 'webhook-host'
    | 'webhook-port'
    | 'webhook-cert-dir'
  >,
  demo: boolean,
  demoWebhookCertDir?: string,
): ManagerOptions {
  // A demo must not take the ports a real operator on this machine may hold.
  const bind = (flag: string, port: number): string => flag || (demo ? '127.0.0.1:0' : `:${port}`);
  const options: ManagerOptions = {
    logger: klogLogger('mydemo-operator'),
    metricsBindAddress: bind(flags['metrics-bind-address'], 8080),
    healthProbeBindAddress: bind(flags['health-probe-bind-address'], 8081),
    gracefulShutdownTimeoutMs: flags['graceful-shutdown-timeout'],
    cacheSyncTimeoutMs: flags['cache-sync-timeout'],
  };
  if (flags['enable-webhooks'] || demoWebhookCertDir !== undefined) {
    // A demo serves on a free loopback port with the certificate it generated.
    const host = flags['webhook-host'] || (demo ? '127.0.0.1' : '');
    const certDir = flags['webhook-cert-dir'] || (demo ? demoWebhookCertDir : undefined);
    options.webhookServer = {
      port: demo ? 0 : flags['webhook-port'],
      ...(host ? { host } : {}),
      ...(certDir ? { certDir } : {}),
    };
  }
  if (flags['leader-elect']) {
    options.leaderElection = {
      namespace: flags['leader-elect-resource-namespace'],
      name: flags['leader-elect-resource-name'],
      leaseDurationMs: flags['leader-elect-lease-duration'],
      renewDeadlineMs: flags['leader-elect-renew-deadline'],
      retryPeriodMs: flags['leader-elect-retry-period'],
      // Stopping on SIGTERM hands the Lease over at once instead of after it expired.
      releaseOnCancel: true,
    };
  }
  return options;
}
