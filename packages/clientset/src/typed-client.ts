import type { ObjectList, Status } from '@kubets/apimachinery';
import {
  type ApplyOptions,
  type CallOptions,
  type CreateOptions,
  type DeleteOptions,
  deleteOptionsBody,
  type GetOptions,
  getParams,
  type ListOptions,
  listParams,
  type PatchOptions,
  type UpdateOptions,
  type WatchOptions,
  watchParams,
  writeParams,
} from '@kubets/apimachinery';
import {
  InvalidRequestError,
  PatchType,
  type RESTClient,
  type Request,
  type RequestBody,
  type WatchStream,
} from '@kubets/rest';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import {
  descriptorAPIVersion,
  hasSubresource,
  type ObjectWithMeta,
  type ResourceDescriptor,
} from './descriptor.js';

/** What a delete answers: the object (still terminating, e.g. finalizers or grace period) or a Status. */
export type DeleteResult<T> = T | Status;

/**
 * An apply configuration: the object with every field optional, at every depth, as
 * client-go's `*ApplyConfiguration` types. Send only the fields you manage (plus
 * `metadata.name`).
 */
export type ApplyConfiguration<T> = T extends readonly (infer U)[]
  ? ApplyConfiguration<U>[]
  : T extends object
    ? { -readonly [K in keyof T]?: ApplyConfiguration<T[K]> }
    : T;

/**
 * The arguments of the patch calls (`patch`, `patchStatus`, `patchScale`): the object's
 * name, the patch type, the patch body and the options.
 */
export type PatchArguments = [
  name: string,
  patchType: PatchType,
  body: RequestBody,
  options?: PatchOptions,
];

/** True when a delete (or other call) answered with a `Status` rather than an object. */
export function isStatus(value: unknown): value is Status {
  return (
    typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status'
  );
}

/**
 * The plumbing shared by every typed client: which REST client, which resource, which
 * namespace, and how a request is started.
 */
abstract class ResourceClientBase<T> {
  /** The REST client for the resource's group/version. */
  readonly restClient: RESTClient;
  /** The resource this client addresses. */
  readonly descriptor: ResourceDescriptor<T, unknown>;
  /** The namespace given to the client; `undefined` for cluster-scoped resources or "all namespaces". */
  readonly namespace: string | undefined;

  constructor(
    restClient: RESTClient,
    descriptor: ResourceDescriptor<T, unknown>,
    namespace?: string,
  ) {
    if (!descriptor.namespaced && namespace) {
      throw new InvalidRequestError(
        'namespace',
        namespace,
        `${descriptor.resource} is cluster-scoped: a client for it takes no namespace (got "${namespace}")`,
      );
    }
    this.restClient = restClient;
    this.descriptor = descriptor;
    this.namespace = namespace || undefined;
  }

  /** The namespace a call on one object goes to: the client's, else the object's own. */
  protected namespaceFor(verb: string, obj?: ObjectWithMeta): string | undefined {
    if (!this.descriptor.namespaced) return undefined;
    const namespace = this.namespace ?? (obj?.metadata?.namespace || undefined);
    if (namespace === undefined) {
      throw new InvalidRequestError(
        'namespace',
        '',
        `${this.descriptor.resource} is namespaced: ${verb} needs a namespace; pass one when creating the client (e.g. pods('default'))`,
      );
    }
    return namespace;
  }

  /** Starts a request for the resource in `namespace` (undefined: none / all). */
  protected start(request: Request, namespace: string | undefined, options: CallOptions): Request {
    if (namespace !== undefined) request.namespace(namespace);
    request.resource(this.descriptor.resource);
    if (options.signal) request.signal(options.signal);
    if (options.timeoutMs !== undefined && options.timeoutMs > 0)
      request.timeout(options.timeoutMs);
    return request;
  }

  /** The `metadata.name` of an object being written; throws when it has none. */
  protected nameOf(verb: string, obj: ObjectWithMeta): string {
    const name = obj.metadata?.name;
    if (!name) {
      throw new InvalidRequestError(
        'name',
        '',
        `${verb} needs the object's metadata.name (${this.descriptor.kind})`,
      );
    }
    return name;
  }

  /** The object with `apiVersion` and `kind` filled in from the descriptor when missing. */
  protected withTypeMeta<O extends ObjectWithMeta>(obj: O): O {
    if (obj.apiVersion && obj.kind) return obj;
    return {
      ...obj,
      apiVersion: obj.apiVersion || descriptorAPIVersion(this.descriptor),
      kind: obj.kind || this.descriptor.kind,
    };
  }

