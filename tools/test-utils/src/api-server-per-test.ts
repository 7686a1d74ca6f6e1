// A fresh in-memory API server (@kubets/apiserver) for every test of a file, as the tests of
// the informer factories use it: what one test created, faulted or left running never
// reaches the next.
import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { afterEach, beforeEach } from 'vitest';

/** What {@link useApiServerPerTest} gives the running test. */
export interface ApiServerPerTest {
  /** The test's API server. */
  readonly server: InMemoryApiServer;
  /** Aborted when the test ends: run factories and informers with its signal. */
  readonly controller: AbortController;
  /** Shuts `factory` down when the test ends, before the server stops; returns it. */
  track<F extends { shutdown(): Promise<void> }>(factory: F): F;
}

/**
 * Starts an API server before each test and runs `connect` with it (to make the test's
 * client). After the test it aborts the test's controller, shuts down every tracked factory
 * and waits for them, then stops the server.
 */
export function useApiServerPerTest(
  connect: (server: InMemoryApiServer) => void,
): ApiServerPerTest {
  let current: { server: InMemoryApiServer; controller: AbortController } | undefined;
  const tracked: { shutdown(): Promise<void> }[] = [];
  const running = () => {
    if (current === undefined) throw new Error('no test is running');
    return current;
  };
  beforeEach(async () => {
    const server = await startApiServer();
    current = { server, controller: new AbortController() };
    connect(server);
  });
  afterEach(async () => {
    const ended = current;
    current = undefined;
    ended?.controller.abort();
    await Promise.all(tracked.splice(0).map((f) => f.shutdown()));
    await ended?.server.stop();
  });
  return {
    get server() {
      return running().server;
    },
    get controller() {
      return running().controller;
    },
    track(factory) {
      tracked.push(factory);
      return factory;
    },
  };
}
