import { type Clock, realClock } from '@kubets/apimachinery';
import { ApiStorage } from './api-storage.js';
import { FaultState } from './faults.js';
import { PodLogState } from './podlogs.js';
import { WatchStream } from './watch-stream.js';

/** What the route handlers of one server share: its storage, faults, open watches and logs. */
export class ServerState {
  readonly storage: ApiStorage;
  readonly faults: FaultState;
  readonly streams = new Set<WatchStream>();
  readonly podLogs: PodLogState;
  readonly bookmarkIntervalMs: number;
  readonly maxRequestBytes: number;
  /** Times the waits of reads at a resourceVersion ahead of the server's. */
  readonly clock: Clock;
  /** Known once listening; discovery advertises it. */
  port = 0;

  constructor(options: {
    historySize?: number | undefined;
    revisionHistory?: number | undefined;
    clock?: Clock | undefined;
    bookmarkIntervalMs?: number | undefined;
    maxRequestBytes?: number | undefined;
    namespaceController?: boolean | undefined;
    garbageCollector?: boolean | undefined;
  }) {
    this.storage = new ApiStorage({
      historySize: options.historySize ?? 10_000,
      revisionHistory: options.revisionHistory ?? 10_000,
      namespaceController: options.namespaceController,
      garbageCollector: options.garbageCollector,
    });
    this.clock = options.clock ?? realClock;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 10_000;
    this.maxRequestBytes = options.maxRequestBytes ?? 3 * 1024 * 1024;
    this.faults = new FaultState({
      closeWatches: () => {
        for (const stream of [...this.streams]) stream.close();
      },
      compact: () => this.storage.compact(),
      resume: () => {
        for (const stream of this.streams) stream.flush();
      },
    });
    const pods = this.storage.registry.lookup('', 'v1', 'pods');
    if (!pods) throw new Error('the pods resource is not registered');
    this.podLogs = new PodLogState(this.storage.storeOf(pods));
    this.storage.hooks.resourceRemoved = (store) => {
      for (const sink of store.watchers()) if (sink instanceof WatchStream) sink.close();
    };
  }
}
