import { setImmediate as nextTurn } from 'node:timers/promises';
import { FakeClock } from '@kubets/apimachinery/testing';
import { beforeAll, describe } from 'vitest';
import { defineContractSuite } from '../test/contract.js';
import { defineGarbageCollectorContract } from '../test/contract-gc.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

describe('contract: in-memory API server', () => {
  let server: InMemoryApiServer;
  // Reads at a future resourceVersion wait on it: they end only when a test moves it.
  const clock = new FakeClock();
  // The function beforeAll returns runs after all the tests, as afterAll would.
  beforeAll(async () => {
    server = await startApiServer({ namespaceController: true, clock });
    return () => server.stop();
  });

  defineContractSuite(() => ({
    host: server.host,
    compact: async () => server.compact(),
    elapseReadWait: async () => {
      // The read is in flight until the server has set its timer.
      while (clock.pending === 0) await nextTurn();
      clock.step(3_000);
    },
    streamingLists: true,
    sendsBookmarks: true,
    namespaceController: true,
    garbageCollector: false,
  }));
});

describe('contract: in-memory API server with the garbage collector', () => {
  let server: InMemoryApiServer;
  beforeAll(async () => {
    server = await startApiServer({ garbageCollector: true });
    return () => server.stop();
  });

  defineGarbageCollectorContract(() => ({ host: server.host, garbageCollector: true }));
});
