import { Readable } from 'node:stream';
import { eventually, type StubServer, startStubServer } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';
import {
  decodeWatchEvents,
  defaultMaxWatchEventBytes,
  type WatchConnection,
  type WatchEvent,
  WatchStream,
} from './watch.js';

interface Named {
  metadata: { name: string };
}

const added = (name: string) => `{"type":"ADDED","object":{"metadata":{"name":"${name}"}}}\n`;

async function collect<T>(source: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  for await (const event of source) events.push(event);
  return events;
}

function errorMessage(event: WatchEvent<unknown> | undefined): string {
  if (event?.type !== 'ERROR') throw new Error(`expected an ERROR event, got ${event?.type}`);
  return event.object.message ?? '';
}

/**
 * A body that sends `prefix`, then the start of an event that never ends, `chunkSize`
 * bytes at a time, generated as it is read; counts what was read so a test can tell the
 * decoder stopped reading.
 */
function endlessEvent(
  prefix: string,
  chunkSize: number,
): { body: Readable; bytesRead: () => number; destroyed: () => boolean } {
  let bytesRead = 0;
  let sentPrefix = false;
  const filler = Buffer.alloc(chunkSize, 'x');
  const body = new Readable({
    read() {
      if (!sentPrefix) {
        sentPrefix = true;
        const head = Buffer.from(`${prefix}{"type":"ADDED","object":{"data":"`);
        bytesRead += head.length;
        this.push(head);
        return;
      }
      bytesRead += filler.length;
      this.push(filler);
    },
  });
  return { body, bytesRead: () => bytesRead, destroyed: () => body.destroyed };
}

describe('the watch event size cap', () => {
  it('ends a WatchStream with one ERROR naming the cap when a line outgrows it across many chunks', async () => {
    const { body, bytesRead, destroyed } = endlessEvent(added('before'), 100);
    let closed = 0;
    const watch = new WatchStream<Named>({
      body,
      close: () => {
        closed++;
        body.destroy();
      },
      maxEventBytes: 1024,
    });
    const events = await collect(watch);
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'ERROR']);
    expect(events[0]?.object).toEqual({ metadata: { name: 'before' } });
    expect(events[1]?.object).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
    });
    expect(errorMessage(events[1])).toMatch(/^watch event larger than 1024 bytes/);
    // The excerpt says what was being sent, without holding the whole line.
    expect(events[1]?.type === 'ERROR' && events[1].object.details?.causes?.[0]?.message).toMatch(
      /^\{"type":"ADDED","object":\{"data":"x+\.\.\.$/,
    );
    expect(closed).toBeGreaterThanOrEqual(1);
    expect(destroyed()).toBe(true);
    // Reading stopped at the cap (plus the read-ahead of one stream buffer), not later.
    expect(bytesRead()).toBeLessThan(1024 + 64 * 1024);
  });

  it('ends decodeWatchEvents the same way and stops reading its source', async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      yield Buffer.from(added('a'));
      for (;;) {
        pulled++;
        yield Buffer.alloc(100, 'y');
      }
    }
    const events = await collect(decodeWatchEvents<Named>(source(), { maxEventBytes: 1024 }));
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'ERROR']);
    expect(errorMessage(events[1])).toMatch(/^watch event larger than 1024 bytes/);
    expect(pulled).toBe(11); // the 11th chunk of 100 bytes crosses 1024
  });

  it('counts bytes, not characters: a line of exactly the cap passes, one byte more does not', async () => {
    // "日" is 3 bytes of UTF-8 but one character.
    const line = (bytes: number): string => {
      const head = '{"type":"ADDED","object":{"metadata":{"name":"';
      const tail = '"}}}';
      const room = bytes - Buffer.byteLength(head + tail);
      return `${head}${'日'.repeat(Math.floor(room / 3))}${'a'.repeat(room % 3)}${tail}`;
    };
    const cap = 3000;
    expect(Buffer.byteLength(line(cap))).toBe(cap);
    const bytes = Buffer.from(`${line(cap)}\n${line(cap + 1)}\n${added('after')}`);
    // Split everywhere the interesting cases are: inside characters, across the newline.
    const pieces = [bytes.subarray(0, 1001), bytes.subarray(1001, 4500), bytes.subarray(4500)];
    const events = await collect(
      decodeWatchEvents<Named>(Readable.from(pieces), { maxEventBytes: cap }),
    );
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'ERROR']);
    expect(errorMessage(events[1])).toMatch(/^watch event larger than 3000 bytes/);
    // The same holds when a too-long line arrives whole inside one chunk.
    const whole = await collect(
      decodeWatchEvents<Named>(Readable.from([bytes]), { maxEventBytes: cap }),
    );
    expect(whole.map((event) => event.type)).toEqual(['ADDED', 'ERROR']);
  });

  it('caps at 16 MiB by default: 17 MiB without a newline is an ERROR, not a crash', async () => {
    expect(defaultMaxWatchEventBytes).toBe(16 * 1024 * 1024);
    const { body, bytesRead } = endlessEvent('', 64 * 1024);
    const watch = new WatchStream<Named>({ body, close: () => body.destroy() });
    const events = await collect(watch);
    expect(events).toHaveLength(1);
    expect(errorMessage(events[0])).toMatch(/^watch event larger than 16777216 bytes/);
    expect(bytesRead()).toBeGreaterThan(defaultMaxWatchEventBytes);
    expect(bytesRead()).toBeLessThan(17 * 1024 * 1024);
  });

  it('refuses a cap that is not a positive number', () => {
    const connection: WatchConnection = { body: Readable.from([]), close: () => {} };
    expect(() => new WatchStream({ ...connection, maxEventBytes: 0 })).toThrow(RangeError);
    expect(() => new WatchStream({ ...connection, maxEventBytes: Number.NaN })).toThrow(RangeError);
  });

  it('turns a failure inside the data handler into an ERROR event', async () => {
    // A chunk the UTF-8 decoder rejects: the throw happens in the stream's 'data' handler,
    // where it would be uncaught.
    const body = Readable.from([added('a'), 42], { objectMode: true });
    let closed = 0;
    const events = await collect(
      new WatchStream<Named>({ body: body as Readable, close: () => void closed++ }),
    );
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'ERROR']);
    expect(errorMessage(events[1])).toMatch(/^unable to decode the watch stream: /);
    expect(closed).toBe(1);
  });
});

