import { PassThrough } from 'node:stream';
import { isStatusError, watchErrorToStatusError } from '@kubets/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  decodeWatchEvents,
  isWatchStreamBroken,
  type WatchEvent,
  WatchStream,
  watchStreamBrokenEvent,
} from './watch.js';

interface Named {
  metadata: { name: string };
}

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    yield typeof part === 'string' ? new TextEncoder().encode(part) : part;
  }
}

async function collect<T>(source: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  for await (const event of source) events.push(event);
  return events;
}

const payload = [
  '{"type":"ADDED","object":{"metadata":{"name":"crème-brûlée"}}}',
  '',
  '{"type":"MODIFIED","object":{"metadata":{"name":"日本語"}}}',
  '{"type":"BOOKMARK","object":{"metadata":{"name":"🔖"}}}',
  '{"type":"DELETED","object":{"metadata":{"name":"c"}}}',
].join('\n');

describe('decodeWatchEvents', () => {
  const expected = [
    { type: 'ADDED', object: { metadata: { name: 'crème-brûlée' } } },
    { type: 'MODIFIED', object: { metadata: { name: '日本語' } } },
    { type: 'BOOKMARK', object: { metadata: { name: '🔖' } } },
    { type: 'DELETED', object: { metadata: { name: 'c' } } },
  ];

  it('decodes the same events wherever the byte stream is split', async () => {
    const bytes = new TextEncoder().encode(`${payload}\n`);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const events = await collect(
        decodeWatchEvents<Named>(chunks(bytes.slice(0, cut), bytes.slice(cut))),
      );
      expect(events, `split at byte ${cut}`).toEqual(expected);
    }
  });

  it('decodes a stream delivered one byte at a time', async () => {
    const bytes = new TextEncoder().encode(`${payload}\n`);
    const single = [...bytes].map((byte) => Uint8Array.of(byte));
    expect(await collect(decodeWatchEvents<Named>(chunks(...single)))).toEqual(expected);
  });

  it('accepts a last event without a trailing newline', async () => {
    expect(await collect(decodeWatchEvents<Named>(chunks(payload)))).toEqual(expected);
  });

  it('passes ERROR events through with their Status', async () => {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version: 1 (5)',
    };
    const [event] = await collect(
      decodeWatchEvents(chunks(`${JSON.stringify({ type: 'ERROR', object: status })}\n`)),
    );
    expect(event).toEqual({ type: 'ERROR', object: status });
    if (event?.type !== 'ERROR') throw new Error('expected an ERROR event');
    const error = watchErrorToStatusError(event);
    expect(isStatusError(error)).toBe(true);
    expect(error.code).toBe(410);
    expect(error.reason).toBe('Expired');
  });

  it('reports a malformed line as an ERROR event and keeps decoding', async () => {
    const events = await collect(
      decodeWatchEvents<Named>(
        chunks(
          '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"ADD',
          'ED",\n',
          '{"type":"DELETED","object":{"metadata":{"name":"a"}}}\n',
        ),
      ),
    );
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'ERROR', 'DELETED']);
    const failure = events[1];
    if (failure?.type !== 'ERROR') throw new Error('expected an ERROR event');
    expect(failure.object).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
    });
    expect(failure.object.message).toMatch(/^unable to decode an event from the watch stream: /);
    expect(failure.object.details?.causes?.[0]?.message).toBe('{"type":"ADDED",');
  });

  it('reports a stream cut in the middle of an event', async () => {
    const events = await collect(
      decodeWatchEvents<Named>(
        chunks('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MODI'),
      ),
    );
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'ERROR']);
    expect(events[1]?.object).toMatchObject({
      reason: 'InternalError',
      message: expect.stringMatching(/^the watch stream ended in the middle of an event/),
    });
    expect(isWatchStreamBroken(events[1])).toBe(true);
  });

  it('reports events of the wrong shape or an unknown type', async () => {
    const events = await collect(
      decodeWatchEvents(chunks('[1,2]\n{"type":"ADDED"}\n{"type":"EXPLODED","object":{}}\n')),
    );
    expect(events.map((event) => event.type)).toEqual(['ERROR', 'ERROR', 'ERROR']);
    expect(events[2]?.object).toMatchObject({ message: expect.stringContaining('"EXPLODED"') });
  });

  it('reads incrementally instead of waiting for the end of the stream', async () => {
    let releaseSecond: () => void = () => {};
    const secondAllowed = new Promise<void>((resolve) => {
      releaseSecond = resolve;
    });
    async function* slowSource(): AsyncGenerator<string> {
      yield '{"type":"ADDED","object":{"metadata":{"name":"first"}}}\n';
      await secondAllowed;
      yield '{"type":"ADDED","object":{"metadata":{"name":"second"}}}\n';
    }
    const events = decodeWatchEvents<Named>(slowSource());
    const first = await events.next();
    expect(first.value).toEqual({ type: 'ADDED', object: { metadata: { name: 'first' } } });
    releaseSecond();
    expect((await events.next()).value?.object).toEqual({ metadata: { name: 'second' } });
    expect((await events.next()).done).toBe(true);
  });
});

