import type {
  ListQueryOptions,
  ObjectList,
  WatchEvent,
  WatchQueryOptions,
} from '@kubets/apimachinery';
import type { ListItemIdentity, RewriteWatchEventText, WatchEventTextRewrite } from '@kubets/rest';
import { deletionHandlingMetaNamespaceKeyFunc, metaNamespaceKeyFunc } from './keys.js';

/**
 * What a caller of {@link ListerWatcher.list} offers to make a list cheaper. A list-watch
 * may ignore every hint: the result must be the same list either way.
 */
export interface ListHints<T> {
  /**
   * Called with each item's identity (name, namespace, resourceVersion) as soon as it is
   * known, before the item is decoded if the list-watch can; an object it returns takes
   * the item's place and the item need not be decoded. Informers pass one that returns the
   * object they cache when its resourceVersion is the same, so relisting a large, mostly
   * unchanged cache neither decodes nor holds every object a second time.
   */
  reuseItem?(identity: ListItemIdentity): T | undefined;
  /**
   * Called with each item the list decodes (not with those {@link ListHints.reuseItem}
   * supplied) as soon as it is decoded, if the list-watch can; it may change the item in
   * place but not replace it, and must leave the item as the cache would make it anyway.
   * Informers share `managedFields` trees here, so the duplicate trees die young instead of
   * being held until the whole list has arrived (which makes V8 grow its young generation
   * and keep that memory).
   */
  prepareItem?(item: T): void;
}

/**
 * What a caller of {@link ListerWatcher.watch} offers to make decoding events cheaper. A
 * list-watch may ignore every hint: the events must be the same either way.
 */
export interface WatchHints<T> {
  /**
   * Called with the JSON text of each event before it is parsed, if the list-watch can
   * (`Request.watch`'s hook of the same name, whose contract it has): it may return other
   * text to parse and a step that turns the object parsed from it into the object the event
   * holds, or `undefined` to parse the event as it is. Informers cut the `managedFields` trees
   * their pool holds out of the text and put the pooled trees back, so those trees are
   * neither parsed nor compared.
   */
  rewriteEventText?(eventText: string): WatchEventTextRewrite<T> | undefined;
}

/**
 * The list and watch calls for one resource (client-go `cache.ListerWatcher`), usually bound
 * to a namespace and selectors. `listWatchFromClient` adapters for REST clients, typed
 * clients and dynamic clients implement it; so can any object literal with these two methods.
 */
export interface ListerWatcher<T> {
  /**
   * Lists objects. Rejects with a `StatusError` for server failures; an `Expired`/410
   * error on a `continue` token makes the reflector fall back to one full list.
   */
  list(
    options: ListQueryOptions,
    signal: AbortSignal,
    hints?: ListHints<T>,
  ): Promise<ObjectList<T>>;
  /**
   * Starts a watch. The promise rejects when the server refuses it (e.g. 410 Gone when the
   * resourceVersion is too old); the stream yields events until the server ends it (clean
   * end), fails (throws), or `signal` aborts (it must then end or throw promptly). Leaving
   * a `for await` loop early must stop the request.
   */
  watch(
    options: WatchQueryOptions,
    signal: AbortSignal,
    hints?: WatchHints<T>,
  ): Promise<AsyncIterable<WatchEvent<T>>>;
  /**
   * True when this list-watch cannot serve a streaming list (client-go
   * `IsWatchListSemanticsUnSupported`): its watch ignores `sendInitialEvents`, as fakes and
   * hand-written list-watches in tests usually do. Reflectors then list with plain lists.
   * Absent means it can (a real API server that cannot answers with an error, and the
   * reflector falls back to a paged list).
   */
  isWatchListSemanticsUnsupported?(): boolean;
}

/**
 * True when `lw` declares that it cannot serve streaming lists (client-go
 * `watchlist.DoesClientNotSupportWatchListSemantics`): it has an
 * {@link ListerWatcher.isWatchListSemanticsUnsupported} method that returns true.
 */
export function doesClientNotSupportWatchListSemantics(lw: object): boolean {
  const probe = (lw as { isWatchListSemanticsUnsupported?: unknown })
    .isWatchListSemanticsUnsupported;
  return typeof probe === 'function' && probe.call(lw) === true;
}

