// The operator's test harness: an embedded API server (@kubets/testing) per test with the
// Mydemo CRD installed, a clientset, a records directory of the test's own, and
// `reconcile(name)`, which calls the reconciler once as the controller would (with
// @kubets/controller/testing's newTestContext), so a test reads: create objects, reconcile,
// look at what the server holds. `startOperator()` runs the whole controller on a Manager
// instead, for what only the watches show (owned objects changed behind its back).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type apiextensionsv1, Clientset } from '@kubets/clientset';
import { Manager, type Result } from '@kubets/controller';
import { newTestContext } from '@kubets/controller/testing';
import { loadConfig } from '@kubets/rest';
import { eventually, MemoryLogger } from '@kubets/test-utils';
import { type InMemoryApiServer, startApiServer } from '@kubets/testing';
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
    const server = await startApiServer();
    const config = loadConfig({ kubeconfig: server.kubeconfigPath });
    const clientset = new Clientset(config);
    await clientset
      .apiextensionsV1()
      .customResourceDefinitions()
      .create(readManifest<apiextensionsv1.CustomResourceDefinition>('crd/mydemo.yaml'));
    const dir = mkdtempSync(join(tmpdir(), 'mydemo-operator-test-'));
    const records = new DirectoryRecords(dir);
    const deps: OperatorDeps = {
      clientset,
      records: options.records?.(records) ?? records,
      now: () => new Date('2026-11-24T10:00:00Z'),
    };
    const logger = new MemoryLogger();
    const reconciler = mydemoReconciler(deps);
    const stopOperator = new AbortController();
    let running: Promise<void> | undefined;
    current = {
      server,
      clientset,
      mydemos: crddemoV1.mydemosClient(clientset, 'default'),
      records,
      logger,
      reconcile: async (name, signal) => {
        const request = { namespace: 'default', name };
        const ctx = newTestContext(request, { logger, ...(signal ? { signal } : {}) });
        return (await reconciler(request, ctx)) ?? undefined;
      },
      startOperator: async () => {
        const mgr = new Manager(config, { logger });
        addMydemoController(mgr, { records: deps.records, now: deps.now });
        running = mgr.start(stopOperator.signal);
        await waitUntilLeading(mgr, running);
        return mgr;
      },
      stop: async () => {
        stopOperator.abort();
        await running;
        await server.stop();
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

// The manager's caches have synced and its controllers run once it says it leads.
async function waitUntilLeading(mgr: Manager, running: Promise<void>): Promise<void> {
  let failed: { error: unknown } | undefined;
  running.catch((error: unknown) => {
    failed = { error };
  });
  await eventually(
    () => {
      if (failed) throw failed.error;
      return mgr.isLeader();
    },
    { what: 'the manager to run its controllers' },
  );
}
