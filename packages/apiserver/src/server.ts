import { writeFile } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import type { Clock } from '@kubets/apimachinery';
import {
  createTempDir,
  generateEnvtestCertificates,
  renderKubeconfig,
  type TempDir,
} from '@kubets/envtest';
import { ApiHandler } from './dispatch.js';
import type { ApiServerFaults } from './faults.js';
import { foreignRequest } from './host-check.js';
import { sendJson } from './http.js';
import type { PodLogs } from './podlogs.js';
import { ServerState } from './server-state.js';
import { failure } from './status.js';

/** Options for {@link startApiServer}. */
export interface ApiServerOptions {
  /**
   * Serve HTTPS with a freshly generated CA and serving certificate for 127.0.0.1/localhost
   * (the kubeconfig then carries the CA and an admin client certificate). Default false:
   * plain HTTP, which every client accepts given the kubeconfig.
   */
  tls?: boolean;
  /** TCP port on 127.0.0.1. Default 0: a free port. */
  port?: number;
  /**
   * Events kept per resource for watches from an older resourceVersion: the watch cache's
   * size. Default 10 000. A watch from before the oldest kept event gets a 410 `Expired` ERROR
   * event, `too old resource version: <rv> (<oldest - 1>)`, as from kube-apiserver's watch cache.
   */
  historySize?: number;
  /**
   * Revisions kept for exact lists (`resourceVersionMatch=Exact`), paged lists at a
   * resourceVersion and continue tokens, across all resources: etcd's history. Once the server
   * has written this many revisions past one, it is compacted, as kube-apiserver's periodic etcd
   * compaction does, and such reads at it get 410 `Expired`. Default 10 000. An event also stays
   * as long as it is among the last {@link ApiServerOptions.historySize} of its resource.
   * {@link InMemoryApiServer.compact} compacts on demand.
   */
  revisionHistory?: number | undefined;
  /**
   * The clock timing reads that wait: a GET or LIST at a resourceVersion ahead of the server's
   * waits up to 3 s for a write to bring the server there (as kube-apiserver's watch cache
   * does), then answers 504. Default: the real clock; pass a `FakeClock` (from
   * `@kubets/apimachinery/testing`) to decide in a test when the 3 s have passed.
   */
  clock?: Clock | undefined;
  /** How often watches with `allowWatchBookmarks=true` get a BOOKMARK. Default 10 000 ms. */
  bookmarkIntervalMs?: number;
  /** Where to write the kubeconfig. Default: `kubeconfig` in a new temp dir removed by `stop()`. */
  kubeconfigPath?: string;
  /**
   * Largest accepted request body in bytes. Default 3 MiB, as kube-apiserver. It also bounds
   * the answers read from admission and conversion webhooks: this much for each object an
   * answer carries, and once more for the rest of the review (kube-apiserver reads them whole).
   */
  maxRequestBytes?: number;
  /**
   * Run a namespace controller, as kube-controller-manager does (envtest has none): a deleted
   * namespace is emptied (pods without grace period; objects with finalizers keep it waiting)
   * and then removed. Default false: a deleted namespace stays `Terminating`, as on envtest.
   */
  namespaceController?: boolean;
  /**
   * Run a garbage collector, as kube-controller-manager does (envtest has none): objects whose
   * `ownerReferences` all point to deleted owners are deleted; `Foreground` deletion deletes the
   * dependents and waits for those with `blockOwnerDeletion`; `Orphan` removes the owner from
   * its dependents' references. Synchronous on each write. Default false: owned objects stay,
   * and `foregroundDeletion`/`orphan` finalizers stay until removed, as on envtest.
   */
  garbageCollector?: boolean;
}

/** PEM strings of an HTTPS in-memory server's CA and admin client identity. */
export interface ApiServerTls {
  /** The CA that signed the serving certificate. */
  caData: string;
  /** An admin client certificate (the server accepts any client, with or without one). */
  certData: string;
  /** Its private key. */
  keyData: string;
}

