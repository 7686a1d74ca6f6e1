import {
  type FieldRequirement,
  type FieldSelector,
  type GroupVersionResource,
  getLabels,
  getNamespace,
  parseFieldSelector,
  type Selector,
  StatusError,
  selectorFromSet,
} from '@kubets/apimachinery';
import { type Indexer, namespaceIndex, waitForCacheSync } from '@kubets/cache';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import type { Unstructured } from '@kubets/dynamic';
import { newNotFoundError, toSelector } from '@kubets/listers';
import {
  type DynamicInformerProvider,
  type InformerProvider,
  type ResolvedResource,
  resolveResource,
  type WatchedResource,
} from './watched-resource.js';

/**
 * The values of one field of an object that {@link InformerCache.indexField} indexes it
 * under (controller-runtime's `client.IndexerFunc`): usually one, several for a list-valued
 * field, none to leave the object out of the index.
 */
export type IndexerFunc<T> = (obj: T) => readonly string[];

/** Which object to read: its name, and its namespace for a namespaced resource. */
export interface ObjectKey {
  /** The namespace; ignored for cluster-scoped resources. */
  namespace?: string | undefined;
  /** The name. */
  name: string;
}

/** Options of {@link InformerCache.get}. */
export interface CacheGetOptions {
  /**
   * Gives up waiting for a newly started informer to sync when it aborts (with a `Timeout`
   * StatusError); pass the reconcile's `ctx.signal`.
   */
  signal?: AbortSignal | undefined;
  /**
   * Return the cached object itself instead of a copy (controller-runtime's
   * `UnsafeDisableDeepCopy`): faster, but changing it changes the cache of every reader.
   */
  unsafeDisableDeepCopy?: boolean | undefined;
}

/** Options of {@link InformerCache.list} (controller-runtime's `client.ListOptions`). */
export interface CacheListOptions extends CacheGetOptions {
  /** Only objects of this namespace (controller-runtime's `InNamespace`); all when omitted or `''`. */
  namespace?: string | undefined;
  /** Only objects with all these labels (controller-runtime's `MatchingLabels`). */
  matchingLabels?: Readonly<Record<string, string>> | undefined;
  /** Only objects whose labels match this selector; with `matchingLabels`, both must match. */
  labelSelector?: Selector | string | undefined;
  /**
   * Only objects whose indexed fields have these values (controller-runtime's
   * `MatchingFields`): every field needs an index registered with
   * {@link InformerCache.indexField}.
   */
  matchingFields?: Readonly<Record<string, string>> | undefined;
  /**
   * A field selector such as `spec.nodeName=node-1`, on indexed fields and with `=` or `==`
   * only; with `matchingFields`, both must hold.
   */
  fieldSelector?: FieldSelector | string | undefined;
  /** At most this many objects; every match when omitted or 0. */
  limit?: number | undefined;
  /**
   * A continue token: always rejected, as the cache does not paginate (controller-runtime's
   * cache rejects it too); present so that options made for a server list fail loudly.
   */
  continue?: string | undefined;
}

/**
 * Thrown when the cache is read before its manager started or after it stopped
 * (controller-runtime's `ErrCacheNotStarted`).
 */
export class CacheNotStartedError extends Error {
  constructor() {
    super('the cache is not started, can not read objects: read it while the manager runs');
    this.name = 'CacheNotStartedError';
  }
}

/** An informer factory that starts the informers it made. */
export interface StartableInformers {
  /** Starts every informer not started yet; they run until `signal` aborts. */
  start(signal: AbortSignal): void;
}

/** Where an {@link InformerCache} gets its informers: a {@link Manager}'s factories. */
export interface InformerCacheSources {
  /** The typed shared informer factory. */
  informers: InformerProvider & StartableInformers;
  /** The dynamic shared informer factory, for resources known by group/version/resource. */
  dynamicInformers?: (DynamicInformerProvider & StartableInformers) | undefined;
}

/** The name of the index of `field` (controller-runtime's `FieldIndexName`). */
export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

// The namespace part of a field index value for "any namespace" (controller-runtime's
// `allNamespacesNamespace`).
const allNamespaces = '__all_namespaces';

/**
 * A field index value scoped to `namespace`, or to every namespace for `''`
 * (controller-runtime's `KeyToNamespacedKey`).
 */
export function keyToNamespacedKey(namespace: string, value: string): string {
  return `${namespace === '' ? allNamespaces : namespace}/${value}`;
}

