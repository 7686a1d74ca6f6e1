import { execFile } from 'node:child_process';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type EnvtestBinaries, findEnvtestBinaries } from './binaries.js';
import { type EnvtestCertificates, generateEnvtestCertificates } from './certs.js';
import { EnvtestError, isEnvtestError } from './errors.js';
import { renderKubeconfig } from './kubeconfig.js';
import { freeLoopbackPorts } from './ports.js';
import { type ProbeTls, pollUntil, probeGet } from './probe.js';
import { type ExitInfo, type ManagedProcess, startProcess, tailLog } from './process.js';
import { startTimeoutMs as resolveStartTimeoutMs } from './start-timeout.js';
import { createTempDir } from './temp-dir.js';

/**
 * Command-line flags by name, without the leading `--`. A string sets the flag once
 * (`--name=value`), an array repeats it, and `null` removes a flag envtest would otherwise
 * pass. Entries are merged over envtest's defaults.
 */
export type EnvtestFlags = Readonly<Record<string, string | readonly string[] | null>>;

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
}

/** PEM strings for talking to the envtest API server as its admin user. */
export interface EnvtestTls {
  /** The CA that signed the serving certificate (and the client certificate). */
  caData: string;
  /** The admin client certificate (CN=admin, O=system:masters). */
  certData: string;
  /** The admin client certificate's private key. */
  keyData: string;
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

/** Flags a binary's `--help` lists, so envtest only passes flags the installed version knows. */
const helpCache = new Map<string, Promise<ReadonlySet<string>>>();

function knownFlags(binary: string): Promise<ReadonlySet<string>> {
  let cached = helpCache.get(binary);
  if (!cached) {
    cached = new Promise((resolve) => {
      execFile(
        binary,
        ['--help'],
        { timeout: 20_000, maxBuffer: 16 * 1024 * 1024, env: childEnv() },
        (_error, stdout, stderr) => {
          // Some versions exit non-zero after printing help; the text is what matters.
          const flags = new Set<string>();
          for (const match of `${stdout}\n${stderr}`.matchAll(/--([a-z0-9][a-z0-9-]*)/g)) {
            if (match[1] !== undefined) flags.add(match[1]);
          }
          resolve(flags);
        },
      );
    });
    helpCache.set(binary, cached);
  }
  return cached;
}

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // etcd reads ETCD_* variables as flags; keep the user's environment from reconfiguring it.
    if (key.startsWith('ETCD_') && key !== 'ETCD_UNSUPPORTED_ARCH') continue;
    env[key] = value;
  }
  if (process.arch === 'arm64' && env.ETCD_UNSUPPORTED_ARCH === undefined) {
    env.ETCD_UNSUPPORTED_ARCH = 'arm64';
  }
  return env;
}

/** Merges `overrides` over `defaults` and renders `--name=value` arguments. */
export function renderFlags(defaults: EnvtestFlags, overrides: EnvtestFlags = {}): string[] {
  const merged = new Map<string, string | readonly string[] | null>(Object.entries(defaults));
  for (const [name, value] of Object.entries(overrides)) {
    merged.set(name.replace(/^--/, ''), value);
  }
  const args: string[] = [];
  for (const [name, value] of merged) {
    if (value === null) continue;
    for (const one of typeof value === 'string' ? [value] : value) args.push(`--${name}=${one}`);
  }
  return args;
}

interface Paths {
  dir: string;
  certDir: string;
  caCert: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  saPublic: string;
  saPrivate: string;
  etcdData: string;
  etcdLog: string;
  apiServerLog: string;
  kubeconfig: string;
}

function pathsIn(dir: string): Paths {
  const certDir = join(dir, 'certs');
  return {
    dir,
    certDir,
    caCert: join(certDir, 'ca.crt'),
    servingCert: join(certDir, 'apiserver.crt'),
    servingKey: join(certDir, 'apiserver.key'),
    adminCert: join(certDir, 'admin.crt'),
    adminKey: join(certDir, 'admin.key'),
    saPublic: join(certDir, 'sa.pub'),
    saPrivate: join(certDir, 'sa.key'),
    etcdData: join(dir, 'etcd-data'),
    etcdLog: join(dir, 'etcd.log'),
    apiServerLog: join(dir, 'kube-apiserver.log'),
    kubeconfig: join(dir, 'kubeconfig'),
  };
}

async function writeCertificates(paths: Paths, certs: EnvtestCertificates): Promise<void> {
  await mkdir(paths.certDir, { mode: 0o700 });
  const secret = { mode: 0o600 } as const;
  await Promise.all([
    writeFile(paths.caCert, certs.ca.certPem),
    writeFile(paths.servingCert, certs.serving.certPem),
    writeFile(paths.servingKey, certs.serving.keyPem, secret),
    writeFile(paths.adminCert, certs.admin.certPem),
    writeFile(paths.adminKey, certs.admin.keyPem, secret),
    writeFile(paths.saPublic, certs.serviceAccount.publicKeyPem),
    writeFile(paths.saPrivate, certs.serviceAccount.privateKeyPem, secret),
  ]);
}