/** Copies `from`'s {@link ListerWatcher.isWatchListSemanticsUnsupported} onto a wrapper. */
function keepWatchListSemantics<T>(from: ListerWatcher<T>, to: ListerWatcher<T>): ListerWatcher<T> {
  if (typeof from.isWatchListSemanticsUnsupported === 'function') {
    to.isWatchListSemanticsUnsupported = () => doesClientNotSupportWatchListSemantics(from);
  }
  return to;
}

/**
 * Wraps a {@link ListerWatcher} so that `tweak` may change the options of every list and
 * watch call (client-go's `TweakListOptionsFunc`), e.g. to add a label selector. `tweak`
 * gets a copy of the options it may modify.
 */
export function tweakListerWatcher<T>(
  lw: ListerWatcher<T>,
  tweak: ((options: ListQueryOptions) => void) | undefined,
): ListerWatcher<T> {
  if (tweak === undefined) return lw;
  return keepWatchListSemantics(lw, {
    list: (options, signal, hints) => {
      const copy = { ...options };
      tweak(copy);
      return lw.list(copy, signal, hints);
    },
    watch: (options, signal, hints) => {
      const copy = { ...options };
      tweak(copy);
      return lw.watch(copy, signal, hints);
    },
  });
}

interface HasIdentity {
  metadata?: { name?: unknown; namespace?: unknown; resourceVersion?: unknown } | null;
}

/** Whether `obj`'s metadata has the identity's name, namespace and resourceVersion. */
function isIdentityOf(identity: ListItemIdentity, obj: unknown): boolean {
  if (identity.isIdentityOf !== undefined) return identity.isIdentityOf(obj);
  const meta = (obj as HasIdentity | undefined)?.metadata;
  return (
    meta?.resourceVersion === identity.resourceVersion &&
    meta?.name === identity.name &&
    (meta?.namespace || undefined) === (identity.namespace || undefined)
  );
}

/**
 * Wraps a {@link ListerWatcher} so that its lists reuse the objects `cache` already holds
 * (the {@link ListHints.reuseItem} hint): an item with the name, namespace and
 * resourceVersion of a cached object is replaced by that object (none while the cache is
 * empty). Informers wrap their list-watch with it; after a 410 most of a relist is
 * unchanged. `prepareItem`, when given, is passed on as the {@link ListHints.prepareItem}
 * hint, `rewriteEventText` as the {@link WatchHints.rewriteEventText} hint.
 */
export function reusingCachedItems<T>(
  lw: ListerWatcher<T>,
  cache: {
    readonly keyFunc: (obj: unknown) => string;
    getByKey(key: string): T | undefined;
    /** How many objects the cache holds: none, and a list is decoded without the hint. */
    readonly size?: number;
  },
  prepareItem?: ((item: T) => void) | undefined,
  rewriteEventText?: RewriteWatchEventText<T> | undefined,
): ListerWatcher<T> {
  const keyFunc = cache.keyFunc;
  // With the usual key function an identity's own `key` is the cached object's key: made
  // from the item's bytes, it is the only string a reused item costs.
  const keyedByNamespace =
    keyFunc === deletionHandlingMetaNamespaceKeyFunc || keyFunc === metaNamespaceKeyFunc;
  const keyOf = (identity: ListItemIdentity): string | undefined => {
    if (keyedByNamespace && identity.key !== undefined) return identity.key;
    try {
      return keyFunc({ metadata: { name: identity.name, namespace: identity.namespace } });
    } catch {
      return undefined; // a key function that needs more than metadata: decode the item
    }
  };
  const reuseItem = (identity: ListItemIdentity): T | undefined => {
    const key = keyOf(identity);
    const cached = key === undefined ? undefined : cache.getByKey(key);
    // The key only finds a candidate: it must have the item's identity to stand for it.
    return cached !== undefined && isIdentityOf(identity, cached) ? cached : undefined;
  };
  return keepWatchListSemantics(lw, {
    list: (options, signal, hints) =>
      lw.list(options, signal, {
        // An empty cache (the first list) has nothing to reuse: reading identities is waste.
        reuseItem: hints?.reuseItem ?? (cache.size === 0 ? undefined : reuseItem),
        prepareItem: hints?.prepareItem ?? prepareItem,
      }),
    watch: (options, signal, hints) =>
      lw.watch(options, signal, {
        rewriteEventText: hints?.rewriteEventText ?? rewriteEventText,
      }),
  });
}