/**
 * Reads objects from the manager's shared informers (controller-runtime's `cache.Cache` as a
 * `client.Reader`, with its `FieldIndexer`): `get` and `list` answer from memory, `list`
 * filters by namespace, labels and indexed fields. Reading a resource no controller watches
 * creates its informer, starts it (the manager runs) and waits until it synced, as
 * controller-runtime does; reading before the manager started throws
 * {@link CacheNotStartedError}.
 *
 * Objects are copies (`structuredClone`) unless `unsafeDisableDeepCopy` is set.
 */
export class InformerCache {
  readonly #sources: InformerCacheSources;
  #signal: AbortSignal | undefined;

  constructor(sources: InformerCacheSources) {
    this.#sources = sources;
  }

  /**
   * @internal Called by the manager once its informers started: the cache is readable until
   * `signal` aborts, and informers made on first read start with it.
   */
  startWith(signal: AbortSignal): void {
    this.#signal = signal;
  }

  /**
   * Indexes `resource` by `field` (controller-runtime's `FieldIndexer.IndexField`), so that
   * {@link InformerCache.list} can select by it with `matchingFields`. `extract` gives the field's values
   * of an object; each is indexed for the object's namespace and for all namespaces. Call it
   * before the manager starts (it may also be called later: the cached objects are indexed
   * at once).
   *
   * @throws {TypeError} for an empty field or an `extract` that is not a function;
   *   `Error` when the field of that resource already has an index.
   */
  indexField<T extends ObjectWithMeta>(
    resource: ResourceDescriptor<T, unknown>,
    field: string,
    extract: IndexerFunc<T>,
  ): void;
  indexField(
    resource: GroupVersionResource | string,
    field: string,
    extract: IndexerFunc<Unstructured>,
  ): void;
  indexField(resource: WatchedResource, field: string, extract: IndexerFunc<never>): void {
    if (typeof field !== 'string' || field === '') {
      throw new TypeError(`indexField needs a field name, got ${JSON.stringify(field)}`);
    }
    if (typeof extract !== 'function') {
      throw new TypeError(`indexField(${String(field)}) needs a function extracting its values`);
    }
    const extractValues = extract as IndexerFunc<ObjectWithMeta>;
    const resolved = this.#resolve(resource, 'indexField');
    resolved
      .informer()
      .informer()
      .addIndexers({
        [fieldIndexName(field)]: (obj: ObjectWithMeta) => {
          const namespace = getNamespace(obj);
          const values = extractValues(obj);
          const keys = values.map((value) => keyToNamespacedKey(namespace, value));
          // A namespaced object is found by a list in its namespace and by one across all.
          if (namespace !== '') {
            for (const value of values) keys.push(keyToNamespacedKey('', value));
          }
          return keys;
        },
      });
  }

  /**
   * The object `key` names, from the cache (controller-runtime's `Reader.Get`).
   *
   * @throws {StatusError} NotFound (`isNotFound(err)`) when the cache has none; Timeout
   *   (`isTimeout(err)`) when `signal` aborted before a new informer synced.
   * @throws {CacheNotStartedError} when the manager is not running.
   */
  get<T extends ObjectWithMeta>(
    resource: ResourceDescriptor<T, unknown>,
    key: ObjectKey,
    options?: CacheGetOptions,
  ): Promise<T>;
  get(
    resource: GroupVersionResource | string,
    key: ObjectKey,
    options?: CacheGetOptions,
  ): Promise<Unstructured>;
  async get(
    resource: WatchedResource,
    key: ObjectKey,
    options: CacheGetOptions = {},
  ): Promise<ObjectWithMeta> {
    if (typeof key?.name !== 'string' || key.name === '') {
      throw new TypeError(`cache get needs a key with a name, got ${JSON.stringify(key)}`);
    }
    const resolved = this.#resolve(resource, 'get');
    const indexer = await this.#syncedIndexer(resolved, options.signal);
    const namespace = resolved.descriptor?.namespaced === false ? '' : (key.namespace ?? '');
    // Keys are `namespace/name` or, for cluster-scoped objects, the bare name. Without a
    // descriptor the scope is unknown, and a bare-name key can only be a cluster-scoped one.
    const obj =
      (namespace === '' ? undefined : indexer.getByKey(`${namespace}/${key.name}`)) ??
      (namespace === '' || resolved.descriptor === undefined
        ? indexer.getByKey(key.name)
        : undefined);
    if (obj === undefined) throw newNotFoundError(resolved, key.name);
    return options.unsafeDisableDeepCopy ? obj : structuredClone(obj);
  }

