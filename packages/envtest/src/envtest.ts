import { type EnvtestFlags, knownFlags } from './arguments.js';
import { type EnvtestBinaries, findEnvtestBinaries } from './binaries.js';
import { generateEnvtestCertificates } from './certs.js';
import { EnvtestError, isEnvtestError } from './errors.js';
import { startControlPlane } from './plane.js';
import { redactedTls } from './redacted-tls.js';
import { startTimeoutMs as resolveStartTimeoutMs } from './start-timeout.js';
import {
  type EnvtestWebhookOptions,
  type EnvtestWebhookServing,
  installWebhooks,
} from './webhook-install.js';

/** Options for {@link startEnvtest}. */
export interface EnvtestOptions {
  /**
   * Directory holding `etcd` and `kube-apiserver`. When given, it is the only place looked
   * at. Otherwise: `$KUBEBUILDER_ASSETS`, then `PATH`, then `~/.cache/kubets/assets` (or
   * `$KUBETS_ASSETS_DIR`), where `scripts/provision-envtest.sh` installs them.
   */
  assetsDir?: string;
  /**
   * How long etcd and kube-apiserver together may take to become ready. Default:
   * `$KUBEBUILDER_CONTROLPLANE_START_TIMEOUT` (a Go duration such as `3m`, as controller-runtime's
   * envtest reads it) when set, else 60 000 ms.
   */
  startTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before it sends SIGKILL. Default 5 000 ms. */
  stopGracePeriodMs?: number;
  /** Extra kube-apiserver flags, merged over the defaults (see {@link EnvtestFlags}). */
  apiServerFlags?: EnvtestFlags;
  /** Extra etcd flags, merged over the defaults (see {@link EnvtestFlags}). */
  etcdFlags?: EnvtestFlags;
  /**
   * Aborts the start: the processes started so far are stopped, the temp dir is removed and
   * the promise rejects with the signal's reason. It has no effect once the start resolved.
   */
  signal?: AbortSignal;
  /**
   * Webhook configurations to install, pointed at a server the test starts on
   * {@link Envtest.webhook} (controller-runtime's `WebhookInstallOptions`).
   */
  webhooks?: EnvtestWebhookOptions;
}

/** PEM strings for talking to the envtest API server as its admin user. */
export interface EnvtestTls {
  /** The CA that signed the serving certificate (and the client certificate). */
  caData: string;
  /** The admin client certificate (CN=admin, O=system:masters). */
  certData: string;
  /**
   * The admin client certificate's private key. Non-enumerable: `util.inspect`,
   * `console.log` and `JSON.stringify` of the TLS material (and of `config`, also spread
   * copies of it) show `--- REDACTED ---`; `{ ...env.tls }` leaves it out.
   */
  keyData: string;
}

/**
 * A client configuration for the admin user, in the shape of `@kubets/rest`'s `Config` (pass it
 * to `new Clientset(env.config)` or any kubets client), without client-side rate limiting.
 */
export interface EnvtestConfig {
  /** The API server's URL: `https://127.0.0.1:PORT`. */
  readonly host: string;
  /** The CA and the admin client certificate, as PEM strings. */
  readonly tls: EnvtestTls;
  /**
   * `-1`: no client-side rate limit. Tests own the server, so their requests need not queue
   * behind a limiter meant to protect a shared cluster (controller-runtime's envtest config
   * allows 1000 requests per second for the same reason).
   */
  readonly qps: number;
}

/** Options of {@link Envtest.restartApiServer}. */
export interface RestartApiServerOptions {
  /**
   * How kube-apiserver is ended: `'SIGTERM'` (the default) lets it shut down gracefully
   * (SIGKILL after `stopGracePeriodMs`); `'SIGKILL'` kills it at once, as a crash would:
   * open connections and watches break without a goodbye.
   */
  signal?: 'SIGKILL' | 'SIGTERM';
  /** How long the new process may take to answer `/readyz` with 200. Default: `startTimeoutMs`. */
  timeoutMs?: number;
}