describe('Request.watch() and the event size cap', () => {
  const servers: StubServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  /** A server whose watch sends one event, then an event that never ends. */
  async function endlessWatchServer(): Promise<{ server: StubServer; closed: () => number }> {
    let closed = 0;
    const server = await startStubServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write(added('first'));
      response.write('{"type":"ADDED","object":{"data":"');
      const timer = setInterval(() => response.write('z'.repeat(512)), 1);
      response.once('close', () => {
        clearInterval(timer);
        closed++;
      });
    });
    servers.push(server);
    return { server, closed: () => closed };
  }

  it('applies the cap of the call, else the client, and closes the connection', async () => {
    const { server, closed } = await endlessWatchServer();
    const client = new RESTClient(
      { host: server.url, qps: -1 },
      { groupVersion: 'v1', maxWatchEventBytes: 4096 },
    );
    const fromClient = await collect(await client.get().resource('pods').watch<Named>());
    expect(fromClient.map((event) => event.type)).toEqual(['ADDED', 'ERROR']);
    expect(errorMessage(fromClient[1])).toMatch(/^watch event larger than 4096 bytes/);

    const fromCall = await collect(
      await client.get().resource('pods').watch<Named>({ maxEventBytes: 2048 }),
    );
    expect(errorMessage(fromCall[1])).toMatch(/^watch event larger than 2048 bytes/);
    // The server sees both connections go away.
    await eventually(() => closed() === 2, { timeoutMs: 10_000 });
  });

  it('refuses a bad cap before sending anything', async () => {
    const { server } = await endlessWatchServer();
    const client = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
    await expect(client.get().resource('pods').watch({ maxEventBytes: -1 })).rejects.toThrow(
      RangeError,
    );
    expect(server.requests).toHaveLength(0);
    expect(
      () => new RESTClient({ host: server.url }, { groupVersion: 'v1', maxWatchEventBytes: 0 }),
    ).toThrow(RangeError);
  });
});