/** Thrown inside one attempt when a child exits before it is ready. */
class ChildExited extends Error {
  constructor(
    readonly child: ManagedProcess,
    readonly exit: ExitInfo,
  ) {
    super(`${child.name} exited`);
  }
}

function describeExit(exit: ExitInfo): string {
  if (exit.spawnError) return `could not be started (${exit.spawnError.message})`;
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code}`;
}

interface Attempt {
  binaries: EnvtestBinaries;
  certs: EnvtestCertificates;
  etcdKnown: ReadonlySet<string>;
  apiKnown: ReadonlySet<string>;
  options: EnvtestOptions;
  /** Aborted by the caller's signal or the overall start timeout. */
  signal: AbortSignal;
  timeoutSignal: AbortSignal;
  startTimeoutMs: number;
  startedAt: number;
}

async function startOnce(attempt: Attempt): Promise<Envtest> {
  const tempDir = await createTempDir('kubets-envtest');
  const dir = tempDir.path;
  const paths = pathsIn(dir);
  const grace = attempt.options.stopGracePeriodMs ?? DEFAULT_STOP_GRACE_MS;
  const children: ManagedProcess[] = [];
  const stopAll = async (): Promise<void> => {
    // kube-apiserver first: it would otherwise spend its shutdown retrying a dead etcd.
    for (const child of [...children].reverse()) await child.stop(grace);
  };

  // Any child exiting before the start completes aborts the waits below.
  const failure = new AbortController();
  const signal = AbortSignal.any([attempt.signal, failure.signal]);
  let ready = false;
  const watch = (child: ManagedProcess): ManagedProcess => {
    children.push(child);
    void child.exited.then((exit) => {
      if (!ready) failure.abort(new ChildExited(child, exit));
    });
    return child;
  };

  let phase: { child: ManagedProcess | undefined; waitingFor: string } = {
    child: undefined,
    waitingFor: 'preparing the temp dir',
  };
  let lastProbeError: unknown;
  const noteProbeError = (error: unknown): void => {
    lastProbeError = error;
  };

  try {
    await writeCertificates(paths, attempt.certs);
    const [clientPort, peerPort, securePort] = await freeLoopbackPorts(3);
    const etcdEndpoint = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const host = `https://127.0.0.1:${securePort}`;

    const etcdDefaults: Record<string, string> = {
      name: 'envtest',
      'data-dir': paths.etcdData,
      'listen-client-urls': etcdEndpoint,
      'advertise-client-urls': etcdEndpoint,
      'listen-peer-urls': peerUrl,
      'initial-advertise-peer-urls': peerUrl,
      'initial-cluster': `envtest=${peerUrl}`,
    };
    // Durability is pointless for a throw-away test store; etcd 3.5+ can skip fsync.
    if (attempt.etcdKnown.has('unsafe-no-fsync')) etcdDefaults['unsafe-no-fsync'] = 'true';
    // etcd 3.4 defaults to the deprecated capnslog logger and warns about it.
    if (attempt.etcdKnown.has('logger')) etcdDefaults.logger = 'zap';

    const env = childEnv();
    const etcd = watch(
      startProcess(
        'etcd',
        attempt.binaries.etcd.path,
        renderFlags(etcdDefaults, attempt.options.etcdFlags),
        paths.etcdLog,
        env,
      ),
    );
    phase = { child: etcd, waitingFor: `etcd to report healthy at ${etcdEndpoint}/health` };
    await pollUntil(
      async () => {
        const res = await probeGet(`${etcdEndpoint}/health`, { signal, timeoutMs: 2_000 });
        if (res.status !== 200) throw new Error(`/health answered ${res.status}: ${res.body}`);
        const health = (JSON.parse(res.body) as { health?: unknown }).health;
        if (health !== 'true' && health !== true) throw new Error(`/health said ${res.body}`);
        return true;
      },
      signal,
      50,
      noteProbeError,
    );

    const apiDefaults: Record<string, string> = {
      'etcd-servers': etcdEndpoint,
      'bind-address': '127.0.0.1',
      'advertise-address': '127.0.0.1',
      'secure-port': String(securePort),
      'cert-dir': paths.certDir,
      'tls-cert-file': paths.servingCert,
      'tls-private-key-file': paths.servingKey,
      'client-ca-file': paths.caCert,
      'service-account-key-file': paths.saPublic,
      'service-account-signing-key-file': paths.saPrivate,
      'service-account-issuer': 'https://kubernetes.default.svc.cluster.local',
      'service-cluster-ip-range': '10.0.0.0/24',
      'authorization-mode': 'RBAC',
      'disable-admission-plugins': 'ServiceAccount',
      'allow-privileged': 'true',
    };
    // Removed in 1.24; on older servers it turns off the unauthenticated HTTP port.
    if (attempt.apiKnown.has('insecure-port')) apiDefaults['insecure-port'] = '0';
    // The default reconciler tries to publish 127.0.0.1 as the endpoint of the `kubernetes`
    // Service, which validation rejects (loopback), logging an error every few seconds.
    if (attempt.apiKnown.has('endpoint-reconciler-type')) {
      apiDefaults['endpoint-reconciler-type'] = 'none';
    }

    const tls: ProbeTls = {
      ca: attempt.certs.ca.certPem,
      cert: attempt.certs.admin.certPem,
      key: attempt.certs.admin.keyPem,
    };
    lastProbeError = undefined;
    const apiArgs = renderFlags(apiDefaults, attempt.options.apiServerFlags);
    const apiServer = watch(
      startProcess(
        'kube-apiserver',
        attempt.binaries.kubeApiserver.path,
        apiArgs,
        paths.apiServerLog,
        env,
      ),
    );
    phase = { child: apiServer, waitingFor: `kube-apiserver to answer ${host}/readyz with 200` };
    await pollUntil(
      async () => {
        const res = await probeGet(`${host}/readyz`, { tls, signal, timeoutMs: 5_000 });
        if (res.status !== 200) throw new Error(`/readyz answered ${res.status}: ${res.body}`);
        return true;
      },
      signal,
      100,
      noteProbeError,
    );
    lastProbeError = undefined;
    phase = {
      child: apiServer,
      waitingFor: `the default namespace (${host}/api/v1/namespaces/default)`,
    };
    await pollUntil(
      async () => {
        const res = await probeGet(`${host}/api/v1/namespaces/default`, {
          tls,
          signal,
          timeoutMs: 5_000,
        });
        if (res.status !== 200) throw new Error(`answered ${res.status}: ${res.body}`);
        return true;
      },
      signal,
      100,
      noteProbeError,
    );

    const kubeconfig = renderKubeconfig({
      server: host,
      caPem: attempt.certs.ca.certPem,
      certPem: attempt.certs.admin.certPem,
      keyPem: attempt.certs.admin.keyPem,
      context: 'envtest',
      user: 'admin',
    });
    await writeFile(paths.kubeconfig, kubeconfig, { mode: 0o600 });
    ready = true;

    const restarter = new ApiServerRestarter({
      children,
      index: children.indexOf(apiServer),
      binary: attempt.binaries.kubeApiserver.path,
      args: apiArgs,
      logPath: paths.apiServerLog,
      env,
      readyzUrl: `${host}/readyz`,
      tls,
      graceMs: grace,
      defaultTimeoutMs: attempt.startTimeoutMs,
    });

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        await restarter.close();
        await stopAll();
        await tempDir.remove();
      })();
      return stopping;
    };
    return {
      host,
      tls: { caData: tls.ca, certData: tls.cert, keyData: tls.key },
      kubeconfig,
      kubeconfigPath: paths.kubeconfig,
      etcdEndpoint,
      dir,
      get pids() {
        return { etcd: etcd.pid ?? -1, kubeApiserver: restarter.current.pid ?? -1 };
      },
      binaries: attempt.binaries,
      startDurationMs: Date.now() - attempt.startedAt,
      restartApiServer: (restartOptions?: RestartApiServerOptions) =>
        restarter.restart(restartOptions),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    ready = true; // No more exit reports: we are tearing down on purpose.
    const exited = failure.signal.aborted ? failure.signal.reason : undefined;
    // Read the log before the temp dir goes away.
    const failing = exited instanceof ChildExited ? exited.child : phase.child;
    const logTail = failing ? await tailLog(failing.logPath) : undefined;
    await stopAll();
    await tempDir.remove();

    if (exited instanceof ChildExited) {
      throw new EnvtestError(
        'ProcessExited',
        `${exited.child.name} ${describeExit(exited.exit)} while envtest was waiting for ` +
          `${phase.waitingFor}.\nLast lines of its log:\n${logTail ?? '(none)'}`,
        { binary: exited.child.name, logTail, cause: exited.exit.spawnError },
      );
    }
    if (attempt.timeoutSignal.aborted && !attempt.options.signal?.aborted) {
      const probe =
        lastProbeError instanceof Error ? `\nLast probe error: ${lastProbeError.message}` : '';
      throw new EnvtestError(
        'StartTimeout',
        `envtest did not start within ${attempt.startTimeoutMs} ms: still waiting for ` +
          `${phase.waitingFor}.${probe}` +
          (failing ? `\nLast lines of the ${failing.name} log:\n${logTail ?? '(none)'}` : ''),
        { binary: failing?.name, logTail, cause: lastProbeError },
      );
    }
    if (attempt.options.signal?.aborted) throw attempt.options.signal.reason;
    throw error;
  }
}

