import type {
  FieldSelector,
  ListQueryOptions,
  PartialObjectMetadata,
  WatchEvent,
  WatchQueryOptions,
} from '@kubets/apimachinery';
import type { ParamValue, Request } from '@kubets/rest';
import type { ListerWatcher, ListHints, WatchHints } from './listwatch.js';

/**
 * Anything that starts a GET request on the API, such as a `RESTClient` of `@kubets/rest`
 * (client-go's `cache.Getter`). Typed clients that expose their REST client fit too.
 */
export interface RESTGetter {
  /** A new GET request, relative to the client's group/version. */
  get(): Request;
}

/**
 * Changes the options of every list and watch call of a list-watch (client-go's
 * `optionsModifier`, as used by `TweakListOptionsFunc`). It receives a copy it may modify.
 */
export type ListOptionsTweak = (options: WatchQueryOptions) => void;

/**
 * The `Accept` header of a metadata-only list: the server answers with a
 * `PartialObjectMetadataList` (JSON as a fallback for servers that cannot).
 */
export const partialObjectMetadataListAccept =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/**
 * The `Accept` header of a metadata-only watch: every event carries a
 * `PartialObjectMetadata` (JSON as a fallback for servers that cannot).
 */
export const partialObjectMetadataAccept =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * The query parameters of a list or watch, as client-go's parameter codec encodes
 * `metav1.ListOptions`: empty strings, `false` flags and a zero `limit` are left out.
 */
function queryParams(options: WatchQueryOptions): Record<string, ParamValue | undefined> {
  return {
    labelSelector: options.labelSelector?.toString() || undefined,
    fieldSelector: options.fieldSelector?.toString() || undefined,
    resourceVersion: options.resourceVersion || undefined,
    resourceVersionMatch: options.resourceVersionMatch || undefined,
    limit: options.limit ? options.limit : undefined,
    continue: options.continue || undefined,
    timeoutSeconds: options.timeoutSeconds,
    allowWatchBookmarks: options.allowWatchBookmarks ? true : undefined,
    // A pointer in client-go: `false` is sent when it was set.
    sendInitialEvents: options.sendInitialEvents,
  };
}

interface ClientListWatchSettings {
  client: RESTGetter;
  resource: string;
  namespace: string;
  tweak: ListOptionsTweak | undefined;
  listAccept?: string;
  watchAccept?: string;
}

function request(
  settings: ClientListWatchSettings,
  options: WatchQueryOptions,
  signal: AbortSignal,
  accept: string | undefined,
): Request {
  const copy: WatchQueryOptions = { ...options };
  settings.tweak?.(copy);
  const req = settings.client
    .get()
    .namespace(settings.namespace)
    .resource(settings.resource)
    .params(queryParams(copy))
    .signal(signal);
  if (accept !== undefined) req.setHeader('Accept', accept);
  return req;
}

// Listed items get the list's apiVersion and kind, which the API server leaves out of a
// built-in list's items but puts on every watch event's object: a cache filled by both then
// holds objects of one shape, and code that needs an object's kind (owner references, event
// recording) works however the object arrived (controller-runtime's cache sets the kind on
// what it returns, for the same reason). The decoder adds them as each item is parsed, in
// the object itself (16 bytes an object instead of 40 when added afterwards); items of a
// list whose type meta came after its items get them once the list is complete.
function clientListWatch<T>(settings: ClientListWatchSettings): ListerWatcher<T> {
  return {
    list: (options: ListQueryOptions, signal: AbortSignal, hints?: ListHints<T>) =>
      request(settings, options, signal, settings.listAccept).doList<T>({
        reuseItem: hints?.reuseItem?.bind(hints),
        prepareItem: hints?.prepareItem?.bind(hints),
        setItemTypeMeta: true,
      }),
    watch: (
      options: WatchQueryOptions,
      signal: AbortSignal,
      hints?: WatchHints<T>,
    ): Promise<AsyncIterable<WatchEvent<T>>> =>
      request(settings, options, signal, settings.watchAccept).watch<T>({
        rewriteEventText: hints?.rewriteEventText?.bind(hints),
      }),
  };
}

function selectorString(fieldSelector: string | FieldSelector | undefined): string {
  if (fieldSelector === undefined) return '';
  return typeof fieldSelector === 'string' ? fieldSelector : fieldSelector.toString();
}

