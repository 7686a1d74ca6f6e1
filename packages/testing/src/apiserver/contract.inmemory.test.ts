import { afterAll, beforeAll, describe } from 'vitest';
import { defineContractSuite } from '../../test/contract.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

describe('contract: in-memory API server', () => {
  let server: InMemoryApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  defineContractSuite(() => ({
    host: server.host,
    compact: async () => server.faults.compact(),
    streamingLists: true,
    sendsBookmarks: true,
  }));
});
