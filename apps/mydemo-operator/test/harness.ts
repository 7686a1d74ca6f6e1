// The operator's test harness on @kubets/controller/testing's startInMemoryTestEnv: an embedded API
// server per test with the Mydemo CRD installed, a records directory of the test's own, and
// `reconcile(name)`, which calls the reconciler once as the controller would, so a test
// reads: create objects, reconcile, look at what the server holds. `startOperator()` runs the
// whole controller on a Manager instead, for what only the watches show.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InMemoryApiServer } from '@kubets/apiserver';
import type { apiextensionsv1, Clientset, corev1 } from '@kubets/clientset';
import type { Manager, Result } from '@kubets/controller';
import { startInMemoryTestEnv } from '@kubets/controller/testing';
import { MemoryLogger } from '@kubets/test-utils';
import { afterEach, beforeEach } from 'vitest';
import { readManifest } from '../src/demo.ts';
import { crddemoV1 } from '../src/generated/index.ts';
import { addMydemoController, mydemoReconciler, type OperatorDeps } from '../src/operator.ts';
import { DirectoryRecords, type ExternalRecords } from '../src/records.ts';

/** What {@link useOperatorTest} gives the running test. */
export interface OperatorTest {
  readonly server: InMemoryApiServer;
  readonly clientset: Clientset;
  /** The Mydemo client of `default`. */
  readonly mydemos: crddemoV1.MydemoClient;
  /** The test's records directory. */
  readonly records: DirectoryRecords;
  /** Where the reconciler logged. */
  readonly logger: MemoryLogger;
  /** The Mydemo `default/<name>` as the cache the reconciler reads holds it. */
  cached(name: string): crddemoV1.Mydemo | undefined;
  /** The Events the reconciles recorded. */
  events(): Promise<corev1.Event[]>;
  /** Reconciles `default/<name>` once; `signal` is the context's (the controller's stop). */
  reconcile(name: string, signal?: AbortSignal): Promise<Result | undefined>;
  /** Runs the Mydemo controller on a Manager until the test ends; resolves once it runs. */
  startOperator(): Promise<Manager>;
}

/** Options of {@link useOperatorTest}. */
export interface OperatorTestOptions {
  /** Wraps the records the reconciler writes to, e.g. to inject failures. */
  readonly records?: (records: DirectoryRecords) => ExternalRecords;
}

/** An example Mydemo in `default`. */
export function mydemo(name: string, spec: crddemoV1.MydemoSpec): crddemoV1.Mydemo {
  return { apiVersion: 'crddemo.k8s.io/v1', kind: 'Mydemo', metadata: { name }, spec };
}

/** Sets up {@link OperatorTest} before each test and tears it down after it. */
export function useOperatorTest(options: OperatorTestOptions = {}): () => OperatorTest {
  let current: (OperatorTest & { stop(): Promise<void> }) | undefined;
  beforeEach(async () => {
    const logger = new MemoryLogger();
    const env = await startInMemoryTestEnv({
      crds: [readManifest<apiextensionsv1.CustomResourceDefinition>('crd/mydemo.yaml')],
      logger,
    });
    const dir = mkdtempSync(join(tmpdir(), 'mydemo-operator-test-'));
    const records = new DirectoryRecords(dir);
    const deps: OperatorDeps = {
      clientset: env.clientset,
      mydemoCache: env.informers.forResource(crddemoV1.mydemosResource).informer(),
      records: options.records?.(records) ?? records,
      now: () => new Date('2026-11-24T10:00:00Z'),
    };
    const reconciler = mydemoReconciler(deps);
    current = {
      server: env.server,
      clientset: env.clientset,
      mydemos: crddemoV1.mydemosClient(env.clientset, 'default'),
      records,
      logger,
      cached: (name) => deps.mydemoCache.getIndexer().getByKey(`default/${name}`),
      events: () => env.events(),
      reconcile: (name, signal) =>
        env.reconcile(
          crddemoV1.mydemosResource,
          reconciler,
          { namespace: 'default', name },
          {
            controller: 'mydemo',
            signal,
          },
        ),
      startOperator: () =>
        env.startManager((mgr) =>
          addMydemoController(mgr, { records: deps.records, now: deps.now }),
        ),
      stop: async () => {
        await env.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  return () => {
    if (current === undefined) throw new Error('no test is running');
    return current;
  };
}
