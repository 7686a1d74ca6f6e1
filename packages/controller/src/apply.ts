import type { ApplyConfiguration, ApplyOptions } from '@kubets/clientset';

/**
 * The client call {@link serverSideApply} makes: a typed client of the object's resource,
 * such as `clientset.appsV1().deployments(ns)` or `clientset.resource(descriptor, ns)`.
 */
export interface ApplyClient<T> {
  /** Server-side apply of the object. */
  apply(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
}

/** The client call {@link serverSideApplyStatus} makes (a resource with a status subresource). */
export interface ApplyStatusClient<T> {
  /** Server-side apply of the object's status. */
  applyStatus(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
}

/** Options of {@link serverSideApply} and {@link serverSideApplyStatus}. */
export interface ServerSideApplyOptions extends Omit<ApplyOptions, 'force'> {
  /**
   * Take the applied fields over from other managers instead of failing with 409 Conflict.
   * Default true: a controller is the authority for the state it applies, as
   * controller-runtime's `client.ForceOwnership` and kube-rs' `PatchParams::apply(..).force()`
   * recommend for controllers. Set false to let a conflict surface instead.
   */
  force?: boolean | undefined;
}

/**
 * Server-side apply of `obj` owned by `options.fieldManager` (controller-runtime's
 * `client.Patch(ctx, obj, client.Apply, client.FieldOwner(name), client.ForceOwnership)`,
 * kube-rs' `Patch::Apply`), through the typed client's `apply`. Send only the fields the
 * controller manages, with `metadata.name` (and the namespace of a namespaced object):
 * the server merges them, removes the fields this manager applied before and no longer
 * sends, and leaves every other manager's fields alone. `apiVersion` and `kind` are filled
 * in from the client's resource. `metadata.managedFields`, which the server refuses in an
 * apply, is left out, so an object read back can be applied again.
 *
 * Use the controller's name as the field manager (`ctx.controller` in a reconcile), the same
 * in every replica and release: a new name would leave the old one owning its fields.
 *
 * @throws {TypeError} for a missing or empty `fieldManager`.
 */
export function serverSideApply<T>(
  client: ApplyClient<T>,
  obj: ApplyConfiguration<T>,
  options: ServerSideApplyOptions,
): Promise<T> {
  return client.apply(withoutManagedFields(obj), applyOptions(options, 'serverSideApply'));
}

/**
 * As {@link serverSideApply}, for the status subresource: only `status` (with
 * `metadata.name`) is applied, as controller-runtime's `Status().Patch(.., client.Apply)`.
 *
 * @throws {TypeError} for a missing or empty `fieldManager`.
 */
export function serverSideApplyStatus<T>(
  client: ApplyStatusClient<T>,
  obj: ApplyConfiguration<T>,
  options: ServerSideApplyOptions,
): Promise<T> {
  return client.applyStatus(
    withoutManagedFields(obj),
    applyOptions(options, 'serverSideApplyStatus'),
  );
}

function applyOptions(options: ServerSideApplyOptions, what: string): ApplyOptions {
  if (typeof options?.fieldManager !== 'string' || options.fieldManager === '') {
    throw new TypeError(
      `${what} needs options.fieldManager, the name that owns the applied fields (e.g. the controller's name), got ${JSON.stringify(options?.fieldManager)}`,
    );
  }
  return { ...options, force: options.force ?? true };
}

function withoutManagedFields<A>(obj: A): A {
  const meta = (obj as { metadata?: { managedFields?: unknown } } | undefined)?.metadata;
  if (meta?.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = meta;
  return { ...obj, metadata };
}
