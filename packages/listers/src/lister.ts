import {
  everything,
  type GroupResource,
  getLabels,
  getNamespace,
  groupResourceToString,
  type HasObjectMeta,
  parseSelector,
  type Selector,
  StatusError,
} from '@kubets/apimachinery';
import { type Indexer, namespaceIndex, type Store } from '@kubets/cache';

/**
 * A label selector as listers take it: a parsed
 * {@link @kubets/apimachinery!Selector | Selector}, its string form (`app=web,tier!=db`,
 * parsed with `parseSelector`), or `undefined` for everything.
 */
export type SelectorInput = Selector | string | undefined;

/**
 * The {@link @kubets/apimachinery!Selector | Selector} for `selector`: parsed when it is a
 * string, `everything()` when it is `undefined` or `''`.
 *
 * @throws {SelectorParseError} (from `@kubets/apimachinery`) for an invalid string.
 */
export function toSelector(selector: SelectorInput): Selector {
  if (selector === undefined || selector === '') return everything();
  return typeof selector === 'string' ? parseSelector(selector) : selector;
}

/**
 * The `NotFound` error a lister throws (client-go `errors.NewNotFound(groupResource, name)`):
 * code 404, reason `NotFound`, message `<resource>.<group> "<name>" not found` (just
 * `<resource>` for the core group), details `{ name, group, kind: resource }`. Recognise it
 * with `isNotFound` from `@kubets/apimachinery`.
 */
export function newNotFoundError(groupResource: GroupResource, name: string): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 404,
    reason: 'NotFound',
    details: { name, group: groupResource.group, kind: groupResource.resource },
    message: `${groupResourceToString(groupResource)} ${JSON.stringify(name)} not found`,
  });
}

/**
 * The objects of `store` whose labels match `selector` (client-go `cache.ListAll`). An
 * empty selector returns every object without checking labels. The array is new; the
 * objects are the cached ones — do not modify them.
 *
 * @throws {SelectorParseError} for an invalid selector string.
 */
export function listAll<T extends HasObjectMeta>(store: Store<T>, selector?: SelectorInput): T[] {
  const sel = toSelector(selector);
  const items = store.list();
  if (sel.empty()) return items;
  return items.filter((obj) => sel.matches(getLabels(obj)));
}

/**
 * The objects of `indexer` in `namespace` whose labels match `selector` (client-go
 * `cache.ListAllByNamespace`). Uses the `namespace` index
 * (`namespaceIndex` → `metaNamespaceIndexFunc`) when the indexer has one, and otherwise
 * filters every object. `namespace === ''` lists all namespaces. The objects are the cached
 * ones — do not modify them.
 *
 * @throws {SelectorParseError} for an invalid selector string.
 */
export function listAllByNamespace<T extends HasObjectMeta>(
  indexer: Indexer<T>,
  namespace: string,
  selector?: SelectorInput,
): T[] {
  if (namespace === '') return listAll(indexer, selector);
  const sel = toSelector(selector);
  const matchAll = sel.empty();
  if (Object.hasOwn(indexer.getIndexers(), namespaceIndex)) {
    const items = indexer.byIndex(namespaceIndex, namespace);
    return matchAll ? items : items.filter((obj) => sel.matches(getLabels(obj)));
  }
  // No namespace index: the slow path, as client-go takes it.
  const out: T[] = [];
  for (const obj of indexer.list()) {
    if (getNamespace(obj) === namespace && (matchAll || sel.matches(getLabels(obj)))) {
      out.push(obj);
    }
  }
  return out;
}

/**
 * Reads one namespace's objects from an informer's cache (client-go
 * `cache.GenericNamespaceLister`). Returned objects are the cached ones, shared with the
 * informer and every other reader: treat them as read-only (copy with `structuredClone`
 * before changing one).
 */
