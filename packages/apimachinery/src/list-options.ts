// The meta/v1 request options that are the same for every client: the typed clientset and
// the dynamic client extend these with their own per-call settings, so a field added here
// reaches both.
import type { FieldSelector } from './fields.js';
import type { Selector } from './labels.js';

/**
 * How `resourceVersion` is interpreted by a list (and by a watch with
 * `sendInitialEvents`): `NotOlderThan` any state at least as new, `Exact` exactly that one
 * (meta/v1 `ResourceVersionMatch`).
 */
export type ResourceVersionMatch = 'NotOlderThan' | 'Exact' | (string & {});

/** The selection and paging fields of meta/v1 `ListOptions`, as a list sends them. */
export interface ListQueryOptions {
  /** A label selector: its string form (`app=web,tier!=db`) or a parsed `Selector`. */
  labelSelector?: string | Selector | undefined;
  /** A field selector: its string form (`metadata.name=x`) or a parsed `FieldSelector`. */
  fieldSelector?: string | FieldSelector | undefined;
  /** Page size; the answer carries `metadata.continue` when more items remain. */
  limit?: number | undefined;
  /** The `metadata.continue` token of the previous page. */
  continue?: string | undefined;
  /**
   * `'0'` serves the list from the API server's cache; unset reads the latest state (a quorum
   * read); otherwise as `resourceVersionMatch` says.
   */
  resourceVersion?: string | undefined;
  /** How `resourceVersion` is interpreted: `NotOlderThan` or `Exact`. */
  resourceVersionMatch?: ResourceVersionMatch | undefined;
  /** Server-side limit on the call's duration, in seconds (for watches: when it closes). */
  timeoutSeconds?: number | undefined;
}

/** {@link ListQueryOptions} plus the fields of meta/v1 `ListOptions` only a watch uses. */
export interface WatchQueryOptions extends ListQueryOptions {
  /** Ask for BOOKMARK events carrying the latest resourceVersion. */
  allowWatchBookmarks?: boolean | undefined;
  /** Streaming list: start with ADDED events for every object (needs a 1.27+ server). */
  sendInitialEvents?: boolean | undefined;
}

/** What happens to an object's dependents when it is deleted (meta/v1 `DeletionPropagation`). */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** Conditions that must hold for a delete to proceed; 409 Conflict otherwise (meta/v1 `Preconditions`). */
export interface Preconditions {
  /** The object must still have this UID (it was not deleted and re-created). */
  uid?: string | undefined;
  /** The object must still be at this resourceVersion (it was not changed since it was read). */
  resourceVersion?: string | undefined;
}
