import { eventsApiFromCoreEvent } from './event-versions.js';
import type { Entry } from './object-entry.js';
import { orderedMetadata } from './object-meta.js';
import { isObject } from './patch.js';

/**
 * How objects are rendered: whole, or as PartialObjectMetadata of the `meta.k8s.io` version
 * named (1.20 serves v1 and v1beta1).
 */
export type View = 'full' | 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

/** Renders an object for a response in the requested view and apiVersion. */
export function renderObject(entry: Entry, apiVersion: string, view: View): string {
  if (view !== 'full') {
    return JSON.stringify({
      kind: 'PartialObjectMetadata',
      apiVersion: view,
      // A typed Go struct, so in field order even for a custom resource (stored sorted).
      metadata: isObject(entry.obj.metadata) ? orderedMetadata(entry.obj.metadata) : {},
    });
  }
  // Custom resources served at several versions are stored at one.
  if (entry.obj.apiVersion === apiVersion) return entry.json;
  if (entry.obj.kind === 'Event' && apiVersion.startsWith('events.k8s.io/'))
    return JSON.stringify(eventsApiFromCoreEvent(entry.obj, apiVersion));
  return JSON.stringify({ ...entry.obj, apiVersion });
}

/**
 * Renders an item of a list. kube-apiserver 1.20 lists built-in objects without `kind` and
 * `apiVersion` (the list's own name them: Go's typed items have them cleared on decode), while
 * custom resources keep theirs, being stored and served as unstructured JSON.
 */
export function renderListItem(
  entry: Entry,
  apiVersion: string,
  view: View,
  custom: boolean,
): string {
  const json = renderObject(entry, apiVersion, view);
  if (view !== 'full' || custom) return json;
  // Stored objects start with kind and apiVersion, so most items lose them without a parse.
  const typeMeta = /^\{"kind":"[^"\\]*","apiVersion":"[^"\\]*",?/.exec(json);
  if (typeMeta) return `{${json.slice(typeMeta[0].length)}`;
  const {
    kind: _kind,
    apiVersion: _apiVersion,
    ...rest
  } = JSON.parse(json) as Record<string, unknown>;
  return JSON.stringify(rest);
}