  /**
   * Throws before any request is sent when the descriptor does not list `subresource`, naming
   * `verb` in the error.
   */
  protected requireSubresource(subresource: string, verb: string): void {
    if (!hasSubresource(this.descriptor, subresource)) {
      throw new InvalidRequestError(
        'subresource',
        subresource,
        `${this.descriptor.resource} has no ${subresource} subresource, so ${verb} is not available (add '${subresource}' to the descriptor's subresources if the server serves it)`,
      );
    }
  }

  /** GET one object or one of its subresources. */
  protected async getNamed<R>(
    name: string,
    subresource: string | undefined,
    options: GetOptions,
  ): Promise<R> {
    const request = this.start(this.restClient.get(), this.namespaceFor('get'), options).name(name);
    if (subresource) request.subresource(subresource);
    return request.params(getParams(options)).do<R>();
  }

  /** PUT an object (or its subresource). */
  protected async put<R>(
    obj: ObjectWithMeta,
    subresource: string | undefined,
    options: UpdateOptions,
    verb: string,
  ): Promise<R> {
    const name = this.nameOf(verb, obj);
    const request = this.start(this.restClient.put(), this.namespaceFor(verb, obj), options).name(
      name,
    );
    if (subresource) request.subresource(subresource);
    return request
      .params(writeParams(options))
      .body(this.withTypeMeta(obj) as RequestBody)
      .do<R>();
  }

  /** PATCH an object (or its subresource). */
  protected async patchNamed<R>(
    name: string,
    patchType: PatchType,
    body: RequestBody,
    subresource: string | undefined,
    options: PatchOptions,
    namespace: string | undefined = this.namespaceFor('patch'),
  ): Promise<R> {
    if (patchType === PatchType.ApplyPatch && !options.fieldManager) {
      throw new InvalidRequestError(
        'param',
        'fieldManager',
        'an apply patch needs a fieldManager (PatchOptions.fieldManager)',
      );
    }
    const request = this.start(this.restClient.patch(patchType), namespace, options).name(name);
    if (subresource) request.subresource(subresource);
    const { force, ...rest } = options;
    // force is only meaningful (and only accepted) for apply patches.
    const params = writeParams(patchType === PatchType.ApplyPatch ? options : rest);
    if (patchType !== PatchType.ApplyPatch && force !== undefined) {
      throw new InvalidRequestError('param', 'force', 'force may only be set for apply patches');
    }
    return request.params(params).body(body).do<R>();
  }

  /** PATCH a subresource the descriptor must list, `verb` naming the call in errors. */
  protected async patchSubresource<R>(
    subresource: 'status' | 'scale',
    verb: string,
    [name, patchType, body, options = {}]: PatchArguments,
  ): Promise<R> {
    this.requireSubresource(subresource, verb);
    return this.patchNamed<R>(name, patchType, body, subresource, options);
  }

  /** Server-side apply of an object (or its status). */
  protected async applyNamed<R>(
    obj: ApplyConfiguration<ObjectWithMeta>,
    subresource: string | undefined,
    options: ApplyOptions,
    verb: string,
  ): Promise<R> {
    const name = this.nameOf(verb, obj);
    const namespace = this.namespaceFor(verb, obj);
    const body = this.withTypeMeta(obj);
    return this.patchNamed<R>(
      name,
      PatchType.ApplyPatch,
      // JSON is YAML, and the server parses apply bodies as YAML.
      JSON.stringify(body),
      subresource,
      {
        fieldManager: options.fieldManager,
        force: options.force,
        dryRun: options.dryRun,
        fieldValidation: options.fieldValidation,
        signal: options.signal,
        timeoutMs: options.timeoutMs,
      },
      namespace,
    );
  }

  /** POST `obj` as a new object, with its type meta filled in, in its namespace. */
  protected async createObject<R>(obj: ObjectWithMeta, options: CreateOptions): Promise<R> {
    const body = this.withTypeMeta(obj) as RequestBody;
    return this.post<R>(body, this.namespaceFor('create', obj), undefined, undefined, options);
  }