interface RestarterSettings {
  /** envtest's children; the kube-apiserver entry is replaced by each restart. */
  children: ManagedProcess[];
  index: number;
  binary: string;
  args: readonly string[];
  logPath: string;
  env: NodeJS.ProcessEnv;
  readyzUrl: string;
  tls: ProbeTls;
  graceMs: number;
  defaultTimeoutMs: number;
}

/** How often a restart retries when the port is still held by the old process's sockets. */
const RESTART_PORT_ATTEMPTS = 5;

/** Restarts kube-apiserver in place, one restart at a time (see {@link Envtest.restartApiServer}). */
class ApiServerRestarter {
  readonly #s: RestarterSettings;
  readonly #closed = new AbortController();
  #queue: Promise<void> = Promise.resolve();

  constructor(settings: RestarterSettings) {
    this.#s = settings;
  }

  get current(): ManagedProcess {
    return this.#s.children[this.#s.index] as ManagedProcess;
  }

  restart(options: RestartApiServerOptions = {}): Promise<void> {
    const run = this.#queue.then(() => this.#restartOnce(options));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Stops accepting restarts, aborts one in progress and waits for it to settle. */
  async close(): Promise<void> {
    this.#closed.abort(new Error('envtest was stopped'));
    await this.#queue;
  }

  async #restartOnce(options: RestartApiServerOptions): Promise<void> {
    this.#closed.signal.throwIfAborted();
    const s = this.#s;
    const signal = options.signal ?? 'SIGTERM';
    if (signal !== 'SIGTERM' && signal !== 'SIGKILL') {
      throw new TypeError(`restartApiServer: unsupported signal ${String(signal)}`);
    }
    const timeoutMs = options.timeoutMs ?? s.defaultTimeoutMs;
    const old = this.current;
    if (signal === 'SIGKILL') await old.kill('SIGKILL');
    else await old.stop(s.graceMs);
    const timeout = AbortSignal.timeout(timeoutMs);

    for (let attemptNo = 1; ; attemptNo++) {
      this.#closed.signal.throwIfAborted();
      await appendFile(
        s.logPath,
        `\n--- envtest: kube-apiserver ${old.pid ?? '?'} ended by ${signal}; starting it again ---\n`,
      );
      const child = startProcess('kube-apiserver', s.binary, s.args, s.logPath, s.env);
      s.children[s.index] = child;
      const exitedEarly = new AbortController();
      let settled = false;
      void child.exited.then((exit) => {
        if (!settled) exitedEarly.abort(new ChildExited(child, exit));
      });
      const waitSignal = AbortSignal.any([exitedEarly.signal, timeout, this.#closed.signal]);
      let lastProbeError: unknown;
      try {
        await pollUntil(
          async () => {
            const res = await probeGet(s.readyzUrl, {
              tls: s.tls,
              signal: waitSignal,
              timeoutMs: 5_000,
            });
            if (res.status !== 200) throw new Error(`/readyz answered ${res.status}: ${res.body}`);
            return true;
          },
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
              `answer ${s.readyzUrl} with 200 after a restart.\nLast lines of its log:\n${logTail}`,
            { binary: 'kube-apiserver', logTail, cause: exited.exit.spawnError },
          );
        }
        if (timeout.aborted) {
          const probe =
            lastProbeError instanceof Error ? `\nLast probe error: ${lastProbeError.message}` : '';
          throw new EnvtestError(
            'StartTimeout',
            `kube-apiserver was not ready within ${timeoutMs} ms after a restart: still waiting ` +
              `for ${s.readyzUrl} to answer 200.${probe}\nLast lines of its log:\n${logTail}`,
            { binary: 'kube-apiserver', logTail, cause: lastProbeError },
          );
        }
        throw error;
      }
    }
  }
}

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
      return await startOnce({
        binaries,
        certs,
        etcdKnown,
        apiKnown,
        options,
        signal,
        timeoutSignal,
        startTimeoutMs,
        startedAt,
      });
    } catch (error) {
      // Free ports are found by binding port 0 and releasing it; another process can take one
      // in between. Try again with new ports.
      if (attemptNo < MAX_PORT_ATTEMPTS && isPortClash(error) && !signal.aborted) continue;
      throw error;
    }
  }
}
