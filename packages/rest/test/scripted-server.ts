// Stub servers for the ported client-go request tests: one that plays a script of answers
// and counts the attempts, and one that answers every request with `200 {}`.
import { type StubServer, sendJson, startStubServer } from '@kubets/test-utils';
import { afterAll, beforeAll } from 'vitest';
import { RESTClient } from '../src/client.js';
import type { Config } from '../src/config.js';
import { recordingClock } from './helpers.js';

/**
 * One scripted answer per attempt: an HTTP answer; a connection closed before any answer
 * (Go's `io.EOF`), after part of the headers (`io.ErrUnexpectedEOF`) or reset (Go's
 * "connection reset by peer"); bytes that are not HTTP (an error no retry rule covers); or
 * `cancel`, the caller aborting while the attempt is in flight (Go's `context.Canceled`).
 */
export type Answer =
  | { code: number; headers?: Record<string, string>; body?: string }
  | 'eof'
  | 'partial'
  | 'reset'
  | 'garbage'
  | 'cancel';

/** What {@link scriptedServer} returns. */
export interface ScriptedServer {
  /**
   * A client whose requests get `script`'s answers, in order; a `cancel` answer aborts
   * `cancel`. Retry waits go to the client's recording clock: no real sleeps.
   */
  play(
    script: Answer[],
    config?: Partial<Config>,
    cancel?: AbortController,
  ): RESTClient & { readonly clock: ReturnType<typeof recordingClock> };
  /** Requests received since the last `play`. */
  attempts(): number;
}

/**
 * A stub server, started for the enclosing describe, that plays a script one answer per
 * request and counts the attempts, so a row states exactly how many requests client-go
 * would send.
 */
export function scriptedServer(): ScriptedServer {
  const state = {
    script: [] as Answer[],
    attempts: 0,
    cancel: undefined as AbortController | undefined,
  };
  let server: StubServer | undefined;
  beforeAll(async () => {
    server = await startStubServer((_request, response, raw) => {
      const answer = state.script[state.attempts++];
      if (answer === undefined || answer === 'eof') raw.socket.destroy();
      else if (answer === 'reset') raw.socket.resetAndDestroy();
      else if (answer === 'partial') raw.socket.end('HTTP/1.1 200 OK\r\nContent-Len');
      else if (answer === 'garbage') raw.socket.end('not http at all\r\n\r\n');
      else if (answer === 'cancel') {
        state.cancel?.abort();
        raw.socket.destroy();
      } else {
        response.writeHead(answer.code, answer.headers);
        response.end(answer.body ?? '');
      }
    });
  });
  afterAll(() => server?.close());
  return {
    play(script, config = {}, cancel = undefined) {
      state.script = script;
      state.attempts = 0;
      state.cancel = cancel;
      const clock = recordingClock();
      const client = new RESTClient(
        { host: server?.url ?? '', qps: -1, ...config },
        { groupVersion: 'v1', clock },
      );
      return Object.assign(client, { clock });
    },
    attempts: () => state.attempts,
  };
}

/** A JSON `Status` body. */
export const statusBody = (status: Record<string, unknown>): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', ...status });

/**
 * A stub server, started for the enclosing describe, answering every request `200 {}`, and
 * a client that talks to it without rate limiting (both available once the tests run).
 */
export function okServer(): { readonly server: StubServer; readonly client: RESTClient } {
  let server: StubServer | undefined;
  let client: RESTClient | undefined;
  beforeAll(async () => {
    server = await startStubServer((_request, response) => sendJson(response, 200, {}));
    client = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
  });
  afterAll(() => server?.close());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('okServer: used outside its describe');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get client() {
      return started(client);
    },
  };
}
