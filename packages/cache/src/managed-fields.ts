// Every object the API server returns carries `metadata.managedFields`: one entry per field
// manager, each with a `fieldsV1` tree naming the fields that manager owns. In a 1.20 Pod
// those trees are more than half of the object's heap, yet they are the same tree for every
// replica of a workload (the keys name fields and list-item keys such as container names,
// not values). Informers keep objects for a long time, so sharing identical trees between
// cached objects costs one serialisation per object and saves most of that memory.

interface ManagedFieldsEntryLike {
  fieldsType?: string;
  fieldsV1?: unknown;
}

interface WithManagedFields {
  metadata?: { managedFields?: ManagedFieldsEntryLike[] | null } | null;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/**
 * Shares identical `fieldsV1` trees between objects: {@link FieldsV1Pool.share} replaces an
 * entry's tree with an equal tree already in the pool. Pooled trees are frozen, because
 * one tree then belongs to many objects; like client-go's caches, objects handed out by an
 * informer are read-only (copy one with `structuredClone` before changing it). The pool
 * holds its trees weakly: a tree no cached object uses any more is collected.
 */
export class FieldsV1Pool {
  readonly #trees = new Map<string, WeakRef<object>>();
  readonly #forget = new FinalizationRegistry<string>((text) => {
    if (this.#trees.get(text)?.deref() === undefined) this.#trees.delete(text);
  });

  /** Number of distinct trees currently pooled (collected ones may linger until swept). */
  get size(): number {
    return this.#trees.size;
  }

  /**
   * Points every `metadata.managedFields[].fieldsV1` of `obj` at the pooled equal tree
   * (adding the tree to the pool when it is new). Mutates and returns `obj`; objects
   * without managedFields are returned as they are.
   */
  share<T>(obj: T): T {
    const entries = (obj as WithManagedFields | null | undefined)?.metadata?.managedFields;
    if (!Array.isArray(entries)) return obj;
    for (const entry of entries) {
      const tree = entry?.fieldsV1;
      if (tree === null || typeof tree !== 'object') continue;
      // The API server writes a tree's keys in a canonical order, so equal trees serialise
      // to equal text.
      const text = JSON.stringify(tree);
      const pooled = this.#trees.get(text)?.deref();
      if (pooled !== undefined) {
        entry.fieldsV1 = pooled;
        continue;
      }
      deepFreeze(tree);
      this.#trees.set(text, new WeakRef(tree));
      this.#forget.register(tree, text);
    }
    return obj;
  }
}

/** The pool informers share by default, so equal trees are shared across informers too. */
export const defaultFieldsV1Pool: FieldsV1Pool = new FieldsV1Pool();

/**
 * A transform (for `setTransform` or `transform` options) that shares identical
 * `managedFields` trees through {@link defaultFieldsV1Pool}. Shared informers apply it by
 * default (see `shareManagedFields`); use it directly with `newInformer`/`newIndexerInformer`.
 */
export function shareManagedFields<T>(obj: T): T {
  return defaultFieldsV1Pool.share(obj);
}

/**
 * A transform that removes `metadata.managedFields`, for caches that never read them (most
 * controllers). It saves more memory than sharing, at the price of the field ownership
 * information that server-side-apply tooling needs. Mutates and returns `obj`.
 */
export function dropManagedFields<T>(obj: T): T {
  const metadata = (obj as WithManagedFields | null | undefined)?.metadata;
  if (metadata?.managedFields != null) metadata.managedFields = undefined;
  return obj;
}
