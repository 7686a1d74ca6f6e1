// client-go's rest/watch/decoder_test.go, ported: each event type decodes to itself and its
// object, and the stream then ends (Go's decoder answers the next Decode with io.EOF, which
// its StreamWatcher takes as the end); a source closed before any event ends the watch.
// encoder_test.go is not ported: kubets only decodes watch streams.

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type WatchEvent, WatchStream } from './watch.js';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo' } };

async function collect<T>(source: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  for await (const event of source) events.push(event);
  return events;
}

function watchOver(body: PassThrough): WatchStream<typeof pod> {
  return new WatchStream<typeof pod>({ body, close: () => body.destroy() });
}

describe('TestDecoder', () => {
  it.each(['ADDED', 'DELETED', 'MODIFIED', 'ERROR', 'BOOKMARK'])('%s', async (eventType) => {
    const source = new PassThrough();
    const watch = watchOver(source);
    source.end(`${JSON.stringify({ type: eventType, object: pod })}\n`);
    expect(await collect(watch)).toEqual([{ type: eventType, object: pod }]);
  });
});

describe('TestDecoder_SourceClose', () => {
  it('ends the watch when the source closes', async () => {
    const source = new PassThrough();
    const watch = watchOver(source);
    const events = collect(watch);
    source.end();
    expect(await events).toEqual([]);
  });
});
