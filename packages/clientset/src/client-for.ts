import type { ObjectList } from '@kubets/apimachinery';
import type { ObjectWithMeta, Subresource } from './descriptor.js';
import type {
  ScalableResourceClient,
  StatusResourceClient,
  TypedResourceClient,
} from './typed-client.js';

/** The methods of the status subresource: what a client without `status` lacks. */
export type StatusMethod = 'getStatus' | 'updateStatus' | 'patchStatus' | 'applyStatus';

/**
 * The typed client a descriptor's subresources `S` call for, as the generated clients pick
 * theirs: with `scale`, the scale methods; with `status`, the status methods; with neither,
 * only the object's own. For the wide {@link Subresource} (a descriptor whose subresources
 * are not known at the type level) it is the client with every method, which checks the
 * descriptor at run time.
 */
export type ResourceClientFor<
  T extends ObjectWithMeta,
  L extends {
    /** The listed objects. */
    items?: T[];
  } = ObjectList<T>,
  S extends Subresource = Subresource,
> = string extends S
  ? ScalableResourceClient<T, L>
  : [Extract<S, 'scale'>] extends [never]
    ? [Extract<S, 'status'>] extends [never]
      ? TypedResourceClient<T, L>
      : StatusResourceClient<T, L>
    : [Extract<S, 'status'>] extends [never]
      ? Omit<ScalableResourceClient<T, L>, StatusMethod>
      : ScalableResourceClient<T, L>;

/**
 * The calls that name an object without carrying it, so they need the client's namespace
 * for a namespaced resource: `get`, `patch`, `delete`, `deleteCollection` and their status
 * and scale counterparts.
 */
export type NamespaceRequiredMethod =
  | 'get'
  | 'patch'
  | 'delete'
  | 'deleteCollection'
  | 'getStatus'
  | 'patchStatus'
  | 'getScale'
  | 'updateScale'
  | 'patchScale';

/**
 * A client for a namespaced resource made without a namespace: `list` and `watch` cover
 * every namespace and writes take the object's `metadata.namespace`, but the calls of
 * {@link NamespaceRequiredMethod} are not there (client-go would send them to the
 * cluster-wide path and fail).
 */
export type AllNamespacesClient<C> = Omit<C, NamespaceRequiredMethod>;
