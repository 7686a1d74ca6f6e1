import { ApplyConflictError, type FieldScope, leafMap } from './fieldmanager.js';
import { goMarshal } from './go-decode.js';
import { meta } from './object-meta.js';
import { clone, isObject, type JsonObject, type JsonValue, type MergeKeys } from './patch.js';

/** The annotation `kubectl apply` (client-side) keeps the applied configuration in. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The field manager kube-apiserver lets take over from client-side apply: `kubectl apply
 * --server-side`'s default. Another manager name opts out.
 */
export const KUBECTL_APPLIER = 'kubectl';

function lastAppliedOf(obj: JsonObject): string | undefined {
  const annotations = meta(obj).annotations;
  const value = isObject(annotations) ? annotations[LAST_APPLIED] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The fields `kubectl apply --server-side` may take over without a conflict: those the live
 * object's last-applied configuration names with the value the object still has (a field the
 * configuration names with another value, or does not name, stays a conflict). Undefined when
 * the object has no last-applied configuration of `apiVersion`.
 */
function fieldsFromLastApplied(
  live: JsonObject,
  apiVersion: string,
  mergeKeys: MergeKeys,
  scope: FieldScope,
): Set<string> | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined || text === '') return undefined;
  let applied: JsonValue;
  try {
    applied = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (!isObject(applied) || applied.apiVersion !== apiVersion) return undefined;
  const liveLeaves = leafMap(live, mergeKeys, scope);
  const allowed = new Set<string>();
  for (const [path, value] of leafMap(applied, mergeKeys, scope)) {
    if (liveLeaves.get(path) === value) allowed.add(path);
  }
  return allowed;
}

/**
 * Keeps client-side apply's annotation in step after `kubectl apply --server-side`: an object
 * that has one gets the applied configuration (without the annotation, keys sorted as Go
 * encodes it, newline-terminated) as its new value.
 */
export function syncLastApplied(merged: JsonObject, config: JsonObject): void {
  if (lastAppliedOf(merged) === undefined) return;
  const encoded = clone(config);
  const annotations = meta(encoded).annotations;
  if (isObject(annotations)) delete annotations[LAST_APPLIED];
  // Encoded as runtime.Encode writes JSON: with a newline at the end.
  (meta(merged).annotations as JsonObject)[LAST_APPLIED] = `${goMarshal(encoded)}\n`;
}

/**
 * Runs a server-side apply (`apply(force)`) as kube-apiserver's field manager does for `kubectl
 * apply --server-side` over an object `kubectl apply` wrote: when every conflict is a field the
 * last-applied configuration still holds, the apply is forced; otherwise only the other
 * conflicts are reported.
 */
export function applyOverClientSideApply(
  live: JsonObject | undefined,
  options: { manager: string; force?: boolean | undefined },
  apiVersion: string,
  mergeKeys: MergeKeys,
  scope: FieldScope,
  apply: (force: boolean) => JsonObject,
): JsonObject {
  try {
    return apply(options.force === true);
  } catch (error) {
    if (!(error instanceof ApplyConflictError) || options.manager !== KUBECTL_APPLIER || !live) {
      throw error;
    }
    const allowed = fieldsFromLastApplied(live, apiVersion, mergeKeys, scope);
    if (!allowed) throw error;
    const remaining = error.conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) throw new ApplyConflictError(remaining);
    return apply(true);
  }
}