/** A running in-memory Kubernetes API server. */
export interface InMemoryApiServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` (or `https://` with `tls: true`). */
  readonly host: string;
  /** The port the server listens on (on 127.0.0.1); chosen by the OS unless given. */
  readonly port: number;
  /** The kubeconfig (YAML): cluster, context and user `kubets-apiserver`, namespace `default`. */
  readonly kubeconfig: string;
  /** Path of {@link InMemoryApiServer.kubeconfig} on disk. */
  readonly kubeconfigPath: string;
  /** TLS material, when started with `tls: true`. */
  readonly tls: ApiServerTls | undefined;
  /** Fault injection. */
  readonly faults: ApiServerFaults;
  /**
   * The container logs served at `pods/{name}/log`, which tests write (there is no kubelet):
   * `server.podLogs.append('default', 'web', 'ready\n')`. See {@link PodLogs}.
   */
  readonly podLogs: PodLogs;
  /** The current (last written) resourceVersion. */
  resourceVersion(): string;
  /**
   * Compacts the history now, as etcd compaction does: every resourceVersion written so far
   * becomes too old. Watches from one get a 410 `Expired` ERROR event (`The resourceVersion
   * for the provided watch is too old.`); exact lists, paged lists at one and continue tokens
   * get HTTP 410 `Expired`. Same as `faults.compact()`.
   */
  compact(): void;
  /** Closes every connection and watch, stops listening and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
  /** Same as {@link InMemoryApiServer.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts an in-memory Kubernetes API server on 127.0.0.1: discovery, CRUD, patch (JSON,
 * merge, strategic merge, server-side apply), list and watch with kube-apiserver 1.20's
 * semantics for the built-in resources it knows and for CustomResourceDefinitions created
 * at run time, plus fault injection. Starts in milliseconds (plain HTTP) and keeps
 * everything in memory.
 *
 * It has no authentication, so it refuses what a web page could send it (DNS rebinding,
 * cross-origin requests): a request whose `Host` is not `localhost`, `127.x.x.x` or `[::1]`
 * (with any port), or that carries an `Origin` of another host, gets 403 with a `Status`
 * naming the rejected value.
 *
 * @example
 * ```ts
 * await using server = await startApiServer();
 * // server.kubeconfigPath for kubectl / any client; server.faults to inject failures
 * ```
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<InMemoryApiServer> {
  const state = new ServerState(options);
  const handler = new ApiHandler(state);
  let tls: ApiServerTls | undefined;
  let server: Server;
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const refusal = foreignRequest(req);
    if (refusal !== undefined) {
      req.resume();
      sendJson(res, 403, JSON.stringify(failure(403, 'Forbidden', refusal)));
      return;
    }
    void handler.handle(req, res);
  };
  let serving: { certPem: string; keyPem: string } | undefined;
  if (options.tls) {
    const certs = await generateEnvtestCertificates();
    tls = { caData: certs.ca.certPem, certData: certs.admin.certPem, keyData: certs.admin.keyPem };
    serving = certs.serving;
    server = createHttpsServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: certs.ca.certPem,
        requestCert: true,
        rejectUnauthorized: false,
      },
      onRequest,
    );
  } else {
    server = createHttpServer(onRequest);
  }
  server.keepAliveTimeout = 60_000;
  const sockets = new Set<Socket>();
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: options.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  state.port = port;
  const host = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const kubeconfig = renderKubeconfig({
    server: host,
    ...(tls
      ? { caPem: tls.caData, certPem: tls.certData, keyPem: tls.keyData }
      : { insecureSkipTlsVerify: true }),
    context: 'kubets-apiserver',
    user: 'kubets-apiserver',
  });
  let dir: TempDir | undefined;
  let kubeconfigPath = options.kubeconfigPath;
  if (kubeconfigPath === undefined) {
    dir = await createTempDir('kubets-apiserver');
    kubeconfigPath = join(dir.path, 'kubeconfig');
  }
  await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      for (const stream of [...state.streams]) stream.close();
      state.podLogs.closeAll();
      state.faults.reset();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      for (const socket of sockets) socket.destroy();
      await closed;
      await dir?.remove();
    })();
    return stopping;
  };
  return {
    host,
    port,
    kubeconfig,
    kubeconfigPath,
    tls,
    faults: state.faults,
    podLogs: state.podLogs,
    resourceVersion: () => String(state.storage.rv),
    compact: () => state.storage.compact(),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
