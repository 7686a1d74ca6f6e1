import {
  type Clock,
  type GroupVersion,
  groupVersionToString,
  type ObjectList,
} from '@kubets/apimachinery';
import {
  type Config,
  copyConfig,
  type RESTClient,
  type RequestRateLimiter,
  rateLimiterFor,
  restClientFor,
} from '@kubets/rest';
import type { AllNamespacesClient, ResourceClientFor } from './client-for.js';
import type { ObjectWithMeta, ResourceDescriptor, Subresource } from './descriptor.js';
import { GeneratedClientset } from './generated/clientset.js';
import type { GroupVersionClient, GroupVersionClientClass } from './group-client.js';
import { ScalableResourceClient } from './typed-client.js';

/** Options of {@link Clientset} beyond the REST {@link @kubets/rest!Config | Config}. */
export interface ClientsetOptions {
  /**
   * Time source for the shared rate limiter and retry waits; a `FakeClock` from
   * `@kubets/apimachinery/testing` in tests.
   */
  clock?: Clock | undefined;
  /** Extra wait before retry number `attempt`, on top of any Retry-After (see `RESTClientOptions`). */
  retryBackoffMs?: ((attempt: number) => number) | undefined;
}

/**
 * The typed clientset, client-go's `kubernetes.Clientset`: one accessor per built-in
 * group/version (`coreV1()`, `appsV1()`, `batchV1()`, ...), each with one method per
 * resource:
 *
 * ```ts
 * const clientset = new Clientset(loadConfig());
 * const pods = await clientset.coreV1().pods('default').list({ limit: 500 });
 * ```
 *
 * Every group/version gets its own `RESTClient` (created on first use and cached), and all
 * of them share ONE rate limiter: `config.rateLimiter` when set, else a token bucket built
 * from `config.qps`/`config.burst` (5/10 by default; a negative qps disables throttling).
 */
export class Clientset extends GeneratedClientset {
  /** The configuration every REST client is built from (with the shared limiter). */
  readonly config: Config;
  /** The limiter all requests of this clientset wait on; `undefined` when throttling is off. */
  readonly rateLimiter: RequestRateLimiter | undefined;
  readonly #options: ClientsetOptions;
  readonly #restClients = new Map<string, RESTClient>();
  readonly #groupClients = new Map<
    GroupVersionClientClass<GroupVersionClient>,
    GroupVersionClient
  >();

  /**
   * @throws {ConfigError} when the configuration is unusable (no host, conflicting TLS
   *   settings), as client-go's `NewForConfig` returns an error.
   */
  constructor(config: Config, options: ClientsetOptions = {}) {
    super();
    this.#options = options;
    this.rateLimiter = rateLimiterFor(config, { clock: options.clock });
    // Not a spread: the copy must keep printing with its secrets redacted.
    this.config = copyConfig(config, { rateLimiter: this.rateLimiter });
    // Build one client now so configuration errors surface here, not on first use.
    this.restClientFor({ group: '', version: 'v1' });
  }

  /**
   * The REST client for a group/version (`/api/v1` for the core group, else
   * `/apis/<group>/<version>`), cached and sharing the clientset's rate limiter. Use it for
   * requests the typed clients do not cover, or for custom resources.
   */
  restClientFor(groupVersion: GroupVersion): RESTClient {
    const key = groupVersionToString(groupVersion);
    let client = this.#restClients.get(key);
    if (!client) {
      client = restClientFor(this.config, groupVersion, {
        ...(this.rateLimiter ? { rateLimiter: this.rateLimiter } : {}),
        ...(this.#options.clock ? { clock: this.#options.clock } : {}),
        ...(this.#options.retryBackoffMs ? { retryBackoffMs: this.#options.retryBackoffMs } : {}),
      });
      this.#restClients.set(key, client);
    }
    return client;
  }

  protected groupClient<C extends GroupVersionClient>(clientClass: GroupVersionClientClass<C>): C {
    let client = this.#groupClients.get(clientClass);
    if (!client) {
      client = new clientClass(this.restClientFor(clientClass.groupVersion));
      this.#groupClients.set(clientClass, client);
    }
    return client as C;
  }

  /**
   * A typed client for any resource descriptor — a custom resource needs no generated code:
   *
   * ```ts
   * const mydemos = defineResource<Mydemo>({ group: 'crddemo.k8s.io', version: 'v1',
   *   resource: 'mydemos', kind: 'Mydemo', namespaced: true, subresources: ['status'] });
   * const demo = await clientset.resource(mydemos, 'default').get('example-mydemo');
   * ```
   *
   * The client follows the descriptor as far as its type tells (see
   * {@link ResourceDescriptor}): status and scale methods only for the subresources it
   * declares ({@link ResourceClientFor}), and for a namespaced resource without a namespace
   * no call that needs one ({@link AllNamespacesClient}). At run time the status and scale
   * methods reject with an `InvalidRequestError` unless the descriptor lists that
   * subresource.
   */
  resource<
    T extends ObjectWithMeta,
    L extends { items?: T[] } = ObjectList<T>,
    S extends Subresource = Subresource,
  >(descriptor: ResourceDescriptor<T, L, true, S>, namespace: string): ResourceClientFor<T, L, S>;
  resource<
    T extends ObjectWithMeta,
    L extends { items?: T[] } = ObjectList<T>,
    S extends Subresource = Subresource,
  >(descriptor: ResourceDescriptor<T, L, true, S>): AllNamespacesClient<ResourceClientFor<T, L, S>>;
  resource<
    T extends ObjectWithMeta,
    L extends { items?: T[] } = ObjectList<T>,
    N extends boolean = boolean,
    S extends Subresource = Subresource,
  >(
    descriptor: ResourceDescriptor<T, L, N, S>,
    namespace?: N extends false ? undefined : string,
  ): ResourceClientFor<T, L, S>;
  resource<T extends ObjectWithMeta, L extends { items?: T[] } = ObjectList<T>>(
    descriptor: ResourceDescriptor<T, L>,
    namespace?: string,
  ): ScalableResourceClient<T, L> {
    const restClient = this.restClientFor({ group: descriptor.group, version: descriptor.version });
    return new ScalableResourceClient<T, L>(restClient, descriptor, namespace);
  }
}

/** A new {@link Clientset} for `config` (client-go's `kubernetes.NewForConfig`). */
export function clientsetFor(config: Config, options: ClientsetOptions = {}): Clientset {
  return new Clientset(config, options);
}
