import { isNotFound, type Logger, silentLogger } from '@kubets/apimachinery';
import type { ApiServerOptions, InMemoryApiServer } from '@kubets/apiserver';
import { setCacheMutationDetectorDefault } from '@kubets/cache/testing';
import { type apiextensionsv1, Clientset, type corev1 } from '@kubets/clientset';
import {
  DynamicClient,
  type DynamicSharedInformerFactory,
  newDynamicSharedInformerFactoryWithOptions,
} from '@kubets/dynamic';
import { newSharedInformerFactory, type SharedInformerFactory } from '@kubets/informers';
import { type Config, copyConfig, loadConfig } from '@kubets/rest';
import { cachedObject } from './cached.js';
import { captureEvents } from './captured-events.js';
import { Manager, type ManagerOptions } from './manager.js';
import { waitForCacheDeletion, waitForCacheWrite } from './read-your-writes.js';
import type { ReconcileContext, Reconciler, Result } from './reconciler.js';
import type { ReconcileRequest } from './request.js';
import { resolveResource, type WatchedResource } from './watched-resource.js';

/** Options of {@link startInMemoryTestEnv}. */
export interface TestEnvOptions {
  /** CustomResourceDefinitions installed before the promise resolves. */
  crds?: readonly apiextensionsv1.CustomResourceDefinition[] | undefined;
  /** Namespaces created besides `default`. */
  namespaces?: readonly string[] | undefined;
  /** Where reconcilers and managers log; default silent. */
  logger?: Logger | undefined;
  /** Options of the embedded API server (`@kubets/apiserver`'s `startApiServer`). */
  server?: ApiServerOptions | undefined;
}

/** Options of {@link TestEnv.reconcile}. */
export interface TestReconcileOptions {
  /** The context's signal (a controller's stop); default one that never aborts. */
  signal?: AbortSignal | undefined;
  /** The controller name the reconciler sees and its events' source. Default `test`. */
  controller?: string | undefined;
}

/**
 * An embedded API server with clients on it, to test reconcilers against (controller-runtime's
 * envtest, in process). Made by {@link startInMemoryTestEnv}; `await using` stops it.
 */
export interface TestEnv extends AsyncDisposable {
  /** The embedded API server (its `faults` inject failures). */
  readonly server: InMemoryApiServer;
  /**
   * The client configuration of the server, for a `Manager` or any client: without client-side
   * rate limiting (`qps: -1`), as envtest's.
   */
  readonly config: Config;
  /** A clientset on the server. */
  readonly clientset: Clientset;
  /** A dynamic client on the server. */
  readonly dynamicClient: DynamicClient;
  /**
   * The shared informers whose caches {@link TestEnv.reconcile} reads (e.g. to hand a
   * reconciler the informer it waits on with `waitForCacheWrite`).
   */
  readonly informers: SharedInformerFactory;
  /** The dynamic shared informers {@link TestEnv.reconcile} reads for a group/version/resource. */
  readonly dynamicInformers: DynamicSharedInformerFactory;
  /**
   * Calls `reconciler` once for `request`, with the context a controller for `resource` would
   * give it: `ctx.lister` and `ctx.cached()` read an informer cache of `resource` that holds
   * what the server holds for the request when the reconcile starts; `ctx.recorder` keeps its
   * Events for {@link TestEnv.events}. Resolves with what the reconciler returned; rejects
   * with what it threw.
   */
  reconcile<T>(
    resource: WatchedResource<T>,
    reconciler: Reconciler<T>,
    request: ReconcileRequest,
    options?: TestReconcileOptions,
  ): Promise<Result | undefined>;
  /** The Events recorded by the reconciles so far, in recording order. */
  events(): Promise<corev1.Event[]>;
  /**
   * Runs a {@link Manager} on the server until the environment stops: `setup` adds the
   * controllers; resolves once its caches have synced and its controllers run.
   */
  startManager(
    setup: (mgr: Manager) => void,
    options?: Omit<ManagerOptions, 'logger'> | undefined,
  ): Promise<Manager>;
  /**
   * Stops the managers, the caches and the server. Rejects, once all of them have stopped,
   * with the error of a manager that failed while it ran (an `AggregateError` when several
   * did), so a controller that crashed mid-test fails the test instead of going unnoticed.
   */
  stop(): Promise<void>;
}

/**
 * Starts the in-memory API server of `@kubets/apiserver` (an optional peer dependency of this
 * subpath) in this process, with `options.crds` installed, for unit tests of reconcilers. For
 * a real etcd + kube-apiserver, use `startEnvtest` of `@kubets/envtest`.
 *
 * It turns on the cache mutation detector for the informers this process creates from now
 * on, as client-go's tests run with `KUBE_CACHE_MUTATION_DETECTOR=true`: cached objects are
 * deep-frozen, so a reconciler that changes an object it read from the cache throws at the
 * line that does it instead of corrupting the cache. `KUBE_CACHE_MUTATION_DETECTOR=false`
 * turns it off.
 *
 * ```ts
 * const env = await startInMemoryTestEnv({ crds: [crd] });
 * await env.clientset.coreV1().configMaps('default').create(configMap);
 * await env.reconcile(coreV1Resources.configMaps, reconciler, { namespace: 'default', name });
 * await env.stop();
 * ```
 */
