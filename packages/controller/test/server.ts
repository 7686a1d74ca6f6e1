// One in-memory API server for all tests of a file (they keep apart by names and
// namespaces of their own), and an unthrottled clientset on it.

import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { Clientset } from '@kubets/clientset';
import { afterAll, beforeAll } from 'vitest';

/** The file's server and clientset, once `beforeAll` has run. */
export interface SharedServer {
  readonly server: InMemoryApiServer;
  readonly clientset: Clientset;
  /** Creates the namespace `name` on the server; resolves with its name. */
  createNamespace(name: string): Promise<string>;
}

/** Starts the server before the file's tests and stops it after them. */
export function useSharedApiServer(): SharedServer {
  let current: { server: InMemoryApiServer; clientset: Clientset } | undefined;
  beforeAll(async () => {
    const server = await startApiServer();
    current = { server, clientset: new Clientset({ host: server.host, qps: -1 }) };
  });
  afterAll(() => current?.server.stop());
  const running = () => {
    if (current === undefined) throw new Error('the server is not up yet: use it in a test');
    return current;
  };
  return {
    get server() {
      return running().server;
    },
    get clientset() {
      return running().clientset;
    },
    async createNamespace(name) {
      await running().clientset.coreV1().namespaces().create({ metadata: { name } });
      return name;
    },
  };
}
