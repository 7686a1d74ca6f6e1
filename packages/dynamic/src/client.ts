import {
  type ApplyOptions,
  type CallOptions,
  type CreateOptions,
  type DeleteOptions,
  deleteOptionsBody,
  type GetOptions,
  type GroupVersion,
  type GroupVersionResource,
  getParams,
  groupVersionToString,
  type KubeObject,
  type ListOptions,
  listParams,
  type ObjectMeta,
  type PatchOptions,
  setListItemTypeMeta,
  type UpdateOptions,
  type WatchOptions,
  watchParams,
  writeParams,
} from '@kubets/apimachinery';
import {
  type Config,
  copyConfig,
  PatchType,
  type RESTClient,
  type Request,
  type RequestBody,
  type RequestRateLimiter,
  rateLimiterFor,
  restClientFor,
  type WatchStream,
} from '@kubets/rest';
import { resolveGVR } from './gvr.js';
import type { Unstructured, UnstructuredList } from './unstructured.js';

/**
 * An object to write: {@link Unstructured} whose `apiVersion` and `kind` may be left out (the
 * client fills them in from the GVR and the kind given to {@link DynamicClient.resource}).
 */
export interface UnstructuredInput extends KubeObject {
  /** Standard object metadata. */
  metadata: ObjectMeta;
}

/** The verbs on one resource, in a namespace or cluster-wide (client-go's `dynamic.ResourceInterface`). */
export interface ResourceInterface {
  /** The resource this interface addresses. */
  readonly resource: GroupVersionResource;
  /** The namespace, or `''` for cluster-scoped resources / all namespaces. */
  readonly namespaceName: string;
  /** Reads one object, or a subresource of it (`get('web', {}, 'scale')`). */
  get(name: string, options?: GetOptions, ...subresources: string[]): Promise<Unstructured>;
  /** Lists objects; every item gets the list's apiVersion and the kind without `List`. */
  list(options?: ListOptions): Promise<UnstructuredList>;
  /** Starts a watch; iterate it with `for await`. */
  watch(options?: WatchOptions): Promise<WatchStream<Unstructured>>;
  /** Creates an object (or posts to a subresource of the object named in `obj`). */
  create(
    obj: UnstructuredInput,
    options?: CreateOptions,
    ...subresources: string[]
  ): Promise<Unstructured>;
  /** Replaces an object (named by `obj.metadata.name`), or a subresource of it. */
  update(
    obj: UnstructuredInput,
    options?: UpdateOptions,
    ...subresources: string[]
  ): Promise<Unstructured>;
  /** Replaces the `status` subresource. */
  updateStatus(obj: UnstructuredInput, options?: UpdateOptions): Promise<Unstructured>;
  /**
   * Patches an object: `body` is an object (sent as JSON), or text/bytes sent as they are.
   * For `PatchType.ApplyPatch` set `fieldManager` (and `force` to take over conflicts).
   */
  patch(
    name: string,
    patchType: PatchType,
    body: RequestBody,
    options?: PatchOptions,
    ...subresources: string[]
  ): Promise<Unstructured>;
  /** Server-side apply of `obj` (an apply patch). */
  apply(
    name: string,
    obj: UnstructuredInput,
    options: ApplyOptions,
    ...subresources: string[]
  ): Promise<Unstructured>;
  /** Server-side apply to the `status` subresource. */
  applyStatus(name: string, obj: UnstructuredInput, options: ApplyOptions): Promise<Unstructured>;
  /** Deletes an object; the options go in the request body. */
  delete(name: string, options?: DeleteOptions, ...subresources: string[]): Promise<void>;
  /** Deletes every object the list options select. */
  deleteCollection(deleteOptions?: DeleteOptions, listOptions?: ListOptions): Promise<void>;
}

/** A {@link ResourceInterface} that can be narrowed to a namespace. */
export interface NamespaceableResourceInterface extends ResourceInterface {
  /** The same resource in namespace `namespace` (`''`: cluster-wide / all namespaces). */
  namespace(namespace: string): ResourceInterface;
}

// Every group accepts an untyped delete body as meta/v1 DeleteOptions; the dynamic client
// names its type, as client-go's does.
function deleteBody(options: DeleteOptions | undefined): object {
  return { kind: 'DeleteOptions', apiVersion: 'v1', ...deleteOptionsBody(options ?? {}) };
}

