import { beforeAll, describe } from 'vitest';
import { defineContractSuite } from '../../test/contract.js';
import { defineGarbageCollectorContract } from '../../test/contract-gc.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

describe('contract: in-memory API server', () => {
  let server: InMemoryApiServer;
  // The function beforeAll returns runs after all the tests, as afterAll would.
  beforeAll(async () => {
    server = await startApiServer({ namespaceController: true });
    return () => server.stop();
  });

  defineContractSuite(() => ({
    host: server.host,
    compact: async () => server.faults.compact(),
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