/** A running etcd + kube-apiserver pair, ready to serve requests. */
export interface Envtest extends AsyncDisposable {
  /** The API server's URL: `https://127.0.0.1:PORT`. */
  readonly host: string;
  /** TLS material for the admin identity, as PEM strings. */
  readonly tls: EnvtestTls;
  /** A client configuration for the admin user, unthrottled (see {@link EnvtestConfig}). */
  readonly config: EnvtestConfig;
  /** The kubeconfig (YAML): cluster, context `envtest`, user `admin` with embedded certificates. */
  readonly kubeconfig: string;
  /** Path of {@link Envtest.kubeconfig} written to disk, inside {@link Envtest.dir}. */
  readonly kubeconfigPath: string;
  /** etcd's client URL: `http://127.0.0.1:PORT`. */
  readonly etcdEndpoint: string;
  /** The temp dir holding certificates, etcd's data, logs and the kubeconfig; removed by `stop()`. */
  readonly dir: string;
  /** Process ids of the two children (`kubeApiserver` changes with {@link Envtest.restartApiServer}). */
  readonly pids: {
    /** The etcd process. */
    readonly etcd: number;
    /** The kube-apiserver process. */
    readonly kubeApiserver: number;
  };
  /** The binaries that were run, and where they were found. */
  readonly binaries: EnvtestBinaries;
  /** How long the start took, in milliseconds. */
  readonly startDurationMs: number;
  /**
   * With `webhooks`: where the test's webhook server must listen and the certificate it
   * serves; the configurations are installed and point there.
   */
  readonly webhook: EnvtestWebhookServing | undefined;
  /**
   * Ends kube-apiserver (SIGTERM by default, or SIGKILL to simulate a crash), starts it again
   * with the same flags, port, certificates and etcd, and resolves once `/readyz` answers 200.
   * Data lives in etcd, which keeps running, so it survives; {@link Envtest.host}, the
   * kubeconfig and the TLS material stay valid. `pids.kubeApiserver` is the new process's.
   * Restarts requested while one is in progress run one after the other.
   *
   * @throws {EnvtestError} `ProcessExited` when the new process exits before it is ready,
   *   `StartTimeout` when it is not ready in time (it is left running; `stop()` ends it).
   *   Rejects when envtest is stopped meanwhile.
   */
  restartApiServer(options?: RestartApiServerOptions): Promise<void>;
  /**
   * Stops kube-apiserver, then etcd (SIGTERM, then SIGKILL after the grace period), waits for
   * both to exit and removes the temp dir. Safe to call more than once.
   */
  stop(): Promise<void>;
  /** Same as {@link Envtest.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const DEFAULT_STOP_GRACE_MS = 5_000;
const MAX_PORT_ATTEMPTS = 3;

function isPortClash(error: unknown): boolean {
  return (
    isEnvtestError(error) &&
    error.code === 'ProcessExited' &&
    /address already in use/i.test(error.logTail ?? '')
  );
}

/**
 * Starts etcd and kube-apiserver on free loopback ports, with secure serving, a freshly
 * generated CA and an admin client identity (CN=admin, O=system:masters), and resolves once
 * the API server is ready and the `default` namespace exists.
 *
 * Everything lives in a new temp dir (certificates, etcd's data, both processes' logs and
 * the kubeconfig), which {@link Envtest.stop} removes. If the test process exits without
 * calling `stop()`, the children are killed and the temp dir removed on `process.on('exit')`.
 *
 * @example
 * ```ts
 * let env: Envtest;
 * beforeAll(async () => { env = await startEnvtest(); });
 * afterAll(() => env?.stop());
 * ```
 * @throws {EnvtestError} `BinaryNotFound` when etcd or kube-apiserver is missing (the message
 *   says where it looked and how to get them), `ProcessExited` or `StartTimeout` with the end
 *   of the failing process's log. Rejects with `options.signal.reason` when aborted.
 */
export async function startEnvtest(options: EnvtestOptions = {}): Promise<Envtest> {
  const startedAt = Date.now();
  options.signal?.throwIfAborted();
  const startTimeoutMs = resolveStartTimeoutMs(options.startTimeoutMs);
  const binaries = await findEnvtestBinaries(
    options.assetsDir === undefined ? {} : { assetsDir: options.assetsDir },
  );
  const timeoutSignal = AbortSignal.timeout(startTimeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeoutSignal]) : timeoutSignal;
  const [etcdKnown, apiKnown, certs] = await Promise.all([
    knownFlags(binaries.etcd.path),
    knownFlags(binaries.kubeApiserver.path),
    generateEnvtestCertificates(),
  ]);
  if (options.signal?.aborted) throw options.signal.reason;
  if (timeoutSignal.aborted) {
    throw new EnvtestError(
      'StartTimeout',
      `envtest did not start within ${startTimeoutMs} ms: still probing the binaries and generating certificates.`,
    );
  }

  for (let attemptNo = 1; ; attemptNo++) {
    try {
      const plane = await startControlPlane({
        binaries,
        certs,
        known: { etcd: etcdKnown, kubeApiserver: apiKnown },
        etcdFlags: options.etcdFlags,
        apiServerFlags: options.apiServerFlags,
        stopGracePeriodMs: options.stopGracePeriodMs ?? DEFAULT_STOP_GRACE_MS,
        signal,
        timeoutSignal,
        callerSignal: options.signal,
        startTimeoutMs,
      });
      // The key prints redacted, also from spread copies of `config` (they share `tls`).
      const tls = redactedTls({
        caData: plane.tls.ca,
        certData: plane.tls.cert,
        keyData: plane.tls.key,
      });
      const webhook =
        options.webhooks === undefined
          ? undefined
          : await installWebhooks(options.webhooks, plane.dir, {
              host: plane.host,
              ...plane.tls,
            }).catch(async (error: unknown) => {
              await plane.stop();
              throw error;
            });
      return {
        host: plane.host,
        tls,
        config: { host: plane.host, tls, qps: -1 },
        kubeconfig: plane.kubeconfig,
        kubeconfigPath: plane.kubeconfigPath,
        etcdEndpoint: plane.etcdEndpoint,
        dir: plane.dir,
        get pids() {
          return plane.pids;
        },
        binaries,
        startDurationMs: Date.now() - startedAt,
        webhook,
        restartApiServer: (restartOptions?: RestartApiServerOptions) =>
          plane.restarter.restart(restartOptions),
        stop: plane.stop,
        [Symbol.asyncDispose]: plane.stop,
      };
    } catch (error) {
      // Free ports are found by binding port 0 and releasing it; another process can take one
      // in between. Try again with new ports.
      if (attemptNo < MAX_PORT_ATTEMPTS && isPortClash(error) && !signal.aborted) continue;
      throw error;
    }
  }
}