function fieldSelectorTweak(fieldSelector: string | FieldSelector | undefined): ListOptionsTweak {
  const selector = selectorString(fieldSelector);
  return (options) => {
    options.fieldSelector = selector;
  };
}

/**
 * A {@link ListerWatcher} for one resource, listing and watching through a REST client
 * (client-go `cache.NewListWatchFromClient`):
 *
 * - `list` sends `GET [/namespaces/{namespace}]/{resource}` with the reflector's options as
 *   query parameters (`resourceVersion`, `resourceVersionMatch`, `limit`, `continue`,
 *   `labelSelector`, `fieldSelector`, `timeoutSeconds`; empty values are left out);
 * - `watch` sends the same request with `watch=true`, plus `allowWatchBookmarks`,
 *   `sendInitialEvents`, `timeoutSeconds` and `resourceVersion`, and returns the event
 *   stream.
 *
 * Lists are decoded as they download (`Request.doList`: each item is parsed as its bytes
 * arrive; the body is never one string), and each listed item that has no `apiVersion` and
 * `kind` gets the list's (`ConfigMapList` → `ConfigMap`), as watch events' objects carry
 * them: the API server leaves them out of a built-in list's items. Both calls stop when the
 * reflector's `AbortSignal` aborts. Like client-go, every call's field selector is replaced
 * by `fieldSelector` (none when omitted or empty).
 *
 * ```ts
 * const core = new RESTClient(loadConfig(), { groupVersion: 'v1' });
 * const podListWatcher = listWatchFromClient<Pod>(core, 'pods', 'default', everythingFieldSelector());
 * const { indexer, controller } = newIndexerInformer(podListWatcher, handler, 0, {});
 * ```
 *
 * @param client usually a `RESTClient` for the resource's group/version.
 * @param resource the resource (plural, lower case), e.g. `pods`.
 * @param namespace the namespace; `''` for all namespaces (or a cluster-scoped resource).
 * @param fieldSelector e.g. `spec.nodeName=node-1`, or `everythingFieldSelector()`.
 */
export function listWatchFromClient<T>(
  client: RESTGetter,
  resource: string,
  namespace: string,
  fieldSelector?: string | FieldSelector,
): ListerWatcher<T> {
  return newFilteredListWatchFromClient<T>(
    client,
    resource,
    namespace,
    fieldSelectorTweak(fieldSelector),
  );
}

/**
 * Like {@link listWatchFromClient}, with `tweak` deciding the options of every list and
 * watch call (client-go `cache.NewFilteredListWatchFromClient`), e.g. to set a label
 * selector. `tweak` receives a copy of the reflector's options and may change any of them.
 */
export function newFilteredListWatchFromClient<T>(
  client: RESTGetter,
  resource: string,
  namespace: string,
  tweak: ListOptionsTweak,
): ListerWatcher<T> {
  return clientListWatch<T>({ client, resource, namespace, tweak });
}

/**
 * A metadata-only {@link ListerWatcher}: like {@link listWatchFromClient}, but the server
 * sends every object as a `PartialObjectMetadata` — `apiVersion`, `kind` and `metadata`,
 * without `spec`, `status` or `data` (client-go's metadata informers). Lists ask for
 * {@link partialObjectMetadataListAccept}, watches for {@link partialObjectMetadataAccept}.
 * Informers over it keep a fraction of the memory of full objects.
 *
 * ```ts
 * const lw = metadataListWatchFromClient(core, 'configmaps', '');
 * const informer = newSharedIndexInformer(lw, 'configmaps metadata');
 * ```
 */
export function metadataListWatchFromClient(
  client: RESTGetter,
  resource: string,
  namespace: string,
  fieldSelector?: string | FieldSelector,
): ListerWatcher<PartialObjectMetadata> {
  return newFilteredMetadataListWatchFromClient(
    client,
    resource,
    namespace,
    fieldSelectorTweak(fieldSelector),
  );
}

/**
 * Like {@link metadataListWatchFromClient}, with `tweak` deciding the options of every list
 * and watch call (as {@link newFilteredListWatchFromClient}).
 */
export function newFilteredMetadataListWatchFromClient(
  client: RESTGetter,
  resource: string,
  namespace: string,
  tweak: ListOptionsTweak,
): ListerWatcher<PartialObjectMetadata> {
  return clientListWatch<PartialObjectMetadata>({
    client,
    resource,
    namespace,
    tweak,
    listAccept: partialObjectMetadataListAccept,
    watchAccept: partialObjectMetadataAccept,
  });
}