  /** POST a new object (or a subresource such as eviction or token). */
  protected async post<R>(
    body: RequestBody,
    namespace: string | undefined,
    name: string | undefined,
    subresource: string | undefined,
    options: CreateOptions,
  ): Promise<R> {
    const request = this.start(this.restClient.post(), namespace, options);
    if (name !== undefined) request.name(name);
    if (subresource) request.subresource(subresource);
    return request.params(writeParams(options)).body(body).do<R>();
  }
}

/**
 * A client for the objects of one resource that are only ever created (reviews:
 * `TokenReview`, `SubjectAccessReview`, ...; core `bindings`): the server answers with
 * the evaluated object and stores nothing.
 */
export class CreateOnlyResourceClient<T extends ObjectWithMeta> extends ResourceClientBase<T> {
  /** Sends the object and resolves with the server's answer (its `status` filled in). */
  async create(obj: T, options: CreateOptions = {}): Promise<T> {
    return this.createObject<T>(obj, options);
  }
}

/**
 * A typed client for one resource, optionally bound to a namespace: client-go's
 * `PodInterface`, `DeploymentInterface`, ... for any resource descriptor, so a custom
 * resource needs no code generation:
 *
 * ```ts
 * const pods = clientset.coreV1().pods('default');
 * const list = await pods.list({ labelSelector: 'app=web' });
 * ```
 *
 * For a namespaced resource without a namespace, `list` and `watch` cover all namespaces;
 * calls on one object use the object's `metadata.namespace` when it has one and fail with
 * an `InvalidRequestError` otherwise. Server errors reject with a `StatusError`.
 */
export class TypedResourceClient<
  T extends ObjectWithMeta,
  L extends { items?: T[] } = ObjectList<T>,
> extends ResourceClientBase<T> {
  constructor(restClient: RESTClient, descriptor: ResourceDescriptor<T, L>, namespace?: string) {
    super(restClient, descriptor, namespace);
  }

  /** Reads one object by name. */
  async get(name: string, options: GetOptions = {}): Promise<T> {
    return this.getNamed<T>(name, undefined, options);
  }

  /**
   * Lists objects; for a namespaced resource without a namespace, across all namespaces.
   * Items come as the server sends them (list items usually lack `apiVersion`/`kind`).
   * Page with `limit` and `continue`.
   */
  async list(options: ListOptions = {}): Promise<L> {
    const request = this.start(this.restClient.get(), this.namespace, options);
    return request.params(listParams(options)).do<L>();
  }

  /**
   * Starts a watch and resolves once the server accepted it. Iterate the stream with
   * `for await`; leaving the loop, `stop()` or aborting `signal` closes the connection.
   * Watch from a list's `metadata.resourceVersion` to see only later changes.
   */
  async watch(options: WatchOptions = {}): Promise<WatchStream<T>> {
    const request = this.start(this.restClient.get(), this.namespace, options);
    return request.params(watchParams(options)).watch<T>();
  }

  /**
   * Creates the object and resolves with what the server stored. `apiVersion` and `kind` are
   * filled in from the descriptor when missing, as client-go's scheme does.
   */
  async create(obj: T, options: CreateOptions = {}): Promise<T> {
    return this.createObject<T>(obj, options);
  }

  /**
   * Replaces the object (named by `metadata.name`). Include `metadata.resourceVersion` to
   * fail with 409 Conflict when someone else changed it meanwhile. Changes to `status` are
   * ignored by resources with a status subresource: use `updateStatus`. `apiVersion` and
   * `kind` are filled in from the descriptor when missing.
   */
  async update(obj: T, options: UpdateOptions = {}): Promise<T> {
    return this.put<T>(obj, undefined, options, 'update');
  }

  /**
   * Patches the object. `body` is an object or array (sent as JSON) or a string; its
   * meaning depends on `patchType` (`PatchType.JSONPatch`, `MergePatch`,
   * `StrategicMergePatch` for built-in types, `ApplyPatch` with `fieldManager`).
   */
  async patch(
    name: string,
    patchType: PatchType,
    body: RequestBody,
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patchNamed<T>(name, patchType, body, undefined, options);
  }

  /**
   * Server-side apply: sends `obj` (the fields you manage, with `metadata.name`) as an
   * apply patch owned by `fieldManager`. `apiVersion` and `kind` are filled in when
   * missing. A field another manager owns makes it fail with 409 Conflict unless `force`.
   */
  async apply(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.applyNamed<T>(obj, undefined, options, 'apply');
  }

  /**
   * Deletes the object. Resolves with the server's answer: the object when deletion is
   * still in progress (finalizers, grace period, foreground propagation), else a Status.
   */
  async delete(name: string, options: DeleteOptions = {}): Promise<DeleteResult<T>> {
    const request = this.start(this.restClient.delete(), this.namespaceFor('delete'), options);
    const body = deleteOptionsBody(options);
    return request
      .name(name)
      .params({ dryRun: options.dryRun ? 'All' : undefined })
      .body(body)
      .do<DeleteResult<T>>();
  }

  /**
   * Deletes every object the list options select (in the client's namespace for a
   * namespaced resource). `deleteOptions` goes in the body, `listOptions` in the query.
   */
  async deleteCollection(
    deleteOptions: DeleteOptions = {},
    listOptions: ListOptions = {},
  ): Promise<L | Status> {
    const signal = deleteOptions.signal ?? listOptions.signal;
    const options: CallOptions = {
      signal,
      timeoutMs: deleteOptions.timeoutMs ?? listOptions.timeoutMs,
    };
    const request = this.start(
      this.restClient.delete(),
      this.namespaceFor('deleteCollection'),
      options,
    );
    return request
      .params(listParams(listOptions))
      .params({ dryRun: deleteOptions.dryRun ? 'All' : undefined })
      .body(deleteOptionsBody(deleteOptions))
      .do<L | Status>();
  }
}

