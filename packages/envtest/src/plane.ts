// The control plane, as controller-runtime's controlplane.ControlPlane starts it: etcd, then
// kube-apiserver on it, in a temp dir of their own; stopped in reverse order.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvtestFlags } from './arguments.js';
import { adminKubeconfig, adminTls, certPathsIn, writeCertificates } from './auth.js';
import type { EnvtestBinaries } from './binaries.js';
import type { EnvtestCertificates } from './certs.js';
import { EnvtestError } from './errors.js';
import { startEtcd } from './etcd.js';
import {
  ApiServerRestarter,
  type ApiServerSettings,
  apiServerHost,
  startApiServer,
} from './kube-apiserver.js';
import { freeLoopbackPorts } from './ports.js';
import type { ProbeTls } from './probe.js';
import { childEnv, describeExit, tailLog } from './process.js';
import { Startup } from './startup.js';
import { createTempDir } from './temp-dir.js';

/** What one start of the control plane needs. */
export interface PlaneSettings {
  readonly binaries: EnvtestBinaries;
  readonly certs: EnvtestCertificates;
  /** The flags each binary's `--help` lists. */
  readonly known: {
    readonly etcd: ReadonlySet<string>;
    readonly kubeApiserver: ReadonlySet<string>;
  };
  readonly etcdFlags: EnvtestFlags | undefined;
  readonly apiServerFlags: EnvtestFlags | undefined;
  readonly stopGracePeriodMs: number;
  /** Aborted by the caller's signal or the start timeout. */
  readonly signal: AbortSignal;
  /** Aborted by the start timeout only. */
  readonly timeoutSignal: AbortSignal;
  /** Aborted by the caller only. */
  readonly callerSignal: AbortSignal | undefined;
  readonly startTimeoutMs: number;
}

/** A running control plane. */
export interface ControlPlane {
  readonly host: string;
  readonly tls: ProbeTls;
  readonly kubeconfig: string;
  readonly kubeconfigPath: string;
  readonly etcdEndpoint: string;
  readonly dir: string;
  readonly pids: { readonly etcd: number; readonly kubeApiserver: number };
  readonly restarter: ApiServerRestarter;
  stop(): Promise<void>;
}

/**
 * Starts etcd and kube-apiserver on free loopback ports in a new temp dir and resolves once the
 * API server is ready. On failure everything started is stopped, the temp dir removed, and the
 * error says what the start was waiting for, with the end of the failing process's log.
 */
export async function startControlPlane(settings: PlaneSettings): Promise<ControlPlane> {
  const tempDir = await createTempDir('kubets-envtest');
  const dir = tempDir.path;
  const grace = settings.stopGracePeriodMs;
  const startup = new Startup(settings.signal);
  try {
    const certPaths = certPathsIn(dir);
    await writeCertificates(certPaths, settings.certs);
    const [clientPort, peerPort, securePort] = await freeLoopbackPorts(3);
    const env = childEnv();
    const etcd = await startEtcd(
      {
        binary: settings.binaries.etcd.path,
        known: settings.known.etcd,
        flags: settings.etcdFlags,
        dataDir: join(dir, 'etcd-data'),
        logPath: join(dir, 'etcd.log'),
        env,
        clientPort: clientPort as number,
        peerPort: peerPort as number,
      },
      startup,
    );
    const tls = adminTls(settings.certs);
    const apiServerSettings: ApiServerSettings = {
      binary: settings.binaries.kubeApiserver.path,
      known: settings.known.kubeApiserver,
      flags: settings.apiServerFlags,
      certs: certPaths,
      etcdEndpoint: etcd.endpoint,
      securePort: securePort as number,
      logPath: join(dir, 'kube-apiserver.log'),
      env,
      tls,
    };
    const apiServer = await startApiServer(apiServerSettings, startup);
    const host = apiServerHost(apiServerSettings);
    const kubeconfig = adminKubeconfig(host, tls);
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
    startup.ready();

    const restarter = new ApiServerRestarter(
      apiServerSettings,
      apiServer,
      grace,
      settings.startTimeoutMs,
    );
    let stopping: Promise<void> | undefined;
    return {
      host,
      tls,
      kubeconfig,
      kubeconfigPath,
      etcdEndpoint: etcd.endpoint,
      dir,
      get pids() {
        return { etcd: etcd.process.pid ?? -1, kubeApiserver: restarter.current.pid ?? -1 };
      },
      restarter,
      stop() {
        stopping ??= (async () => {
          await restarter.close();
          // kube-apiserver first: it would otherwise spend its shutdown retrying a dead etcd.
          await restarter.current.stop(grace);
          await etcd.process.stop(grace);
          await tempDir.remove();
        })();
        return stopping;
      },
    };
  } catch (error) {
    startup.ready(); // No more exit reports: we are tearing down on purpose.
    const exited = startup.exitedChild();
    // Read the log before the temp dir goes away.
    const failing = exited ? exited.child : startup.waitingOn;
    const logTail = failing ? await tailLog(failing.logPath) : undefined;
    await startup.stopAll(grace);
    await tempDir.remove();
    throw startError(settings, startup, error, failing?.name, logTail);
  }
}

/** The error a failed start rejects with. */
function startError(
  settings: PlaneSettings,
  startup: Startup,
  error: unknown,
  failing: string | undefined,
  logTail: string | undefined,
): unknown {
  const exited = startup.exitedChild();
  if (exited) {
    return new EnvtestError(
      'ProcessExited',
      `${exited.child.name} ${describeExit(exited.exit)} while envtest was waiting for ` +
        `${startup.waitingFor}.\nLast lines of its log:\n${logTail ?? '(none)'}`,
      { binary: exited.child.name, logTail, cause: exited.exit.spawnError },
    );
  }
  if (settings.timeoutSignal.aborted && !settings.callerSignal?.aborted) {
    const last = startup.lastProbeError;
    const probe = last instanceof Error ? `\nLast probe error: ${last.message}` : '';
    return new EnvtestError(
      'StartTimeout',
      `envtest did not start within ${settings.startTimeoutMs} ms: still waiting for ` +
        `${startup.waitingFor}.${probe}` +
        (failing ? `\nLast lines of the ${failing} log:\n${logTail ?? '(none)'}` : ''),
      { binary: failing, logTail, cause: last },
    );
  }
  if (settings.callerSignal?.aborted) return settings.callerSignal.reason;
  return error;
}
