import { eventsApiFromCoreEvent } from './event-versions.js';
import type { Entry } from './object-entry.js';

/** How objects are rendered: whole, or as `meta.k8s.io/v1` PartialObjectMetadata. */
export type View = 'full' | 'metadata';

/** Renders an object for a response in the requested view and apiVersion. */
export function renderObject(entry: Entry, apiVersion: string, view: View): string {
  if (view === 'metadata') {
    return JSON.stringify({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: entry.obj.metadata ?? {},
    });
  }
  // Custom resources served at several versions are stored at one.
  if (entry.obj.apiVersion === apiVersion) return entry.json;
  if (entry.obj.kind === 'Event' && apiVersion.startsWith('events.k8s.io/'))
    return JSON.stringify(eventsApiFromCoreEvent(entry.obj, apiVersion));
  return JSON.stringify({ ...entry.obj, apiVersion });
}