/**
 * A typed client for a resource with a `status` subresource: adds `getStatus`,
 * `updateStatus`, `patchStatus` and `applyStatus`, which reject with an
 * `InvalidRequestError` when the descriptor does not list `status`.
 */
export class StatusResourceClient<
  T extends ObjectWithMeta,
  L extends { items?: T[] } = ObjectList<T>,
> extends TypedResourceClient<T, L> {
  /** Reads the object through its status subresource. */
  async getStatus(name: string, options: GetOptions = {}): Promise<T> {
    this.requireSubresource('status', 'getStatus');
    return this.getNamed<T>(name, 'status', options);
  }

  /**
   * Replaces the object's status (PUT to `.../status`); changes outside `status` are
   * ignored. Include `metadata.resourceVersion` for optimistic concurrency.
   */
  async updateStatus(obj: T, options: UpdateOptions = {}): Promise<T> {
    this.requireSubresource('status', 'updateStatus');
    return this.put<T>(obj, 'status', options, 'updateStatus');
  }

  /** Patches the status subresource (the arguments of {@link TypedResourceClient.patch}). */
  async patchStatus(...args: PatchArguments): Promise<T> {
    return this.patchSubresource<T>('status', 'patchStatus', args);
  }

  /** Server-side apply to the status subresource. */
  async applyStatus(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    this.requireSubresource('status', 'applyStatus');
    return this.applyNamed<T>(obj, 'status', options, 'applyStatus');
  }
}

/**
 * A typed client for a resource with `status` and `scale` subresources (Deployments,
 * ReplicaSets, StatefulSets, ReplicationControllers, scalable custom resources): adds
 * `getScale`, `updateScale` and `patchScale` working on autoscaling/v1 `Scale`.
 */
export class ScalableResourceClient<
  T extends ObjectWithMeta,
  L extends { items?: T[] } = ObjectList<T>,
> extends StatusResourceClient<T, L> {
  /** Patches the Scale, e.g. `patchScale(name, PatchType.MergePatch, { spec: { replicas: 3 } })`. */
  async patchScale(...args: PatchArguments): Promise<Scale> {
    return this.patchSubresource<Scale>('scale', 'patchScale', args);
  }

  /** Reads the object's autoscaling/v1 Scale (`spec.replicas`, `status.replicas`, `status.selector`). */
  async getScale(name: string, options: GetOptions = {}): Promise<Scale> {
    this.requireSubresource('scale', 'getScale');
    return this.getNamed<Scale>(name, 'scale', options);
  }

  /**
   * Writes the Scale (usually the one from `getScale` with `spec.replicas` changed);
   * `metadata.name` must name the object.
   */
  async updateScale(name: string, scale: Scale, options: UpdateOptions = {}): Promise<Scale> {
    this.requireSubresource('scale', 'updateScale');
    const body: Scale = {
      ...scale,
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { ...scale.metadata, name },
    };
    return this.put<Scale>(body, 'scale', options, 'updateScale');
  }
}
