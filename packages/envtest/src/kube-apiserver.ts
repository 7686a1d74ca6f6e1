// kube-apiserver, as controller-runtime's controlplane.APIServer runs it: secure serving on a
// loopback port with the CA's certificates, RBAC, etcd as its store; ready once /readyz answers
// 200 and the `default` namespace exists. Restarts keep its flags, port and certificates.
import { appendFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { type EnvtestFlags, renderFlags } from './arguments.js';
import type { CertPaths } from './auth.js';
import { EnvtestError } from './errors.js';
import { type ProbeTls, pollUntil, probeGet } from './probe.js';
import {
  ChildExited,
  describeExit,
  type ManagedProcess,
  startProcess,
  tailLog,
} from './process.js';
import type { Startup } from './startup.js';

/** What kube-apiserver is started with. */
export interface ApiServerSettings {
  readonly binary: string;
  /** The flags its `--help` lists. */
  readonly known: ReadonlySet<string>;
  /** The user's flags, merged over the defaults. */
  readonly flags: EnvtestFlags | undefined;
  readonly certs: CertPaths;
  readonly etcdEndpoint: string;
  readonly securePort: number;
  readonly logPath: string;
  readonly env: NodeJS.ProcessEnv;
  /** The admin identity the readiness probes use. */
  readonly tls: ProbeTls;
}

/** kube-apiserver's command line: envtest's defaults, then the user's flags. */
export function apiServerArgs(settings: ApiServerSettings): string[] {
  const { certs, known } = settings;
  const defaults: Record<string, string> = {
    'etcd-servers': settings.etcdEndpoint,
    'bind-address': '127.0.0.1',
    'advertise-address': '127.0.0.1',
    'secure-port': String(settings.securePort),
    'cert-dir': certs.certDir,
    'tls-cert-file': certs.servingCert,
    'tls-private-key-file': certs.servingKey,
    'client-ca-file': certs.caCert,
    'service-account-key-file': certs.saPublic,
    'service-account-signing-key-file': certs.saPrivate,
    'service-account-issuer': 'https://kubernetes.default.svc.cluster.local',
    'service-cluster-ip-range': '10.0.0.0/24',
    'authorization-mode': 'RBAC',
    'disable-admission-plugins': 'ServiceAccount',
    'allow-privileged': 'true',
  };
  // Removed in 1.24; on older servers it turns off the unauthenticated HTTP port.
  if (known.has('insecure-port')) defaults['insecure-port'] = '0';
  // The default reconciler tries to publish 127.0.0.1 as the endpoint of the `kubernetes`
  // Service, which validation rejects (loopback), logging an error every few seconds.
  if (known.has('endpoint-reconciler-type')) defaults['endpoint-reconciler-type'] = 'none';
  return renderFlags(defaults, settings.flags);
}

/** The API server's URL: `https://127.0.0.1:PORT`. */
export function apiServerHost(settings: ApiServerSettings): string {
  return `https://127.0.0.1:${settings.securePort}`;
}

/** A GET as the admin user that passes on 200; `what` names the answer in the error. */
async function answers200(
  url: string,
  what: string,
  tls: ProbeTls,
  signal: AbortSignal,
): Promise<boolean> {
  const res = await probeGet(url, { tls, signal, timeoutMs: 5_000 });
  if (res.status !== 200) throw new Error(`${what} ${res.status}: ${res.body}`);
  return true;
}

/**
 * Starts kube-apiserver as part of `startup` and resolves once `/readyz` answers 200 and the
 * `default` namespace exists.
 */
export async function startApiServer(
  settings: ApiServerSettings,
  startup: Startup,
): Promise<ManagedProcess> {
  const host = apiServerHost(settings);
  const args = apiServerArgs(settings);
  const child = startup.watch(
    startProcess('kube-apiserver', settings.binary, args, settings.logPath, settings.env),
  );
  await startup.waitFor(child, `kube-apiserver to answer ${host}/readyz with 200`, 100, () =>
    answers200(`${host}/readyz`, '/readyz answered', settings.tls, startup.signal),
  );
  const namespace = `${host}/api/v1/namespaces/default`;
  await startup.waitFor(child, `the default namespace (${namespace})`, 100, () =>
    answers200(namespace, 'answered', settings.tls, startup.signal),
  );
  return child;
}

/** How a restart ends the running process. */
export type RestartSignal = 'SIGKILL' | 'SIGTERM';

/** How often a restart retries when the port is still held by the old process's sockets. */
const RESTART_PORT_ATTEMPTS = 5;

/** Restarts kube-apiserver in place, one restart at a time (`Envtest.restartApiServer`). */
export class ApiServerRestarter {
  readonly #settings: ApiServerSettings;
  readonly #graceMs: number;
  readonly #defaultTimeoutMs: number;
  readonly #closed = new AbortController();
  #current: ManagedProcess;
  #queue: Promise<void> = Promise.resolve();

  constructor(
    settings: ApiServerSettings,
    running: ManagedProcess,
    graceMs: number,
    defaultTimeoutMs: number,
  ) {
    this.#settings = settings;
    this.#current = running;
    this.#graceMs = graceMs;
    this.#defaultTimeoutMs = defaultTimeoutMs;
  }

  /** The kube-apiserver process running now. */
  get current(): ManagedProcess {
    return this.#current;
  }

  /** Ends the process with `signal`, starts it again and resolves once `/readyz` answers 200. */
  restart(options: { signal?: RestartSignal; timeoutMs?: number } = {}): Promise<void> {
    const run = this.#queue.then(() => this.#restartOnce(options));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Stops accepting restarts, aborts one in progress and waits for it to settle. */
  async close(): Promise<void> {
    this.#closed.abort(new Error('envtest was stopped'));
    await this.#queue;
  }

  async #restartOnce(options: { signal?: RestartSignal; timeoutMs?: number }): Promise<void> {
    this.#closed.signal.throwIfAborted();
    const s = this.#settings;
    const signal = options.signal ?? 'SIGTERM';
    if (signal !== 'SIGTERM' && signal !== 'SIGKILL') {
      throw new TypeError(`restartApiServer: unsupported signal ${String(signal)}`);
    }
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    const readyzUrl = `${apiServerHost(s)}/readyz`;
    const args = apiServerArgs(s);
    const old = this.#current;
    if (signal === 'SIGKILL') await old.kill('SIGKILL');
    else await old.stop(this.#graceMs);
    const timeout = AbortSignal.timeout(timeoutMs);

    for (let attemptNo = 1; ; attemptNo++) {
      this.#closed.signal.throwIfAborted();
      await appendFile(
        s.logPath,
        `\n--- envtest: kube-apiserver ${old.pid ?? '?'} ended by ${signal}; starting it again ---\n`,
      );
      const child = startProcess('kube-apiserver', s.binary, args, s.logPath, s.env);
      this.#current = child;
      const exitedEarly = new AbortController();
      let settled = false;
      void child.exited.then((exit) => {
        if (!settled) exitedEarly.abort(new ChildExited(child, exit));
      });
      const waitSignal = AbortSignal.any([exitedEarly.signal, timeout, this.#closed.signal]);
      let lastProbeError: unknown;
      try {
        await pollUntil(
          () => answers200(readyzUrl, '/readyz answered', s.tls, waitSignal),
          waitSignal,
          100,
          (error) => {
            lastProbeError = error;
          },
        );
        settled = true;
        return;
      } catch (error) {
        settled = true;
        if (this.#closed.signal.aborted) throw this.#closed.signal.reason;
        const exited = exitedEarly.signal.aborted ? exitedEarly.signal.reason : undefined;
        const logTail = await tailLog(s.logPath);
        if (exited instanceof ChildExited) {
          // The old process's sockets may still hold the port for a moment.
          if (
            attemptNo < RESTART_PORT_ATTEMPTS &&
            !timeout.aborted &&
            /address already in use/i.test(logTail.split('--- envtest:').at(-1) ?? '')
          ) {
            await sleep(200 * attemptNo);
            continue;
          }
          throw new EnvtestError(
            'ProcessExited',
            `kube-apiserver ${describeExit(exited.exit)} while envtest was waiting for it to ` +
              `answer ${readyzUrl} with 200 after a restart.\nLast lines of its log:\n${logTail}`,
            { binary: 'kube-apiserver', logTail, cause: exited.exit.spawnError },
          );
        }
        if (timeout.aborted) {
          const probe =
            lastProbeError instanceof Error ? `\nLast probe error: ${lastProbeError.message}` : '';
          throw new EnvtestError(
            'StartTimeout',
            `kube-apiserver was not ready within ${timeoutMs} ms after a restart: still waiting ` +
              `for ${readyzUrl} to answer 200.${probe}\nLast lines of its log:\n${logTail}`,
            { binary: 'kube-apiserver', logTail, cause: lastProbeError },
          );
        }
        throw error;
      }
    }
  }
}