function nameOf(obj: UnstructuredInput): string {
  return obj?.metadata?.name ?? '';
}

/** Options of {@link DynamicClient.resource}. */
export interface ResourceOptions {
  /**
   * The resource's kind (`Widget`): written objects that omit `kind` get it, as client-go's
   * scheme fills in typed objects. Custom resources without `kind` are refused by the server.
   */
  kind?: string | undefined;
}

class DynamicResourceClient implements NamespaceableResourceInterface {
  readonly resource: GroupVersionResource;
  readonly namespaceName: string;
  readonly #client: RESTClient;
  readonly #kind: string | undefined;

  constructor(
    client: RESTClient,
    resource: GroupVersionResource,
    namespace: string,
    kind: string | undefined,
  ) {
    this.#client = client;
    this.resource = resource;
    this.namespaceName = namespace;
    this.#kind = kind;
  }

  namespace(namespace: string): ResourceInterface {
    return new DynamicResourceClient(this.#client, this.resource, namespace, this.#kind);
  }

  // The object with `apiVersion` (from the GVR) and `kind` (when known) filled in where
  // missing; bodies for other subresources than status (eviction, scale) are left alone.
  #withTypeMeta(obj: UnstructuredInput, subresources: readonly string[]): RequestBody {
    if (subresources.some((s) => s !== 'status')) return obj;
    if (obj.apiVersion && (obj.kind || !this.#kind)) return obj;
    const { group, version } = this.resource;
    return {
      ...obj,
      apiVersion: obj.apiVersion || groupVersionToString({ group, version }),
      ...(obj.kind || !this.#kind ? {} : { kind: this.#kind }),
    };
  }

  // `/api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>...]]`; the Request
  // validates every segment.
  #request(
    verb: Request,
    name: string | undefined,
    subresources: readonly string[],
    options: CallOptions | undefined,
  ): Request {
    if (this.namespaceName !== '') verb.namespace(this.namespaceName);
    verb.resource(this.resource.resource);
    if (name !== undefined) verb.name(name);
    if (subresources.length > 0) verb.subresource(...subresources);
    if (options?.signal) verb.signal(options.signal);
    if (options?.timeoutMs !== undefined && options.timeoutMs > 0) verb.timeout(options.timeoutMs);
    return verb;
  }

  // A create, update or patch: the call's options as query parameters, `body` as the body,
  // the written object as the answer.
  #write(
    verb: Request,
    name: string | undefined,
    subresources: readonly string[],
    options: PatchOptions | ApplyOptions | undefined,
    body: RequestBody,
  ): Promise<Unstructured> {
    return this.#request(verb, name, subresources, options)
      .params(writeParams(options ?? {}))
      .body(body)
      .do<Unstructured>();
  }

  async get(name: string, options?: GetOptions, ...subresources: string[]): Promise<Unstructured> {
    return this.#request(this.#client.get(), name, subresources, options)
      .params(getParams(options ?? {}))
      .do<Unstructured>();
  }

  async list(options?: ListOptions): Promise<UnstructuredList> {
    const list = await this.#request(this.#client.get(), undefined, [], options)
      .params(listParams(options ?? {}))
      .do<UnstructuredList>();
    const items = list.items ?? [];
    // Typed lists leave item type meta out; fill it in from the list, as client-go does.
    setListItemTypeMeta({ ...list, items });
    return { ...list, metadata: list.metadata ?? {}, items };
  }

  watch(options?: WatchOptions): Promise<WatchStream<Unstructured>> {
    return this.#request(this.#client.get(), undefined, [], options)
      .params(watchParams(options ?? {}))
      .param('watch', true)
      .watch<Unstructured>();
  }

  async create(
    obj: UnstructuredInput,
    options?: CreateOptions,
    ...subresources: string[]
  ): Promise<Unstructured> {
    // Posting to a subresource needs the object's name; a plain create may use generateName.
    const name = subresources.length > 0 ? nameOf(obj) : undefined;
    return this.#write(
      this.#client.post(),
      name,
      subresources,
      options,
      this.#withTypeMeta(obj, subresources),
    );
  }