export interface GenericNamespaceLister<T> {
  /**
   * The namespace's objects whose labels match `selector` (every object when omitted), in
   * no particular order.
   *
   * @throws {SelectorParseError} for an invalid selector string.
   */
  list(selector?: SelectorInput): T[];
  /**
   * The object named `name` in this namespace.
   *
   * @throws {StatusError} NotFound (`isNotFound(err)` is true) when the cache has none.
   */
  get(name: string): T;
}

/**
 * Reads objects from an informer's cache (client-go `cache.GenericLister`): list by label
 * selector, get by name, or narrow to a namespace. Returned objects are the cached ones,
 * shared with the informer and every other reader: treat them as read-only (copy with
 * `structuredClone` before changing one).
 */
export interface GenericLister<T> {
  /**
   * The objects (of all namespaces) whose labels match `selector` (every object when
   * omitted), in no particular order.
   *
   * @throws {SelectorParseError} for an invalid selector string.
   */
  list(selector?: SelectorInput): T[];
  /**
   * The object with key `name`: for cluster-scoped resources. Namespaced objects are found
   * through {@link GenericLister.byNamespace}.
   *
   * @throws {StatusError} NotFound (`isNotFound(err)` is true) when the cache has none.
   */
  get(name: string): T;
  /** A lister for one namespace; `''` means all namespaces. */
  byNamespace(namespace: string): GenericNamespaceLister<T>;
}

class IndexerNamespaceLister<T extends HasObjectMeta> implements GenericNamespaceLister<T> {
  readonly #indexer: Indexer<T>;
  readonly #resource: GroupResource;
  readonly #namespace: string;

  constructor(indexer: Indexer<T>, resource: GroupResource, namespace: string) {
    this.#indexer = indexer;
    this.#resource = resource;
    this.#namespace = namespace;
  }

  list(selector?: SelectorInput): T[] {
    return listAllByNamespace(this.#indexer, this.#namespace, selector);
  }

  get(name: string): T {
    // Keys are `namespace/name`; with no namespace the key is the bare name.
    const key = this.#namespace === '' ? name : `${this.#namespace}/${name}`;
    const obj = this.#indexer.getByKey(key);
    if (obj === undefined) throw newNotFoundError(this.#resource, name);
    return obj;
  }
}

class IndexerLister<T extends HasObjectMeta> implements GenericLister<T> {
  readonly #indexer: Indexer<T>;
  readonly #resource: GroupResource;

  constructor(indexer: Indexer<T>, resource: GroupResource) {
    this.#indexer = indexer;
    this.#resource = { group: resource.group, resource: resource.resource };
  }

  list(selector?: SelectorInput): T[] {
    return listAll(this.#indexer, selector);
  }

  get(name: string): T {
    const obj = this.#indexer.getByKey(name);
    if (obj === undefined) throw newNotFoundError(this.#resource, name);
    return obj;
  }

  byNamespace(namespace: string): GenericNamespaceLister<T> {
    return new IndexerNamespaceLister(this.#indexer, this.#resource, namespace);
  }
}

/**
 * A {@link GenericLister} over `indexer` (client-go `cache.NewGenericLister`), usually an
 * informer's `getIndexer()`. `resource` names what is listed, for NotFound errors:
 * `{ group: 'apps', resource: 'deployments' }`, `{ group: '', resource: 'pods' }`.
 *
 * ```ts
 * const lister = newGenericLister(informer.getIndexer(), { group: 'apps', resource: 'deployments' });
 * const web = lister.byNamespace('default').list('app=web');
 * const one = lister.byNamespace('default').get('web'); // throws NotFound when absent
 * ```
 *
 * Keys are expected to be `namespace/name` (or `name`), as the default key function makes
 * them. Lists in a namespace use the indexer's `namespace` index when it has one.
 */
export function newGenericLister<T extends HasObjectMeta>(
  indexer: Indexer<T>,
  resource: GroupResource,
): GenericLister<T> {
  return new IndexerLister(indexer, resource);
}