  /**
   * The cached objects of `resource` that match `options` (controller-runtime's
   * `Reader.List`), in no particular order.
   *
   * @throws {Error} for a field without an index ("index with name field:X does not
   *   exist"), a field selector that is not exact, or a continue token.
   * @throws {StatusError} Timeout when `signal` aborted before a new informer synced.
   * @throws {CacheNotStartedError} when the manager is not running.
   */
  list<T extends ObjectWithMeta>(
    resource: ResourceDescriptor<T, unknown>,
    options?: CacheListOptions,
  ): Promise<T[]>;
  list(
    resource: GroupVersionResource | string,
    options?: CacheListOptions,
  ): Promise<Unstructured[]>;
  async list(resource: WatchedResource, options: CacheListOptions = {}): Promise<ObjectWithMeta[]> {
    if (options.continue) {
      throw new Error('continue list option is not supported by the cache');
    }
    const limit = options.limit ?? 0;
    if (!(Number.isInteger(limit) && limit >= 0)) {
      throw new RangeError(`cache list limit must be a whole number ≥ 0, got ${limit}`);
    }
    const fields = fieldRequirements(options);
    const labels = [selectorFromSet(options.matchingLabels), toSelector(options.labelSelector)];
    const resolved = this.#resolve(resource, 'list');
    const indexer = await this.#syncedIndexer(resolved, options.signal);
    const namespace = options.namespace ?? '';
    let candidates: ObjectWithMeta[];
    if (fields.length > 0) candidates = byIndexes(indexer, fields, namespace, resolved.resource);
    else if (namespace !== '') candidates = indexer.byIndex(namespaceIndex, namespace);
    else candidates = indexer.list();
    const out: ObjectWithMeta[] = [];
    for (const obj of candidates) {
      if (limit > 0 && out.length >= limit) break;
      if (!labels.every((s) => s.matches(getLabels(obj)))) continue;
      out.push(options.unsafeDisableDeepCopy ? obj : structuredClone(obj));
    }
    return out;
  }

  #resolve(resource: WatchedResource, what: string): ResolvedResource {
    return resolveResource(resource, `cache.${what}`, this.#sources);
  }

  // The informer's cache once it synced, starting the informer when it is new
  // (controller-runtime's `Informers.Get` with `BlockUntilSynced`).
  async #syncedIndexer(
    resolved: ResolvedResource,
    signal: AbortSignal | undefined,
  ): Promise<Indexer<ObjectWithMeta>> {
    const running = this.#signal;
    if (running === undefined || running.aborted) throw new CacheNotStartedError();
    const informer = resolved.informer().informer();
    if (!informer.hasSynced()) {
      // Starting a factory starts only the informers it has not started yet.
      if (resolved.descriptor) this.#sources.informers.start(running);
      else this.#sources.dynamicInformers?.start(running);
      const wait = signal ? AbortSignal.any([signal, running]) : running;
      if (!(await waitForCacheSync(wait, () => informer.hasSynced()))) {
        throw newTimeoutError(`failed waiting for the informer of ${resolved.resource} to sync`);
      }
    }
    return informer.getIndexer();
  }
}

function newTimeoutError(message: string): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 504,
    reason: 'Timeout',
    message: `Timeout: ${message}`,
  });
}

function fieldRequirements(options: CacheListOptions): FieldRequirement[] {
  const requirements: FieldRequirement[] = Object.entries(options.matchingFields ?? {}).map(
    ([field, value]) => ({ field, operator: '=', value }),
  );
  const selector =
    typeof options.fieldSelector === 'string'
      ? parseFieldSelector(options.fieldSelector)
      : options.fieldSelector;
  for (const requirement of selector?.requirements() ?? []) {
    if (requirement.operator === '!=') {
      throw new Error(
        `non-exact field matches are not supported by the cache: ${requirement.field}!=${requirement.value}`,
      );
    }
    requirements.push(requirement);
  }
  return requirements;
}

// The objects whose indexes hold every requirement's value: the first requirement's index
// gives the candidates, the others' index functions filter them (controller-runtime's
// `byIndexes`).
function byIndexes(
  indexer: Indexer<ObjectWithMeta>,
  requirements: readonly FieldRequirement[],
  namespace: string,
  resource: string,
): ObjectWithMeta[] {
  const indexers = indexer.getIndexers();
  const lookups = requirements.map(({ field, value }) => {
    const name = fieldIndexName(field);
    const indexFunc = indexers[name];
    if (indexFunc === undefined) {
      throw new Error(
        `index with name ${name} does not exist: register an index of ${resource} by ${JSON.stringify(field)} with cache.indexField before listing by it`,
      );
    }
    return { name, indexFunc, value: keyToNamespacedKey(namespace, value) };
  });
  const [first, ...rest] = lookups;
  if (first === undefined) return [];
  return indexer
    .byIndex(first.name, first.value)
    .filter((obj) => rest.every(({ indexFunc, value }) => indexFunc(obj).includes(value)));
}
