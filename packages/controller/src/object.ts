import type { ObjectMeta } from '@kubets/apimachinery';

/**
 * The metadata fields the controller helpers read and write. Narrower than `ObjectMeta`, so
 * objects typed with `kubernetes-types`, `@kubets/clientset` or generated CRD types all fit.
 */
export type ControllerMeta = Pick<
  ObjectMeta,
  | 'name'
  | 'namespace'
  | 'uid'
  | 'resourceVersion'
  | 'generation'
  | 'labels'
  | 'annotations'
  | 'finalizers'
  | 'ownerReferences'
  | 'deletionTimestamp'
>;

/** Any Kubernetes object, as far as the controller helpers are concerned. */
export interface MetaObject {
  /** The object's metadata, if it has any. */
  metadata?: ControllerMeta | undefined;
}
