import type { HasObjectMeta } from '@kubets/apimachinery';

/**
 * Adds `finalizer` to `object.metadata.finalizers` unless it is there already; returns
 * whether the list changed, so the caller writes the object only then (controller-runtime's
 * `AddFinalizer`).
 */
export function addFinalizer(object: HasObjectMeta, finalizer: string): boolean {
  checkFinalizer(finalizer);
  if (containsFinalizer(object, finalizer)) return false;
  object.metadata ??= {};
  object.metadata.finalizers = [...(object.metadata.finalizers ?? []), finalizer];
  return true;
}

/**
 * Removes every occurrence of `finalizer` from `object.metadata.finalizers`; returns whether
 * the list changed (controller-runtime's `RemoveFinalizer`).
 */
export function removeFinalizer(object: HasObjectMeta, finalizer: string): boolean {
  const finalizers = object.metadata?.finalizers;
  if (finalizers === undefined || !finalizers.includes(finalizer)) return false;
  (object.metadata as { finalizers?: string[] }).finalizers = finalizers.filter(
    (f) => f !== finalizer,
  );
  return true;
}

/** Whether `object.metadata.finalizers` holds `finalizer`. */
export function containsFinalizer(object: HasObjectMeta, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) ?? false;
}

// The API server rejects finalizers that are not qualified names; saying so here names the
// culprit instead of failing the later write.
function checkFinalizer(finalizer: string): void {
  if (typeof finalizer !== 'string' || finalizer === '') {
    throw new TypeError(`finalizer must be a non-empty string, got ${JSON.stringify(finalizer)}`);
  }
}
