// Managers on the file's in-memory API server, each on a namespace of its own, stopped after
// each test.
import { afterEach } from 'vitest';
import { Manager, type ReconcileRequest } from '../src/index.js';
import type { SharedServer } from './server.js';

/** A manager of {@link useManagers}, and what the controllers given `record` reconciled. */
export interface TestManager {
  readonly mgr: Manager;
  /** The namespace the manager watches, made for it. */
  readonly namespace: string;
  /** `namespace/name` of every request `record` was given. */
  readonly reconciled: string[];
  /** A reconciler that records its requests in `reconciled`. */
  readonly record: (request: ReconcileRequest) => void;
  /** Starts the manager; it is stopped after the test. */
  readonly start: () => Promise<void>;
  /** Stops the manager. */
  readonly abort: AbortController;
}

/** Registers the stop of every manager after each test; returns what makes one. */
export function useManagers(shared: SharedServer): () => Promise<TestManager> {
  let counter = 0;
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });
  return async () => {
    const namespace = await shared.createNamespace(`ns-${++counter}`);
    const mgr = new Manager({ host: shared.server.host, qps: -1 }, { namespace });
    const reconciled: string[] = [];
    const record = (request: ReconcileRequest) => {
      reconciled.push(`${request.namespace}/${request.name}`);
    };
    const abort = new AbortController();
    let running: Promise<void> | undefined;
    const start = () => {
      running = mgr.start(abort.signal);
      return running;
    };
    stops.push(async () => {
      abort.abort();
      await running?.catch(() => {});
    });
    return { mgr, namespace, reconciled, record, start, abort };
  };
}
