// The leader-election flags (defaults, bad values, the durations checked together with the
// flags named) and runWithLeaderElection on the embedded API server: the controller runs only
// while leading, is stopped before the Lease is released, and a lost Lease is reported.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { Clientset } from '@kubets/clientset';
import { loadConfig } from '@kubets/rest';
import { FlagError, parseCommandLine, usage } from '@kubets-apps/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command, flagSpecs } from './flags.ts';
import {
  defaultLeaseNamespace,
  formatDuration,
  type LeaderElectionSettings,
  leaderElectionSettings,
  runWithLeaderElection,
} from './leaderelection.ts';

const noNamespaceFile = '/nonexistent/kubets-test/namespace';

/** Parses a command line as main.ts does; outside a pod (no POD_NAMESPACE, no namespace file). */
function parse(argv: string[]): LeaderElectionSettings | undefined {
  const flags = parseCommandLine(command, flagSpecs, argv);
  return leaderElectionSettings(flags, { env: {}, namespaceFile: noNamespaceFile });
}

/** The FlagError message for a command line. */
function refused(argv: string[]): string {
  try {
    parse(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(FlagError);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('leader-election flags', () => {
  it('are off by default, with component-base defaults otherwise', () => {
    expect(parse([])).toBeUndefined();
    const settings = parse(['--leader-elect']);
    expect(settings).toMatchObject({
      namespace: 'default',
      name: 'crd-controller',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(settings?.identity).toMatch(
      new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_[0-9a-f-]{36}$`),
    );
    expect(parse(['--leader-elect'])?.identity).not.toBe(settings?.identity); // unique per process
  });

  it('take the Lease, namespace and durations from the flags', () => {
    expect(
      parse([
        '--leader-elect',
        '--leader-elect-resource-name=my.lease-1',
        '--leader-elect-resource-namespace',
        'controllers',
        '--leader-elect-lease-duration',
        '1m',
        '--leader-elect-renew-deadline=40s',
        '--leader-elect-retry-period',
        '500ms',
      ]),
    ).toMatchObject({
      namespace: 'controllers',
      name: 'my.lease-1',
      leaseDurationMs: 60_000,
      renewDeadlineMs: 40_000,
      retryPeriodMs: 500,
    });
  });

  it("default the namespace to the pod's own namespace in a cluster", () => {
    const dir = mkdtempSync(join(tmpdir(), 'crd-controller-ns-'));
    try {
      const file = join(dir, 'namespace');
      writeFileSync(file, 'operators\n');
      expect(defaultLeaseNamespace({}, file)).toBe('operators');
      expect(defaultLeaseNamespace({ POD_NAMESPACE: 'from-env' }, file)).toBe('from-env');
      expect(defaultLeaseNamespace({}, join(dir, 'missing'))).toBe('default');
      const flags = parseCommandLine(command, flagSpecs, ['--leader-elect']);
      expect(leaderElectionSettings(flags, { env: {}, namespaceFile: file })?.namespace).toBe(
        'operators',
      );
      const explicit = parseCommandLine(command, flagSpecs, [
        '--leader-elect',
        '--leader-elect-resource-namespace=mine',
      ]);
      expect(leaderElectionSettings(explicit, { env: {}, namespaceFile: file })?.namespace).toBe(
        'mine',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse bad values, naming the flag', () => {
    expect(refused(['--leader-elect-lease-duration', '15'])).toBe(
      'invalid value "15" for flag --leader-elect-lease-duration: want a duration such as 60s, 2s, 1m30s or 500ms',
    );
    expect(refused(['--leader-elect-renew-deadline=-1s'])).toMatch(
      /^invalid value "-1s" for flag --leader-elect-renew-deadline: /,
    );
    expect(refused(['--leader-elect-retry-period', 'soon'])).toMatch(
      /^invalid value "soon" for flag --leader-elect-retry-period: /,
    );
    expect(refused(['--leader-elect-resource-name', 'My_Lease'])).toMatch(
      /^invalid value "My_Lease" for flag --leader-elect-resource-name: want a DNS subdomain name/,
    );
    expect(refused(['--leader-elect-resource-namespace', 'kube.system'])).toMatch(
      /^invalid value "kube\.system" for flag --leader-elect-resource-namespace: want a namespace name/,
    );
    // As in Go's flag package, a switch takes `=true`/`=false` (seed 003's -alsologtostderr=true)
    // but no other value.
    expect(refused(['--leader-elect=yes'])).toBe(
      'invalid boolean value "yes" for --leader-elect: want true or false',
    );
  });

  it("take Go's flag forms: one dash, -flag=true|false, -flag value", () => {
    expect(parse(['--leader-elect=true'])?.name).toBe('crd-controller');
    expect(parse(['-leader-elect=false'])).toBeUndefined();
    expect(parse(['-leader-elect', '-leader-elect-resource-name', 'mine'])?.name).toBe('mine');
  });

  it("check the durations together as client-go's NewLeaderElector, naming the flags", () => {
    expect(refused(['--leader-elect', '--leader-elect-lease-duration=10s'])).toBe(
      '--leader-elect-lease-duration (10s) must be greater than --leader-elect-renew-deadline (10s)',
    );
    expect(
      refused([
        '--leader-elect',
        '--leader-elect-lease-duration=4s',
        '--leader-elect-renew-deadline=5s',
      ]),
    ).toBe(
      '--leader-elect-lease-duration (4s) must be greater than --leader-elect-renew-deadline (5s)',
    );
    expect(refused(['--leader-elect', '--leader-elect-renew-deadline=2s'])).toBe(
      '--leader-elect-renew-deadline (2s) must be greater than 1.2 × --leader-elect-retry-period (2s) = 2.4s',
    );
    expect(refused(['--leader-elect', '--leader-elect-retry-period=0'])).toBe(
      '--leader-elect-retry-period (0s) must be greater than zero',
    );
    expect(refused(['--leader-elect', '--leader-elect-lease-duration=0s'])).toBe(
      '--leader-elect-lease-duration (0s) must be greater than zero',
    );
    // Without --leader-elect the durations are not used, so not checked (as component-base).
    expect(parse(['--leader-elect-lease-duration=1s'])).toBeUndefined();
  });

  it('are in the usage with their defaults', () => {
    const text = usage(command, flagSpecs);
    for (const line of [
      /^ {2}--leader-elect {2,}run the informers and workers only while holding the leader Lease.*\(default false\)$/m,
      /^ {2}--leader-elect-resource-name <value> .*\(default crd-controller\)$/m,
      /^ {2}--leader-elect-resource-namespace <value> namespace of the Lease \(default: in a pod, its own namespace .*; else default\)$/m,
      /^ {2}--leader-elect-lease-duration <value> .*\(default 15s\)$/m,
      /^ {2}--leader-elect-renew-deadline <value> .*\(default 10s\)$/m,
      /^ {2}--leader-elect-retry-period <value> .*\(default 2s\)$/m,
      /exits with status 255\s+\("leaderelection lost"\)/,
    ]) {
      expect(text).toMatch(line);
    }
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(250)).toBe('250ms');
  });
});

describe('runWithLeaderElection', () => {
  let server: InMemoryApiServer;
  let clientset: Clientset;
  let serial = 0;

  beforeAll(async () => {
    server = await startApiServer();
    clientset = new Clientset({ ...loadConfig({ kubeconfig: server.kubeconfigPath }), qps: -1 });
  });

  afterAll(async () => {
    await server?.stop();
  });

  const settings = (identity: string, name: string): LeaderElectionSettings => ({
    identity,
    namespace: 'default',
    name,
    leaseDurationMs: 2_000,
    renewDeadlineMs: 1_000,
    retryPeriodMs: 200,
  });
  const holder = async (name: string): Promise<string | undefined> =>
    (await clientset.coordinationV1().leases('default').get(name)).spec?.holderIdentity;

  /** A controller that records what happened to it and stops when its signal aborts. */
  function fakeController(name: string) {
    const state = {
      started: 0,
      signal: undefined as AbortSignal | undefined,
      holderWhenStopped: undefined as string | undefined,
      running: undefined as Promise<void> | undefined,
    };
    let markRunning: () => void = () => {};
    const isRunning = new Promise<void>((resolve) => {
      markRunning = resolve;
    });
    const run = async (signal: AbortSignal): Promise<void> => {
      state.started++;
      state.signal = signal;
      markRunning();
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      // Still draining: the Lease must not have been released yet.
      await new Promise((resolve) => setTimeout(resolve, 100));
      state.holderWhenStopped = await holder(name);
    };
    return { state, run, isRunning };
  }

  it('runs the controller while leading; on stop, stops it first, then releases the Lease', async () => {
    const name = `le-stop-${serial++}`;
    const stop = new AbortController();
    const controller = fakeController(name);
    const outcome = runWithLeaderElection(
      settings('a', name),
      clientset,
      stop.signal,
      controller.run,
    );
    await controller.isRunning;
    expect(await holder(name)).toBe('a');
    stop.abort();
    expect(await outcome).toEqual({ kind: 'stopped' });
    expect(controller.state.started).toBe(1);
    expect(controller.state.signal?.aborted).toBe(true);
    expect(controller.state.holderWhenStopped).toBe('a');
    expect(await holder(name)).toBe(''); // released
  });

  it('never runs the controller of a follower, which stops at once', async () => {
    const name = `le-follower-${serial++}`;
    const leaderStop = new AbortController();
    const leader = fakeController(name);
    const leading = runWithLeaderElection(
      settings('leader', name),
      clientset,
      leaderStop.signal,
      leader.run,
    );
    await leader.isRunning;
    const stop = new AbortController();
    const follower = fakeController(name);
    const following = runWithLeaderElection(
      settings('follower', name),
      clientset,
      stop.signal,
      follower.run,
    );
    await new Promise((resolve) => setTimeout(resolve, 600)); // a few retry periods
    stop.abort();
    expect(await following).toEqual({ kind: 'stopped' });
    expect(follower.state.started).toBe(0);
    expect(await holder(name)).toBe('leader');
    leaderStop.abort();
    expect(await leading).toEqual({ kind: 'stopped' });
  });

  it('reports a lost Lease after the controller stopped', async () => {
    const name = `le-lost-${serial++}`;
    const stop = new AbortController();
    const controller = fakeController(name);
    const outcome = runWithLeaderElection(
      settings('a', name),
      clientset,
      stop.signal,
      controller.run,
    );
    await controller.isRunning;
    // Someone else takes the Lease: the leader cannot renew within its deadline.
    const leases = clientset.coordinationV1().leases('default');
    const lease = await leases.get(name);
    await leases.update({
      ...lease,
      spec: { ...lease.spec, holderIdentity: 'intruder', leaseDurationSeconds: 60 },
    });
    expect(await outcome).toEqual({ kind: 'lost' });
    expect(controller.state.signal?.aborted).toBe(true);
    expect(stop.signal.aborted).toBe(false);
    expect(await holder(name)).toBe('intruder');
  });

  it('reports a failing controller, after releasing the Lease', async () => {
    const name = `le-failed-${serial++}`;
    const failure = new Error('failed to wait for caches to sync');
    const outcome = await runWithLeaderElection(
      settings('a', name),
      clientset,
      new AbortController().signal,
      async () => {
        throw failure;
      },
    );
    expect(outcome).toEqual({ kind: 'failed', error: failure });
    expect(await holder(name)).toBe('');
  });
});