export async function startInMemoryTestEnv(options: TestEnvOptions = {}): Promise<TestEnv> {
  const { startApiServer } = await loadApiServerPackage();
  setCacheMutationDetectorDefault(true);
  const server = await startApiServer(options.server ?? {});
  try {
    // No client-side throttling, as envtest's config (controller-runtime's 1000 QPS): a test's
    // requests never wait on a rate limiter meant to protect a shared cluster.
    const config = copyConfig(loadConfig({ kubeconfig: server.kubeconfigPath }), { qps: -1 });
    const clientset = new Clientset(config);
    for (const crd of options.crds ?? []) {
      await clientset.apiextensionsV1().customResourceDefinitions().create(crd);
    }
    for (const name of options.namespaces ?? []) {
      await clientset.coreV1().namespaces().create({ metadata: { name } });
    }
    return newTestEnv(server, config, clientset, options.logger ?? silentLogger);
  } catch (err) {
    await server.stop();
    throw err;
  }
}

// Loaded on first use, so that the rest of this subpath (newTestContext, listerOf) works
// without the optional peer installed.
async function loadApiServerPackage(): Promise<typeof import('@kubets/apiserver')> {
  try {
    return await import('@kubets/apiserver');
  } catch (err) {
    throw new Error(
      'startInMemoryTestEnv needs @kubets/apiserver (an optional peer dependency of @kubets/controller/testing): install it as a dev dependency',
      { cause: err },
    );
  }
}

function newTestEnv(
  server: InMemoryApiServer,
  config: Config,
  clientset: Clientset,
  logger: Logger,
): TestEnv {
  const dynamicClient = new DynamicClient(config);
  // The reconcilers' log stays theirs: the informers' own lines would crowd it.
  const shared = { defaultResyncMs: 0, logger: silentLogger };
  const informers = newSharedInformerFactory(clientset, shared);
  const dynamicInformers = newDynamicSharedInformerFactoryWithOptions(dynamicClient, shared);
  const stopping = new AbortController();
  const captured = captureEvents();
  const managers: Promise<void>[] = [];
  const managerFailures: unknown[] = [];

  const env: TestEnv = {
    server,
    config,
    clientset,
    dynamicClient,
    informers,
    dynamicInformers,
    async reconcile<T>(
      resource: WatchedResource<T>,
      reconciler: Reconciler<T>,
      request: ReconcileRequest,
      options: TestReconcileOptions = {},
    ): Promise<Result | undefined> {
      const resolved = resolveResource(resource, 'reconcile', { informers, dynamicInformers });
      const informer = resolved.informer();
      const cache = informer.informer();
      const lister = informer.lister() as unknown as ReconcileContext<T>['lister'];
      informers.start(stopping.signal);
      dynamicInformers.start(stopping.signal);
      await Promise.all([
        informers.waitForCacheSync(stopping.signal),
        dynamicInformers.waitForCacheSync(stopping.signal),
      ]);
      // The cache catches up with the request's object, so the reconcile sees the writes the
      // test made before it, as a controller would once their events arrived.
      const gvr = { group: resolved.group, version: resolved.version, resource: resolved.resource };
      const client = dynamicClient.resource(gvr);
      const scoped = request.namespace ? client.namespace(request.namespace) : client;
      try {
        await waitForCacheWrite(cache, await scoped.get(request.name));
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await waitForCacheDeletion(cache, {
          metadata: { namespace: request.namespace, name: request.name },
        });
      }
      const controllerName = options.controller ?? 'test';
      const ctx: ReconcileContext<T> = {
        signal: options.signal ?? new AbortController().signal,
        logger,
        controller: controllerName,
        lister,
        cached: () => cachedObject(lister, request),
        recorder: captured.recorderFor(controllerName),
      };
      const reconcile = typeof reconciler === 'function' ? reconciler : reconciler.reconcile;
      const result = await reconcile.call(reconciler, request, ctx);
      return result ?? undefined;
    },
    events: () => captured.events(),
    async startManager(setup, managerOptions = {}) {
      const mgr = new Manager(config, { ...managerOptions, logger });
      setup(mgr);
      const running = mgr.start(stopping.signal);
      managers.push(
        running.catch((error: unknown) => {
          managerFailures.push(error);
        }),
      );
      try {
        await untilLeading(mgr, running, stopping.signal);
      } catch (error) {
        // Reported here; stop() does not report the same failure again.
        const reported = managerFailures.indexOf(error);
        if (reported >= 0) managerFailures.splice(reported, 1);
        throw error;
      }
      return mgr;
    },
    async stop() {
      stopping.abort();
      await Promise.all(managers);
      await Promise.all([informers.shutdown(), dynamicInformers.shutdown(), captured.shutdown()]);
      await server.stop();
      const [first, ...more] = managerFailures;
      if (more.length > 0) {
        throw new AggregateError(managerFailures, `${managerFailures.length} managers failed`);
      }
      if (first !== undefined) throw first;
    },
    [Symbol.asyncDispose]: () => env.stop(),
  };
  return env;
}

// A manager runs its controllers once it leads (at once without leader election); it says
// so through isLeader() only, so this polls it, failing as soon as the manager does.
async function untilLeading(
  mgr: Manager,
  running: Promise<void>,
  stop: AbortSignal,
): Promise<void> {
  let failed: { error: unknown } | undefined;
  let ended = false;
  running.then(
    () => {
      ended = true;
    },
    (error: unknown) => {
      failed = { error };
    },
  );
  while (!mgr.isLeader()) {
    if (failed) throw failed.error;
    if (ended || stop.aborted) throw new Error('the manager stopped before it ran its controllers');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