describe('WatchStream', () => {
  function neverEndingConnection(): {
    closed: () => boolean;
    finished: () => boolean;
    connection: ConstructorParameters<typeof WatchStream>[0];
  } {
    let closed = false;
    let finished = false;
    let fail: (err: Error) => void = () => {};
    const broken = new Promise<never>((_, reject) => {
      fail = reject;
    });
    // Nobody may be reading when the connection closes; that is not an unhandled failure.
    broken.catch(() => {});
    async function* body(): AsyncGenerator<string> {
      yield '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n';
      await broken;
    }
    return {
      closed: () => closed,
      finished: () => finished,
      connection: {
        body: body(),
        close: () => {
          closed = true;
          fail(new Error('socket destroyed'));
        },
        onFinished: () => {
          finished = true;
        },
      },
    };
  }

  it('stop() ends a pending iteration quietly and closes the connection', async () => {
    const { connection, closed, finished } = neverEndingConnection();
    const watch = new WatchStream<Named>(connection);
    expect((await watch.next()).value).toMatchObject({ type: 'ADDED' });
    const pending = watch.next();
    watch.stop();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(closed()).toBe(true);
    expect(finished()).toBe(true);
    expect(watch.stopped).toBe(true);
  });

  it('leaving a for-await loop closes the connection', async () => {
    const { connection, closed } = neverEndingConnection();
    const watch = new WatchStream<Named>(connection);
    for await (const event of watch) {
      expect(event.type).toBe('ADDED');
      break;
    }
    expect(closed()).toBe(true);
  });

  describe('rewriteEventText', () => {
    // A hook that parses `"big":0` in place of the `{"x":1}` it holds, and puts one shared
    // object back where `finish` finds the 0.
    const shared = { x: 1 };
    const cut = (line: string): string => line.replace('"big":{"x":1}', '"big":0');
    function watchWith(
      lines: string[],
      rewrite: (line: string) => { text: string; finish(object: Big): Big | undefined } | undefined,
    ): WatchStream<Big> {
      return new WatchStream<Big>({
        // The last line without its newline, split across chunks.
        body: chunks(lines.join('\n').slice(0, 9), lines.join('\n').slice(9)),
        close: () => {},
        rewriteEventText: rewrite as never,
      });
    }
    interface Big {
      metadata: { name: string };
      big?: unknown;
    }
    const putBack = (object: Big): Big | undefined => {
      if (object.big !== 0) return undefined;
      object.big = shared;
      return object;
    };

    it('parses the text it returns and delivers what finish makes of the object', async () => {
      const lines = [
        '{"type":"ADDED","object":{"metadata":{"name":"a"},"big":{"x":1}}}',
        '{"type":"MODIFIED","object":{"metadata":{"name":"b"},"big":{"x":1}}}',
      ];
      const seen: string[] = [];
      const events = await collect(
        watchWith(lines, (line) => {
          seen.push(line);
          return { text: cut(line), finish: putBack };
        }),
      );
      expect(seen).toEqual(lines);
      expect(events).toEqual(lines.map((line) => JSON.parse(line)));
      for (const event of events) expect((event.object as Big).big).toBe(shared);
    });

    it('parses the original line when the rewrite does not hold', async () => {
      const lines = [
        // Nothing to rewrite.
        '{"type":"ADDED","object":{"metadata":{"name":"a"}}}',
        // finish refuses the object: the line held 0 of its own.
        '{"type":"MODIFIED","object":{"metadata":{"name":"b"},"big":0}}',
        // The rewritten text does not parse.
        '{"type":"MODIFIED","object":{"metadata":{"name":"c"},"big":{"x":1}}}',
        // The rewritten text holds an ERROR or a BOOKMARK event: finish never sees a Status.
        '{"type":"ERROR","object":{"kind":"Status","code":410,"big":{"x":1}}}',
        '{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7"},"big":{"x":1}}}',
      ];
      const finished: unknown[] = [];
      const events = await collect(
        watchWith(lines, (line) => {
          if (!line.includes('"big"')) return undefined;
          return {
            text: line.includes('"c"') ? `${cut(line)}}` : cut(line),
            finish: (object) => {
              finished.push(structuredClone(object));
              return object.metadata.name === 'b' ? undefined : putBack(object);
            },
          };
        }),
      );
      expect(events).toEqual(lines.map((line) => JSON.parse(line)));
      for (const event of events) expect((event.object as Big).big).not.toBe(shared);
      expect(finished).toEqual([{ metadata: { name: 'b' }, big: 0 }]);
    });
  });

  it('a connection breaking mid-stream yields one ERROR event, then the end', async () => {
    async function* body(): AsyncGenerator<string> {
      yield '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MOD';
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    }
    const events = await collect(new WatchStream<Named>({ body: body(), close: () => {} }));
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'ERROR']);
    expect(events[1]?.object).toMatchObject({ message: 'the watch stream broke: aborted' });
    expect(isWatchStreamBroken(events[1])).toBe(true);
  });

  it('marks the ERROR events it makes up for a broken stream, and only those', async () => {
    const [undecodable] = await collect(decodeWatchEvents<Named>(chunks('{"type":\n')));
    const broken = watchStreamBrokenEvent<Named>('the watch stream broke: socket hang up');
    if (broken.type !== 'ERROR') throw new Error('expected an ERROR event');
    const fromServer: WatchEvent<Named> = { type: 'ERROR', object: { ...broken.object } };
    expect(undecodable?.type).toBe('ERROR');
    expect(isWatchStreamBroken(undecodable)).toBe(false);
    // The same words from a server (a copied Status) are the server's verdict, not a break.
    expect(isWatchStreamBroken(fromServer)).toBe(false);
    expect(isWatchStreamBroken(broken)).toBe(true);
    expect(isWatchStreamBroken(broken.object)).toBe(true);
    expect(isWatchStreamBroken(watchErrorToStatusError(broken))).toBe(true);
    // The mark is not part of the Status as serialised or compared.
    expect(JSON.parse(JSON.stringify(broken.object))).toEqual(broken.object);
    expect(isWatchStreamBroken(undefined)).toBe(false);
    expect(isWatchStreamBroken(new Error('the watch stream broke'))).toBe(false);
  });

  it('decodes every event of a chunk at once and pauses reading while many wait', async () => {
    const line = (i: number) => `{"type":"ADDED","object":{"metadata":{"name":"p${i}"}}}\n`;
    const body = new PassThrough();
    const watch = new WatchStream<Named>({ body, close: () => body.destroy() });
    body.write(Array.from({ length: 300 }, (_, i) => line(i)).join(''));
    body.write(line(300));
    await new Promise((resolve) => setImmediate(resolve));
    // 300 events wait for the consumer: the connection is no longer read.
    expect(body.isPaused()).toBe(true);
    body.end(line(301));
    const names = (await collect(watch)).map((event) => (event.object as Named).metadata.name);
    expect(names).toEqual(Array.from({ length: 302 }, (_, i) => `p${i}`));
  });

  it('tryNext hands over the events of a read without waiting, and resumes a paused read', async () => {
    const line = (i: number) => `{"type":"ADDED","object":{"metadata":{"name":"p${i}"}}}\n`;
    const body = new PassThrough();
    const watch = new WatchStream<Named>({ body, close: () => body.destroy() });
    expect(watch.tryNext()).toBeUndefined();
    body.write(Array.from({ length: 300 }, (_, i) => line(i)).join(''));
    await new Promise((resolve) => setImmediate(resolve));
    expect(body.isPaused()).toBe(true);
    const first = await watch.next();
    const names = [((first.value as WatchEvent<Named>).object as Named).metadata.name];
    for (let e = watch.tryNext(); e !== undefined; e = watch.tryNext()) {
      names.push((e.object as Named).metadata.name);
    }
    expect(names).toEqual(Array.from({ length: 300 }, (_, i) => `p${i}`));
    // Every buffered event taken: reading goes on.
    expect(body.isPaused()).toBe(false);
    // A waiting next() comes first: tryNext takes nothing from under it.
    const waiting = watch.next();
    expect(watch.tryNext()).toBeUndefined();
    body.end(line(300));
    expect((((await waiting).value as WatchEvent<Named>).object as Named).metadata.name).toBe(
      'p300',
    );
    expect(watch.tryNext()).toBeUndefined();
    expect(await watch.next()).toEqual({ done: true, value: undefined });
  });

  /** A watch over a writable body, with the signal it stops on and a count of its finishes. */
  function abortableWatch() {
    const body = new PassThrough();
    const abort = new AbortController();
    const counts = { finished: 0 };
    const open = () =>
      new WatchStream<Named>({
        body,
        close: () => body.destroy(),
        signal: abort.signal,
        onFinished: () => void counts.finished++,
      });
    return { body, abort, counts, open };
  }

  it('ends quietly, dropping undelivered events, when the signal aborts', async () => {
    const { body, abort, counts, open } = abortableWatch();
    const watch = open();
    body.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    expect(await watch.next()).toEqual({ done: true, value: undefined });
    expect(body.destroyed).toBe(true);
    expect(counts.finished).toBe(1);
  });

  it('ends at once, connection closed, when its signal aborted before it was built', async () => {
    // As on Deno, whose node:https can hand over a response after the request was aborted.
    const { body, abort, counts, open } = abortableWatch();
    abort.abort();
    const watch = open();
    body.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
    expect(await watch.next()).toEqual({ done: true, value: undefined });
    expect(body.destroyed).toBe(true);
    expect(counts.finished).toBe(1);
  });

  it('await using disposes the watch', async () => {
    const { connection, closed } = neverEndingConnection();
    {
      await using watch = new WatchStream<Named>(connection);
      await watch.next();
    }
    expect(closed()).toBe(true);
  });
});
