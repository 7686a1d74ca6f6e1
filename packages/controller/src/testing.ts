/**
 * Test support for reconcilers: {@link startInMemoryTestEnv}, the in-memory API server of
 * `@kubets/apiserver` to reconcile against; a {@link ReconcileContext} over objects you give, to
 * call a reconciler without a server; a lister over the same objects; a recorder that keeps
 * its Events.
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { type HasObjectMeta, type Logger, silentLogger } from '@kubets/apimachinery';
import { metaNamespaceIndexFunc, namespaceIndex, newIndexer } from '@kubets/cache';
import { type GenericLister, newGenericLister } from '@kubets/listers';
import type { EventRecorder } from '@kubets/record';
import { cachedObject } from './cached.js';
import { discardingEventRecorder } from './event-recorder.js';
import type { ReconcileContext } from './reconciler.js';
import type { ReconcileRequest } from './request.js';

export { type CapturedEvents, captureEvents } from './captured-events.js';
export {
  startInMemoryTestEnv,
  type TestEnv,
  type TestEnvOptions,
  type TestReconcileOptions,
} from './test-env.js';

/**
 * A lister over `objects`, as a controller's cache would hold them: `get` throws a
 * NotFound `StatusError` naming `resource` for a missing object.
 */
export function listerOf<T extends HasObjectMeta>(
  objects: readonly T[] = [],
  resource: { group: string; resource: string } = { group: '', resource: 'objects' },
): GenericLister<T> {
  const indexer = newIndexer<T>(undefined, { [namespaceIndex]: metaNamespaceIndexFunc });
  for (const object of objects) indexer.add(object);
  return newGenericLister(indexer, resource) as GenericLister<T>;
}

/** Options of {@link newTestContext}. */
export interface TestContextOptions<T> {
  /** What the cache holds: `ctx.cached()` and `ctx.lister` read these. */
  objects?: readonly T[];
  /** The lister instead of one over `objects`. */
  lister?: GenericLister<T>;
  /** The context's signal; default one that never aborts. */
  signal?: AbortSignal;
  /** Where the reconciler logs; default silent. */
  logger?: Logger;
  /** The controller name the reconciler sees. Default `test`. */
  controller?: string;
  /** The reconciler's `ctx.recorder`; default one that drops every event. */
  recorder?: EventRecorder | undefined;
}

/**
 * The context a controller would pass when reconciling `request`, over a cache holding
 * `options.objects`: call a reconciler with it directly in a unit test.
 *
 * ```ts
 * const ctx = newTestContext(request, { objects: [configMap] });
 * await reconcile(request, ctx);
 * ```
 */
export function newTestContext<T extends HasObjectMeta>(
  request: ReconcileRequest,
  options: TestContextOptions<T> = {},
): ReconcileContext<T> {
  const lister = options.lister ?? listerOf(options.objects ?? []);
  return {
    signal: options.signal ?? new AbortController().signal,
    reconcileID: randomUUID(),
    logger: options.logger ?? silentLogger,
    controller: options.controller ?? 'test',
    lister,
    cached: () => cachedObject(lister, request),
    recorder: options.recorder ?? discardingEventRecorder,
  };
}
