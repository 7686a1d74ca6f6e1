// The meta/v1 call options, once for every client: the typed clientset and the dynamic client
// take these (re-exported by both), and turn them into query parameters and a delete body with
// the functions below. The bare query fields a ListerWatcher gets are ListQueryOptions and
// WatchQueryOptions (list-options.ts).
import type { FieldSelector } from './fields.js';
import type { Selector } from './labels.js';
import type {
  ListQueryOptions,
  Preconditions,
  PropagationPolicy,
  WatchQueryOptions,
} from './list-options.js';

/** Options every client call takes (the typed clientset's and the dynamic client's). */
export interface CallOptions {
  /** Aborting cancels the request (for `watch` and `getLog`: ends the stream). */
  signal?: AbortSignal | undefined;
  /**
   * Gives up after this many milliseconds and asks the server to finish within that time
   * too (the `timeout` query parameter). Overrides `Config.timeoutMs`.
   */
  timeoutMs?: number | undefined;
}

/** Options of `get` (meta/v1 `GetOptions`). */
export interface GetOptions extends CallOptions {
  /** `'0'` lets the server answer from its cache; unset reads the latest state. */
  resourceVersion?: string | undefined;
}

/** Options of `list` and `deleteCollection`'s selection (meta/v1 `ListOptions`). */
export interface ListOptions extends CallOptions, ListQueryOptions {}

/** Options of `watch`: list options plus bookmarks and streaming lists. */
export interface WatchOptions extends ListOptions, WatchQueryOptions {}

/** How the server treats unknown or duplicate fields in a write (1.25+ servers). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Options of `create` (meta/v1 `CreateOptions`). */
export interface CreateOptions extends CallOptions {
  /** Validate and admit the request without persisting it (`dryRun=All`). */
  dryRun?: boolean | undefined;
  /** The field manager recorded in `metadata.managedFields`. */
  fieldManager?: string | undefined;
  /** What the server does with unknown or duplicate fields: ignore, warn, or reject. */
  fieldValidation?: FieldValidation | undefined;
}

/** Options of `update` and `updateStatus` (meta/v1 `UpdateOptions`). */
export interface UpdateOptions extends CreateOptions {}

/** Options of `patch` (meta/v1 `PatchOptions`). */
export interface PatchOptions extends CreateOptions {
  /** Apply patches only: take ownership of conflicting fields from other managers. */
  force?: boolean | undefined;
}

/** Options of `apply` (server-side apply); `fieldManager` is required. */
export interface ApplyOptions extends CallOptions {
  /** The manager that owns the applied fields, e.g. your controller's name. */
  fieldManager: string;
  /** Take ownership of fields other managers own instead of failing with 409 Conflict. */
  force?: boolean | undefined;
  /** Validate and admit the request without persisting it (`dryRun=All`). */
  dryRun?: boolean | undefined;
  /** What the server does with unknown or duplicate fields: ignore, warn, or reject. */
  fieldValidation?: FieldValidation | undefined;
}

/** Options of `delete` and `deleteCollection` (meta/v1 `DeleteOptions`), sent as the body. */
export interface DeleteOptions extends CallOptions {
  /** What happens to dependents: orphaned, or deleted in the background or foreground. */
  propagationPolicy?: PropagationPolicy | undefined;
  /** Conditions that must hold, or the delete fails with 409 Conflict. */
  preconditions?: Preconditions | undefined;
  /** Seconds before the object is deleted; 0 deletes immediately. */
  gracePeriodSeconds?: number | undefined;
  /** Validate the delete without performing it (`dryRun=All`). */
  dryRun?: boolean | undefined;
}

/** The wire form of {@link DeleteOptions} (meta/v1 `DeleteOptions`). */
export interface DeleteOptionsBody {
  /** `v1` when set; the server accepts the body without it. */
  apiVersion?: string | undefined;
  /** `DeleteOptions` when set; the server accepts the body without it. */
  kind?: string | undefined;
  /** What happens to dependents: orphaned, or deleted in the background or foreground. */
  propagationPolicy?: PropagationPolicy | undefined;
  /** Conditions that must hold, or the delete fails with 409 Conflict. */
  preconditions?: Preconditions | undefined;
  /** Seconds before the object is deleted; 0 deletes immediately. */
  gracePeriodSeconds?: number | undefined;
  /** `['All']` to validate the delete without performing it. */
  dryRun?: string[] | undefined;
}

/** Query parameters of a request, by name; `undefined` values are left out when it is sent. */
export type Params = Record<string, string | number | boolean | undefined>;

function selectorString(
  selector: string | Selector | FieldSelector | undefined,
): string | undefined {
  if (selector === undefined) return undefined;
  const text = typeof selector === 'string' ? selector : selector.toString();
  return text === '' ? undefined : text;
}

/** Query parameters of a get. */
export function getParams(options: GetOptions): Params {
  return { resourceVersion: options.resourceVersion };
}

/** Query parameters of a list (or a deleteCollection's selection). */
export function listParams(options: ListOptions): Params {
  return {
    labelSelector: selectorString(options.labelSelector),
    fieldSelector: selectorString(options.fieldSelector),
    limit: options.limit,
    continue: options.continue || undefined,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
    timeoutSeconds: options.timeoutSeconds,
  };
}

/** Query parameters of a watch. */
export function watchParams(options: WatchOptions): Params {
  return {
    ...listParams(options),
    allowWatchBookmarks: options.allowWatchBookmarks,
    sendInitialEvents: options.sendInitialEvents,
  };
}

/** Query parameters of a create, update or patch. */
export function writeParams(options: PatchOptions): Params {
  return {
    dryRun: options.dryRun ? 'All' : undefined,
    fieldManager: options.fieldManager,
    fieldValidation: options.fieldValidation,
    force: options.force,
  };
}

/** The body of a delete or deleteCollection. */
export function deleteOptionsBody(options: DeleteOptions): DeleteOptionsBody {
  // No apiVersion/kind: the server reads an untyped body as meta/v1 DeleteOptions in every group.
  const body: DeleteOptionsBody = {};
  if (options.propagationPolicy !== undefined) body.propagationPolicy = options.propagationPolicy;
  if (options.preconditions !== undefined) body.preconditions = { ...options.preconditions };
  if (options.gracePeriodSeconds !== undefined)
    body.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.dryRun) body.dryRun = ['All'];
  return body;
}
