import { PassThrough, type Readable } from 'node:stream';
import {
  type CallOptions,
  type CreateOptions,
  type DeleteOptions,
  type DeleteOptionsBody,
  deleteOptionsBody,
  type UpdateOptions,
} from '@kubets/apimachinery';
import type { RESTClient } from '@kubets/rest';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type {
  Binding,
  Namespace,
  NamespaceList,
  Pod,
  PodList,
  ServiceAccount,
  ServiceAccountList,
} from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { StatusResourceClient, TypedResourceClient } from './typed-client.js';

/** Options of {@link PodClient.getLog} (core/v1 `PodLogOptions`). */
export interface PodLogOptions extends CallOptions {
  /** The container to read; needed when the pod has more than one. */
  container?: string | undefined;
  /** Keep the stream open and deliver new lines as they are written; ends when `signal` aborts. */
  follow?: boolean | undefined;
  /** Only the last this many lines. */
  tailLines?: number | undefined;
  /** Only lines newer than this many seconds. */
  sinceSeconds?: number | undefined;
  /** Only lines newer than this RFC 3339 time. */
  sinceTime?: string | undefined;
  /** Prefix each line with its RFC 3339 timestamp. */
  timestamps?: boolean | undefined;
  /** The previous, terminated instance of the container. */
  previous?: boolean | undefined;
  /** Stop after this many bytes. */
  limitBytes?: number | undefined;
  /** Read logs from kubelets with unverifiable serving certificates. */
  insecureSkipTLSVerifyBackend?: boolean | undefined;
}

/** The policy/v1 or policy/v1beta1 `Eviction` body. */
export interface Eviction {
  /** `policy/v1`, or `policy/v1beta1` for servers older than 1.22. */
  apiVersion: 'policy/v1' | 'policy/v1beta1';
  /** Always `Eviction`. */
  kind: 'Eviction';
  /** Names the pod to evict (`name` and `namespace`). */
  metadata: ObjectMeta;
  /** How the pod is deleted once the eviction is admitted (grace period, preconditions). */
  deleteOptions?: DeleteOptionsBody;
}

/** Options of {@link PodClient.evict}. */
export interface EvictOptions extends DeleteOptions {
  /**
   * The policy version of the Eviction: `v1` (1.22+ servers) or `v1beta1` (1.20, 1.21).
   * Unset: the version the server lists for `pods/eviction` in its core/v1 discovery,
   * looked up once per REST client.
   */
  version?: 'v1' | 'v1beta1' | undefined;
}

const evictionVersions = new WeakMap<RESTClient, Promise<'v1' | 'v1beta1'>>();

interface DiscoveryResource {
  name?: string;
  group?: string;
  version?: string;
}

async function discoverEvictionVersion(
  restClient: RESTClient,
  signal: AbortSignal | undefined,
): Promise<'v1' | 'v1beta1'> {
  let pending = evictionVersions.get(restClient);
  if (!pending) {
    const request = restClient.get();
    if (signal) request.signal(signal);
    pending = request.do<{ resources?: DiscoveryResource[] }>().then((list) => {
      const entry = list.resources?.find((resource) => resource.name === 'pods/eviction');
      return entry?.version === 'v1beta1' ? 'v1beta1' : 'v1';
    });
    evictionVersions.set(restClient, pending);
    // A failed lookup is not remembered: the next eviction asks again.
    pending.catch(() => evictionVersions.delete(restClient));
  }
  return pending;
}

/**
 * The core/v1 Pods client: the typed verbs plus `getLog` (pods/log), `evict`
 * (pods/eviction) and `bind` (pods/binding).
 */
