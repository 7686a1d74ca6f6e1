// Leader election for the controller, as kube-controller-manager and controller-runtime
// managers do it: with --leader-elect, several replicas compete for a coordination.k8s.io/v1
// Lease and only the holder runs the informers and workers. The flags are component-base's
// (`--leader-elect`, `--leader-elect-resource-name`, `--leader-elect-resource-namespace`,
// `--leader-elect-lease-duration`, `--leader-elect-renew-deadline`,
// `--leader-elect-retry-period`); the identity is the hostname plus `_` and a UUID, as
// kube-controller-manager's.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LogFields, Logger } from '@kubets/apimachinery';
import type { Clientset } from '@kubets/clientset';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  JITTER_FACTOR,
  LeaderElector,
  LeaseLock,
  validateLeaderElectionConfig,
} from '@kubets/leaderelection';
import { duration, errorMessage, FlagError, type FlagSpecs, klog } from '@kubets-apps/shared';

/** Where a pod finds its own namespace (the service account's token volume). */
export const serviceAccountNamespaceFile =
  '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The Lease's name when `--leader-elect-resource-name` is not given. */
export const defaultLeaseName = 'crd-controller';

/** Milliseconds as a Go-style duration for flag defaults and messages: `15s`, `2.4s`, `500ms`. */
export function formatDuration(ms: number): string {
  return ms === 0 || ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`;
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A flag parser: a DNS-1123 subdomain, what a Lease's name must be. */
function leaseName(value: string): string {
  if (
    value.length > 253 ||
    !value.split('.').every((label) => label.length <= 63 && dnsLabel.test(label))
  ) {
    throw new Error(
      "want a DNS subdomain name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit",
    );
  }
  return value;
}

/** A flag parser: a DNS-1123 label, what a namespace's name must be. */
function namespaceName(value: string): string {
  if (value.length > 63 || !dnsLabel.test(value)) {
    throw new Error(
      "want a namespace name: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit",
    );
  }
  return value;
}

/** The leader-election flags (component-base's `LeaderElectionConfiguration` flags). */
export const leaderElectionFlags = {
  'leader-elect': {
    type: 'boolean',
    description:
      'run the informers and workers only while holding the leader Lease, so that several replicas can run (default false)',
  },
  'leader-elect-resource-name': {
    type: 'string',
    default: defaultLeaseName,
    parse: leaseName,
    description: 'name of the coordination.k8s.io/v1 Lease the replicas compete for',
  },
  'leader-elect-resource-namespace': {
    type: 'string',
    parse: namespaceName,
    description:
      "namespace of the Lease (default: in a pod, its own namespace — $POD_NAMESPACE or the service account's; else default)",
  },
  'leader-elect-lease-duration': {
    type: 'string',
    default: formatDuration(DEFAULT_LEASE_DURATION_MS),
    parse: duration,
    description:
      'how long a follower waits after it last saw the Lease renewed before it takes over',
  },
  'leader-elect-renew-deadline': {
    type: 'string',
    default: formatDuration(DEFAULT_RENEW_DEADLINE_MS),
    parse: duration,
    description:
      'how long the leader keeps trying to renew before it gives up leadership; less than the lease duration',
  },
  'leader-elect-retry-period': {
    type: 'string',
    default: formatDuration(DEFAULT_RETRY_PERIOD_MS),
    parse: duration,
    description: `how long candidates wait between tries to acquire or renew; the renew deadline must exceed ${JITTER_FACTOR} × this`,
  },
} as const satisfies FlagSpecs;

/** The parsed values of {@link leaderElectionFlags}. */
export interface LeaderElectionFlagValues {
  readonly 'leader-elect': boolean;
  readonly 'leader-elect-resource-name': string;
  readonly 'leader-elect-resource-namespace': string | undefined;
  readonly 'leader-elect-lease-duration': number;
  readonly 'leader-elect-renew-deadline': number;
  readonly 'leader-elect-retry-period': number;
}

/** What the election needs, from the flags. */
export interface LeaderElectionSettings {
  /** This replica's identity, the Lease's `holderIdentity` while it leads. */
  readonly identity: string;
  readonly namespace: string;
  readonly name: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** `<hostname>_<uuid>`, as kube-controller-manager's identity: unique per process. */
export function newIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/**
 * The namespace of the Lease when `--leader-elect-resource-namespace` is not given: in a pod,
 * its own (as client-go's in-cluster config: `$POD_NAMESPACE`, else the service account's
 * namespace file) — where a namespaced Role can grant the Lease; anywhere else `default`.
 */
export function defaultLeaseNamespace(
  env: Readonly<Record<string, string | undefined>> = process.env,
  namespaceFile: string = serviceAccountNamespaceFile,
): string {
  const fromEnv = env.POD_NAMESPACE?.trim();
  if (fromEnv) return fromEnv;
  try {
    const fromFile = readFileSync(namespaceFile, 'utf8').trim();
    if (fromFile) return fromFile;
  } catch {
    // not in a pod
  }
  return 'default';
}

const flagOf = {
  leaseDurationMs: '--leader-elect-lease-duration',
  renewDeadlineMs: '--leader-elect-renew-deadline',
  retryPeriodMs: '--leader-elect-retry-period',
} as const;

/**
 * The election's settings, or `undefined` without `--leader-elect`. Checks the durations as
 * client-go's `NewLeaderElector` does (all greater than zero, lease duration > renew deadline
 * > 1.2 × retry period) and throws a {@link FlagError} naming the flags.
 */
export function leaderElectionSettings(
  flags: LeaderElectionFlagValues,
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    namespaceFile?: string;
    identity?: string;
  } = {},
): LeaderElectionSettings | undefined {
  if (!flags['leader-elect']) return undefined;
  const durations = {
    leaseDurationMs: flags['leader-elect-lease-duration'],
    renewDeadlineMs: flags['leader-elect-renew-deadline'],
    retryPeriodMs: flags['leader-elect-retry-period'],
  };
  const shown = (key: keyof typeof flagOf): string =>
    `${flagOf[key]} (${formatDuration(durations[key])})`;
  for (const key of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const) {
    if (!(durations[key] > 0)) throw new FlagError(`${shown(key)} must be greater than zero`);
  }
  if (durations.leaseDurationMs <= durations.renewDeadlineMs) {
    throw new FlagError(
      `${shown('leaseDurationMs')} must be greater than ${shown('renewDeadlineMs')}`,
    );
  }
  const minRenewDeadline = JITTER_FACTOR * durations.retryPeriodMs;
  if (durations.renewDeadlineMs <= minRenewDeadline) {
    throw new FlagError(
      `${shown('renewDeadlineMs')} must be greater than ${JITTER_FACTOR} × ${shown('retryPeriodMs')} = ${formatDuration(Math.round(minRenewDeadline))}`,
    );
  }
  const identity = options.identity ?? newIdentity();
  // The library's own checks, should they ever be stricter: its messages, with the flag names.
  try {
    validateLeaderElectionConfig({
      ...durations,
      lock: { identity: () => identity, describe: () => '' } as never,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    });
  } catch (err) {
    let message = errorMessage(err);
    for (const [key, flag] of Object.entries(flagOf)) message = message.replaceAll(key, flag);
    throw new FlagError(message);
  }
  return {
    identity,
    namespace:
      flags['leader-elect-resource-namespace'] ??
      defaultLeaseNamespace(options.env, options.namespaceFile),
    name: flags['leader-elect-resource-name'],
    ...durations,
  };
}

/** The elector's reports as klog lines (`leaderelection.ts:NN] attempting to acquire ...`). */
function klogLogger(): Logger {
  // The lock, identity and election name are in the startup line; show only the rest.
  const text = (message: string, fields?: LogFields): string => {
    const extra = Object.entries(fields ?? {}).filter(
      ([key]) => key !== 'lock' && key !== 'identity' && key !== 'name',
    );
    return extra.length === 0
      ? message
      : `${message} ${extra.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(' ')}`;
  };
  return {
    debug: () => {},
    info: (message, fields) => klog.info(text(message, fields)),
    warn: (message, fields) => klog.warning(text(message, fields)),
    error: (message, fields) => klog.error(text(message, fields)),
  };
}

/** How {@link runWithLeaderElection} ended. */
export type LeaderElectionOutcome =
  /** `stop` aborted: the controller (if it ran) stopped and the Lease was released. */
  | { readonly kind: 'stopped' }
  /** Leadership was lost (not renewed in time, or taken); the controller has stopped. */
  | { readonly kind: 'lost' }
  /** The controller failed; it has stopped and the Lease was released. */
  | { readonly kind: 'failed'; readonly error: unknown };

/**
 * Competes for the Lease until `stop` aborts; while leading, runs `run(signal)` — `signal`
 * aborts when leadership is lost or `stop` aborts. On `stop` the controller is stopped first
 * (its workers finish their items) and only then is the Lease released (`releaseOnCancel`), so
 * the next leader never overlaps with it. Resolves once the controller has stopped; it runs at
 * most once (a replica that lost leadership exits, and is restarted, as client-go's do).
 */
export async function runWithLeaderElection(
  settings: LeaderElectionSettings,
  client: Clientset,
  stop: AbortSignal,
  run: (signal: AbortSignal) => Promise<void>,
): Promise<LeaderElectionOutcome> {
  const { identity, namespace, name } = settings;
  // Cancels the election (and releases the Lease): at once on `stop` while not leading,
  // after the controller has stopped while leading.
  const election = new AbortController();
  let controller: Promise<void> | undefined;
  let failure: { error: unknown } | undefined;
  let lost = false;
  const onStop = (): void => {
    if (controller === undefined) election.abort(stop.reason);
  };
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });

  klog.info(
    `leader election: identity ${identity}, Lease ${namespace}/${name}, lease duration ` +
      `${formatDuration(settings.leaseDurationMs)}, renew deadline ${formatDuration(settings.renewDeadlineMs)}, ` +
      `retry period ${formatDuration(settings.retryPeriodMs)}`,
  );
  const elector = new LeaderElector({
    lock: new LeaseLock({ namespace, name, client, identity }),
    leaseDurationMs: settings.leaseDurationMs,
    renewDeadlineMs: settings.renewDeadlineMs,
    retryPeriodMs: settings.retryPeriodMs,
    // Safe: the controller stops when its signal aborts, and is awaited before the release.
    releaseOnCancel: true,
    name,
    logger: klogLogger(),
    callbacks: {
      onStartedLeading: (leading) => {
        controller = (async () => {
          try {
            await run(AbortSignal.any([leading, stop]));
          } catch (error) {
            failure = { error };
          } finally {
            lost = leading.aborted && !stop.aborted;
            election.abort();
          }
        })();
      },
      onStoppedLeading: () => {
        if (controller !== undefined) klog.info(`stopped leading: ${identity}`);
      },
      onNewLeader: (leader) => {
        if (leader !== identity) klog.info(`new leader elected: ${leader}`);
      },
    },
  });
  try {
    await elector.run(election.signal);
    await controller;
  } finally {
    stop.removeEventListener('abort', onStop);
  }
  if (failure !== undefined) return { kind: 'failed', error: failure.error };
  return lost ? { kind: 'lost' } : { kind: 'stopped' };
}
