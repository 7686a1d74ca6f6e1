// The REST client reports its own retries where a user sees them: the first at warn
// (connection lost) or info (Retry-After) level, at most one such line per 10 s in the
// process, every retry at debug level.
import type { Clock } from '@kubets/apimachinery';
import { startStubServer } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';

type Line = [level: string, message: string];

function memoryLogger() {
  const lines: Line[] = [];
  const at = (level: string) => (message: string) => void lines.push([level, message]);
  return {
    lines,
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
  };
}

/** A clock whose time the test sets; sleeps end at once. */
function settableClock(): Clock & { t: number } {
  const clock = {
    // Far from other tests' times: the throttle is process-wide.
    t: 1_000_000_000,
    now: () => clock.t,
    sleep: (_ms: number, signal?: AbortSignal) =>
      signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve(),
    setTimeout: () => {
      throw new Error('not used');
    },
  };
  return clock;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('retry logging', () => {
  it('logs the first Retry-After retry at info, the next within 10 s at debug, one after them at info again', async () => {
    let answers = 0;
    const server = await startStubServer((_request, response) => {
      answers++;
      if (answers % 3 !== 0) {
        response.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' });
        response.end('{"kind":"Status","code":429,"reason":"TooManyRequests"}');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    cleanups.push(() => server.close());
    const clock = settableClock();
    const { lines, logger } = memoryLogger();
    const client = new RESTClient(
      { host: server.url, qps: -1, logger },
      { groupVersion: 'v1', clock },
    );
    await client.get().resource('pods').do();
    expect(lines).toEqual([
      ['info', 'retrying after Retry-After'],
      ['debug', 'retrying after Retry-After'],
    ]);
    lines.length = 0;
    clock.t += 10_000;
    await client.get().resource('pods').do();
    expect(lines).toEqual([
      ['info', 'retrying after Retry-After'],
      ['debug', 'retrying after Retry-After'],
    ]);
  });

  it('logs the first retry of a lost connection at warn', async () => {
    let requests = 0;
    const server = await startStubServer((_request, response, raw) => {
      requests++;
      // The first attempt's connection is closed before any answer.
      if (requests === 1) {
        raw.socket.destroy();
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    cleanups.push(() => server.close());
    const clock = settableClock();
    clock.t += 100_000_000;
    const { lines, logger } = memoryLogger();
    const client = new RESTClient(
      { host: server.url, qps: -1, logger },
      { groupVersion: 'v1', clock },
    );
    await client.get().resource('pods').do();
    expect(lines).toEqual([['warn', 'retrying after a connection error']]);
  });
});
