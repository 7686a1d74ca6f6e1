import { parseFieldSelector, parseSelector } from '@kubets/apimachinery';
import {
  informerKey,
  type KeyedInformerFactoryOptions,
  type ListOptionsTweak,
} from '@kubets/cache';
import type { ObjectWithMeta, ResourceDescriptor } from '@kubets/clientset';
import { newResourceInformerFunc, type SharedInformerFactory } from '@kubets/informers';

/**
 * How one resource is cached (controller-runtime's `cache.ByObject`): its informer lists and
 * watches only what these settings select. Make one with {@link cacheByObject} to have
 * `transform` typed.
 */
export interface ByObject<T = ObjectWithMeta> {
  /** The resource, by its typed descriptor. */
  resource: ResourceDescriptor<T, unknown>;
  /**
   * Cache only this namespace (a namespaced resource only); overrides the manager's
   * `namespace`. `''` for all.
   */
  namespace?: string | undefined;
  /** Cache only objects whose labels match, e.g. `app=web`; overrides `defaultLabelSelector`. */
  labelSelector?: string | undefined;
  /** Cache only objects whose fields match, e.g. `spec.nodeName=node-1`; overrides `defaultFieldSelector`. */
  fieldSelector?: string | undefined;
  /**
   * Changes each object before it is cached (e.g. drops fields the controllers never read);
   * overrides `defaultTransform`.
   */
  transform?: ((obj: T) => T) | undefined;
}

/** What a {@link Manager} caches (controller-runtime's `cache.Options`). */
export interface CacheOptions {
  /**
   * Settings per resource. A resource named here is cached from the start of the manager
   * on, whether or not a controller watches it.
   */
  // biome-ignore lint/suspicious/noExplicitAny: entries of different resources, each typed by cacheByObject.
  byObject?: readonly ByObject<any>[] | undefined;
  /** The label selector of every informer without its own (`DefaultLabelSelector`). */
  defaultLabelSelector?: string | undefined;
  /** The field selector of every informer without its own (`DefaultFieldSelector`). */
  defaultFieldSelector?: string | undefined;
  /** The transform of every informer without its own (`DefaultTransform`). */
  defaultTransform?: ((obj: unknown) => unknown) | undefined;
}

/** A {@link ByObject} entry with `transform` typed by the resource. */
export function cacheByObject<T>(
  resource: ResourceDescriptor<T, unknown>,
  settings: Omit<ByObject<T>, 'resource'>,
): ByObject<T> {
  return { ...settings, resource };
}

/**
 * @internal The informer factory settings of a manager's cache options: the default
 * selectors as a list-options tweak, the default transform.
 */
export function cacheFactoryOptions(options: CacheOptions | undefined): Pick<
  KeyedInformerFactoryOptions,
  'tweakListOptions'
> & {
  // biome-ignore lint/suspicious/noExplicitAny: one transform for the typed and the dynamic factory.
  transform?: (obj: any) => any;
} {
  const labelSelector = checked(
    options?.defaultLabelSelector,
    'defaultLabelSelector',
    parseSelector,
  );
  const fieldSelector = checked(
    options?.defaultFieldSelector,
    'defaultFieldSelector',
    parseFieldSelector,
  );
  return {
    ...(labelSelector || fieldSelector
      ? { tweakListOptions: selecting(labelSelector, fieldSelector) }
      : {}),
    ...(options?.defaultTransform ? { transform: options.defaultTransform } : {}),
  };
}

/**
 * @internal Creates the informers of `options.byObject` in `factory`, each with its own
 * namespace, selectors and transform, so that every later `forResource` of the resource gets
 * that informer.
 *
 * @throws {TypeError} for an entry that is not a resource descriptor, a namespace for a
 *   cluster-scoped resource, a selector that does not parse, or a resource named twice.
 */
export function registerByObjectInformers(
  factory: SharedInformerFactory,
  options: CacheOptions | undefined,
): void {
  const seen = new Set<string>();
  for (const entry of options?.byObject ?? []) {
    const descriptor = entry?.resource as ResourceDescriptor<ObjectWithMeta, unknown> | undefined;
    if (typeof descriptor?.kind !== 'string' || typeof descriptor.namespaced !== 'boolean') {
      throw new TypeError(
        `cache.byObject entries need a resource descriptor (e.g. coreV1Resources.pods), got ${JSON.stringify(descriptor)}`,
      );
    }
    const key = informerKey(descriptor);
    const what = `cache.byObject[${key}]`;
    if (seen.has(key)) throw new TypeError(`${what} is given twice`);
    seen.add(key);
    if (!descriptor.namespaced && entry.namespace) {
      throw new TypeError(
        `${what}: ${descriptor.resource} are cluster-scoped, but a namespace was given (${entry.namespace})`,
      );
    }
    const labelSelector = checked(entry.labelSelector, `${what}.labelSelector`, parseSelector);
    const fieldSelector = checked(entry.fieldSelector, `${what}.fieldSelector`, parseFieldSelector);
    const own = selecting(labelSelector, fieldSelector);
    const informer = factory.informerFor<ObjectWithMeta>(
      descriptor,
      newResourceInformerFunc(factory.client, descriptor, {
        namespace: entry.namespace,
        tweakListOptions: own,
      }),
    );
    // Set after the factory's default transform, which informerFor sets: the entry's wins.
    if (entry.transform) informer.setTransform(entry.transform);
  }
}

function checked(
  selector: string | undefined,
  what: string,
  parse: (s: string) => unknown,
): string | undefined {
  if (selector === undefined || selector === '') return undefined;
  if (typeof selector !== 'string') {
    throw new TypeError(`${what} must be a selector string, got ${JSON.stringify(selector)}`);
  }
  try {
    parse(selector);
  } catch (err) {
    throw new TypeError(`${what}: ${(err as Error).message}`, { cause: err });
  }
  return selector;
}

// Sets the selectors that are given, replacing the ones set before (a per-type selector
// replaces the default one, as controller-runtime's ByObject does).
function selecting(
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): ListOptionsTweak {
  return (options) => {
    if (labelSelector !== undefined) options.labelSelector = labelSelector;
    if (fieldSelector !== undefined) options.fieldSelector = fieldSelector;
  };
}