export class PodClient extends StatusResourceClient<Pod, PodList> {
  /**
   * Opens a container's log as a byte stream. Without `follow` the stream ends after the
   * current log; with `follow` it stays open until the pod's container stops, the stream
   * is destroyed, or `signal` aborts (the stream then ends quietly).
   *
   * @throws {StatusError} when the server refuses (no such pod or container, no kubelet
   *   reachable, ...).
   */
  async getLog(name: string, options: PodLogOptions = {}): Promise<Readable> {
    const { signal } = options;
    const request = this.start(this.restClient.get(), this.namespaceFor('getLog'), options)
      .name(name)
      .subresource('log')
      .params({
        container: options.container,
        follow: options.follow,
        tailLines: options.tailLines,
        sinceSeconds: options.sinceSeconds,
        sinceTime: options.sinceTime,
        timestamps: options.timestamps,
        previous: options.previous,
        limitBytes: options.limitBytes,
        insecureSkipTLSVerifyBackend: options.insecureSkipTLSVerifyBackend,
      });
    const source = await request.stream();
    const output = new PassThrough();
    const onAbort = (): void => {
      source.unpipe(output);
      source.destroy();
      output.end();
    };
    if (signal?.aborted) {
      onAbort();
      return output;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const release = (): void => signal?.removeEventListener('abort', onAbort);
    source.on('error', (err) => {
      release();
      if (signal?.aborted) output.end();
      else output.destroy(err);
    });
    source.once('end', release);
    // The consumer giving up closes the connection.
    output.once('close', () => {
      release();
      source.destroy();
    });
    source.pipe(output);
    return output;
  }

  /** Reads a (non-follow) log to the end and returns it as text. */
  async getLogText(name: string, options: Omit<PodLogOptions, 'follow'> = {}): Promise<string> {
    const stream = await this.getLog(name, { ...options, follow: false });
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /**
   * Evicts the pod through the Eviction API, which honours PodDisruptionBudgets (429 Too
   * Many Requests while a budget forbids it). The delete options go into the Eviction.
   */
  async evict(name: string, options: EvictOptions = {}): Promise<void> {
    const namespace = this.namespaceFor('evict');
    const version =
      options.version ?? (await discoverEvictionVersion(this.restClient, options.signal));
    const { dryRun, signal, timeoutMs } = options;
    const eviction: Eviction = {
      apiVersion: `policy/${version}`,
      kind: 'Eviction',
      metadata: { name, namespace },
      deleteOptions: deleteOptionsBody(options),
    };
    await this.post<unknown>(eviction, namespace, name, 'eviction', { dryRun, signal, timeoutMs });
  }

  /** Binds the pod named by `binding.metadata.name` to `binding.target` (what a scheduler does). */
  async bind(binding: Binding, options: CreateOptions = {}): Promise<void> {
    const name = this.nameOf('bind', binding);
    const namespace = this.namespaceFor('bind', binding);
    const body = { ...binding, apiVersion: 'v1', kind: 'Binding' };
    await this.post<unknown>(body, namespace, name, 'binding', options);
  }
}

/** The core/v1 ServiceAccounts client: the typed verbs plus `createToken` (serviceaccounts/token). */
export class ServiceAccountClient extends TypedResourceClient<ServiceAccount, ServiceAccountList> {
  /**
   * Requests a token for the service account (TokenRequest API). The answer's
   * `status.token` holds it. Needs a server with service-account token issuing configured.
   */
  async createToken(
    name: string,
    request: TokenRequest,
    options: CreateOptions = {},
  ): Promise<TokenRequest> {
    const namespace = this.namespaceFor('createToken');
    const body: TokenRequest = {
      ...request,
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
    };
    return this.post<TokenRequest>(body, namespace, name, 'token', options);
  }
}

/** The core/v1 Namespaces client: the typed verbs plus `finalize` (namespaces/finalize). */
export class NamespaceClient extends StatusResourceClient<Namespace, NamespaceList> {
  /**
   * Replaces the namespace's `spec.finalizers` (PUT to `.../finalize`), the way namespace
   * controllers release a terminating namespace.
   */
  async finalize(namespace: Namespace, options: UpdateOptions = {}): Promise<Namespace> {
    return this.put<Namespace>(namespace, 'finalize', options, 'finalize');
  }
}