  async update(
    obj: UnstructuredInput,
    options?: UpdateOptions,
    ...subresources: string[]
  ): Promise<Unstructured> {
    return this.#write(
      this.#client.put(),
      nameOf(obj),
      subresources,
      options,
      this.#withTypeMeta(obj, subresources),
    );
  }

  updateStatus(obj: UnstructuredInput, options?: UpdateOptions): Promise<Unstructured> {
    return this.update(obj, options, 'status');
  }

  async patch(
    name: string,
    patchType: PatchType,
    body: RequestBody,
    options?: PatchOptions,
    ...subresources: string[]
  ): Promise<Unstructured> {
    return this.#write(this.#client.patch(patchType), name, subresources, options, body);
  }

  apply(
    name: string,
    obj: UnstructuredInput,
    options: ApplyOptions,
    ...subresources: string[]
  ): Promise<Unstructured> {
    if (!options?.fieldManager) {
      return Promise.reject(
        new TypeError('apply needs options.fieldManager (who owns the applied fields)'),
      );
    }
    const body = this.#withTypeMeta(obj, subresources);
    return this.patch(name, PatchType.ApplyPatch, body, options, ...subresources);
  }

  applyStatus(name: string, obj: UnstructuredInput, options: ApplyOptions): Promise<Unstructured> {
    return this.apply(name, obj, options, 'status');
  }

  async delete(name: string, options?: DeleteOptions, ...subresources: string[]): Promise<void> {
    await this.#request(this.#client.delete(), name, subresources, options)
      .body(deleteBody(options))
      .do();
  }

  async deleteCollection(deleteOptions?: DeleteOptions, listOptions?: ListOptions): Promise<void> {
    await this.#request(this.#client.delete(), undefined, [], {
      signal: deleteOptions?.signal ?? listOptions?.signal,
      timeoutMs: deleteOptions?.timeoutMs ?? listOptions?.timeoutMs,
    })
      .params(listParams(listOptions ?? {}))
      .body(deleteBody(deleteOptions))
      .do();
  }
}

/**
 * A client for any resource, addressed by group/version/resource, reading and writing
 * {@link Unstructured} objects (client-go's `dynamic.DynamicClient`):
 *
 * ```ts
 * const dynamic = new DynamicClient(loadConfig());
 * const pods = await dynamic.resource({ group: '', version: 'v1', resource: 'pods' })
 *   .namespace('default').list({ limit: 500 });
 * ```
 *
 * URLs come from the GVR: `/api/v1/...` for the core group, `/apis/<group>/<version>/...`
 * otherwise; without a namespace the resource is addressed cluster-wide. One `RESTClient`
 * per group-version is made on first use; all of them share one rate limiter.
 */
export class DynamicClient {
  /** The connection settings every request of this client uses. */
  readonly config: Config;
  /** The limiter every request of this client waits on; `undefined` when throttling is off. */
  readonly rateLimiter: RequestRateLimiter | undefined;
  readonly #clients = new Map<string, RESTClient>();

  constructor(config: Config) {
    // A copy that prints redacted, even when the caller spread or hand-wrote `config`.
    this.config = copyConfig(config);
    this.rateLimiter = rateLimiterFor(config);
    // Validate the host now rather than on the first request.
    this.restClient({ group: '', version: 'v1' });
  }

  /** The (shared, cached) REST client for one group-version. */
  restClient(groupVersion: GroupVersion): RESTClient {
    const key = groupVersionToString(groupVersion);
    let client = this.#clients.get(key);
    if (!client) {
      client = restClientFor(
        this.config,
        { group: groupVersion.group, version: groupVersion.version },
        this.rateLimiter ? { rateLimiter: this.rateLimiter } : {},
      );
      this.#clients.set(key, client);
    }
    return client;
  }

  /**
   * The verbs for one resource. `gvr` is an object or a string: `deployments.v1.apps`,
   * `pods.v1.` (core), `apps/v1/deployments` or `v1/pods`. Objects written through it
   * (create, update, apply) get the GVR's `apiVersion` when they omit it, and
   * `options.kind` when they omit `kind`.
   */
  resource(
    gvr: GroupVersionResource | string,
    options: ResourceOptions = {},
  ): NamespaceableResourceInterface {
    const resolved = resolveGVR(gvr);
    return new DynamicResourceClient(this.restClient(resolved), resolved, '', options.kind);
  }
}

/** Same as `new DynamicClient(config)` (client-go's `dynamic.NewForConfig`). */
export function dynamicClientFor(config: Config): DynamicClient {
  return new DynamicClient(config);
}
