import type { ObjectList } from '@kubets/apimachinery';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chunksOf, makePodListBody } from '../test/bench-fixtures.js';
import { isResponseDecodeError, ResponseDecodeError } from './errors.js';
import { decodeListStream, defaultMaxListItemBytes, ListStreamDecoder } from './list-decode.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Decodes `chunks` synchronously through the push API. */
function decodeChunks<T = unknown>(chunks: readonly Uint8Array[]): ObjectList<T> {
  const decoder = new ListStreamDecoder<T>();
  for (const chunk of chunks) decoder.write(chunk);
  return decoder.end();
}

function decodeError(chunks: readonly Uint8Array[]): ResponseDecodeError {
  try {
    decodeChunks(chunks);
  } catch (err) {
    if (err instanceof ResponseDecodeError) return err;
    throw err;
  }
  throw new Error('expected a ResponseDecodeError');
}

const tricky = {
  kind: 'PodList',
  apiVersion: 'v1',
  items: [
    {
      metadata: {
        name: 'café-日本-🚀',
        annotations: { q: 'say "hi"', bs: 'C:\\dir\\', both: '\\"' },
      },
      spec: { nested: [[1, [2, { a: [] }]], {}, { b: { c: { d: null } } }], flags: [true, false] },
      braces: '{[}]"{',
      n: -1.5e3,
    },
    { metadata: { name: 'ß' }, data: { '': '\u0000\u001f\u2028', emoji: '👩‍👩‍👧' } },
    'a string item',
    42,
    null,
    [],
    {},
  ],
  metadata: { resourceVersion: '9001', continue: '' },
  extra: [1, 'two', { three: 3 }],
  count: 7,
  ok: true,
};

describe('ListStreamDecoder', () => {
  const compact = Buffer.from(JSON.stringify(tricky), 'utf8');
  const pretty = Buffer.from(`\n ${JSON.stringify(tricky, null, '\t  ')}\r\n  `, 'utf8');

  it('decodes a body split at every byte position', () => {
    for (const body of [compact, pretty]) {
      for (let at = 0; at <= body.length; at++) {
        const list = decodeChunks([body.subarray(0, at), body.subarray(at)]);
        expect(list, `split at ${at}`).toEqual(tricky);
      }
    }
  });

  it('decodes a body arriving one byte at a time, and in every chunk size', () => {
    for (let size = 1; size <= compact.length; size += size < 16 ? 1 : 7) {
      expect(decodeChunks(chunksOf(compact, size)), `chunks of ${size}`).toEqual(tricky);
    }
    expect(decodeChunks(chunksOf(pretty, 1))).toEqual(tricky);
  });

  it('splits inside multi-byte characters and escapes without corrupting them', () => {
    const body = Buffer.from(JSON.stringify({ items: [{ s: '🚀é\\"日' }] }), 'utf8');
    for (let a = 1; a < body.length; a++) {
      for (let b = a + 1; b < body.length; b++) {
        const list = decodeChunks([body.subarray(0, a), body.subarray(a, b), body.subarray(b)]);
        expect(list.items).toEqual([{ s: '🚀é\\"日' }]);
      }
    }
  });

  it('hands each item to onItem as soon as its closing brace arrives', () => {
    const body = Buffer.from(
      '{"kind":"L","items":[{"n":1},{"n":2},{"n":3}],"metadata":{"resourceVersion":"5"}}',
    );
    const seen: unknown[] = [];
    const decoder = new ListStreamDecoder<{ n: number }>({ onItem: (item) => seen.push(item) });
    decoder.write(body.subarray(0, body.indexOf('},{') + 1));
    expect(seen).toEqual([{ n: 1 }]);
    decoder.write(body.subarray(body.indexOf('},{') + 1, body.lastIndexOf(']')));
    expect(seen).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(decoder.itemsDecoded).toBe(3);
    decoder.write(body.subarray(body.lastIndexOf(']')));
    const list = decoder.end();
    expect(list.items).toEqual(seen);
    expect(list.metadata).toEqual({ resourceVersion: '5' });
  });

  it('keeps what reuseItem returns for an item, unparsed, and parses the others', () => {
    const item = (name: string, rv: string) => ({ metadata: { name, resourceVersion: rv } });
    const held = { ...item('b', '2'), held: true };
    const asked: unknown[] = [];
    const seen: unknown[] = [];
    const decoder = new ListStreamDecoder<object>({
      reuseItem: (identity) => {
        // The identity is only valid during the call: keep a copy.
        const { name, namespace, resourceVersion } = identity;
        asked.push({ name, namespace, resourceVersion });
        return identity.name === 'b' && identity.resourceVersion === '2' ? held : undefined;
      },
      onItem: (obj) => seen.push(obj),
    });
    const body = JSON.stringify({ items: [item('a', '1'), item('b', '2'), {}], metadata: {} });
    // Split inside b, so its bytes come from two chunks.
    const cut = body.indexOf('"b"');
    decoder.write(Buffer.from(body.slice(0, cut)));
    decoder.write(Buffer.from(body.slice(cut)));
    const list = decoder.end();
    expect(list.items).toEqual([item('a', '1'), held, {}]);
    expect(list.items[1]).toBe(held);
    expect(seen[1]).toBe(held);
    // Items without a name and resourceVersion are parsed without asking.
    expect(asked).toEqual([
      { name: 'a', resourceVersion: '1' },
      { name: 'b', resourceVersion: '2' },
    ]);
  });

  describe('setItemTypeMeta', () => {
    const decode = (body: unknown, options: { reuse?: object } = {}) => {
      const decoder = new ListStreamDecoder<Record<string, unknown>>({
        setItemTypeMeta: true,
        ...(options.reuse ? { reuseItem: () => options.reuse as Record<string, unknown> } : {}),
      });
      // One byte per chunk: the fields must be found however the body is split.
      for (const byte of Buffer.from(JSON.stringify(body))) decoder.write(Buffer.of(byte));
      return decoder.end().items;
    };
    const bare = { metadata: { name: 'a' }, data: { k: 'v' } };
    const cases: { name: string; body: unknown; want: unknown[]; keys?: string[] }[] = [
      {
        name: "gives bare items the list's kind without List and apiVersion, as their first fields",
        body: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: [bare] },
        want: [{ kind: 'ConfigMap', apiVersion: 'v1', ...bare }],
        keys: ['kind', 'apiVersion', 'metadata', 'data'],
      },
      {
        name: "leaves an item's own kind and apiVersion in place",
        body: {
          kind: 'List',
          apiVersion: 'v1',
          items: [{ kind: 'Secret', apiVersion: 'v2', ...bare }],
        },
        want: [{ kind: 'Secret', apiVersion: 'v2', ...bare }],
      },
      {
        name: 'a generic List gives its apiVersion only, once complete (its kind without List is empty)',
        body: { kind: 'List', apiVersion: 'v1', items: [bare] },
        want: [{ ...bare, apiVersion: 'v1' }],
        keys: ['metadata', 'data', 'apiVersion'],
      },
      {
        name: 'an item with its own kind only keeps it, and gets the apiVersion',
        body: { kind: 'PodList', apiVersion: 'v1', items: [{ kind: 'Mine', ...bare }] },
        want: [{ kind: 'Mine', apiVersion: 'v1', ...bare }],
      },
      {
        name: 'an empty object item',
        body: { kind: 'PodList', apiVersion: 'v1', items: [{}] },
        want: [{ kind: 'Pod', apiVersion: 'v1' }],
      },
      {
        name: 'items that are not objects are left alone',
        body: { kind: 'PodList', apiVersion: 'v1', items: [null, 'text', 42, []] },
        want: [null, 'text', 42, []],
      },
      {
        name: 'type meta that arrives after the items is set on them once the list is complete',
        body: { items: [bare, { kind: 'Mine', ...bare }], kind: 'PodList', apiVersion: 'v1' },
        want: [
          { ...bare, apiVersion: 'v1', kind: 'Pod' },
          { kind: 'Mine', ...bare },
        ],
        keys: ['metadata', 'data', 'apiVersion', 'kind'],
      },
      {
        name: "a kind longer than any real one is not copied into every item's text",
        body: { kind: `${'K'.repeat(513)}List`, apiVersion: 'v1', items: [bare] },
        want: [{ ...bare, apiVersion: 'v1', kind: 'K'.repeat(513) }],
        keys: ['metadata', 'data', 'apiVersion', 'kind'],
      },
      {
        name: 'a list without apiVersion gives its kind, once complete',
        body: { kind: 'PodList', items: [bare] },
        want: [{ ...bare, kind: 'Pod' }],
        keys: ['metadata', 'data', 'kind'],
      },
      {
        name: 'a list without kind or apiVersion gives nothing',
        body: { metadata: {}, items: [bare] },
        want: [bare],
      },
    ];
    it.each(cases)('$name', ({ body, want, keys }) => {
      const items = decode(body);
      expect(items).toEqual(want);
      if (keys) expect(Object.keys(items[0] as object)).toEqual(keys);
    });

    it('leaves reused items as they are', () => {
      const held = { metadata: { name: 'a', resourceVersion: '1' } };
      const body = { kind: 'PodList', apiVersion: 'v1', items: [held] };
      const [item] = decode(body, { reuse: held });
      expect(item).toBe(held);
      expect(item).not.toHaveProperty('kind');
    });

    it('reports a malformed item as it is, without the fields it would have got', () => {
      const body = Buffer.from('{"kind":"PodList","apiVersion":"v1","items":[{"a":tru}]}');
      const messageOf = (decoder: ListStreamDecoder<unknown>) => {
        try {
          decoder.write(body);
        } catch (err) {
          return (err as Error).message;
        }
        throw new Error('the malformed item was accepted');
      };
      const message = messageOf(new ListStreamDecoder({ setItemTypeMeta: true }));
      expect(message).toContain('invalid JSON in items[0] at bytes 45-53');
      expect(message).not.toContain('"kind":"Pod"');
      expect(message).toBe(messageOf(new ListStreamDecoder({})));
    });
  });

  it('hands parsed items, not reused ones, to prepareItem before onItem sees them', () => {
    const held = { metadata: { name: 'b', resourceVersion: '2' }, held: true };
    const calls: string[] = [];
    const decoder = new ListStreamDecoder<{ metadata: { name: string }; prepared?: boolean }>({
      reuseItem: (identity) => (identity.name === 'b' ? held : undefined),
      prepareItem: (item) => {
        calls.push(`prepare ${item.metadata.name}`);
        item.prepared = true;
      },
      onItem: (item) => calls.push(`item ${item.metadata.name} prepared=${item.prepared}`),
    });
    decoder.write(
      Buffer.from(
        JSON.stringify({
          items: [held, { metadata: { name: 'c', resourceVersion: '3' } }].map((o) => ({
            metadata: o.metadata,
          })),
        }),
      ),
    );
    const list = decoder.end();
    expect(calls).toEqual(['item b prepared=undefined', 'prepare c', 'item c prepared=true']);
    expect(list.items[0]).toBe(held);
    expect(list.items[1]).toEqual({
      metadata: { name: 'c', resourceVersion: '3' },
      prepared: true,
    });
  });

  it('passes on what prepareItem throws', () => {
    const failure = new Error('prepare failed');
    const decoder = new ListStreamDecoder<object>({
      prepareItem: () => {
        throw failure;
      },
    });
    expect(() => decoder.write(Buffer.from('{"items":[{}]}'))).toThrow(failure);
  });

  it('leaves items empty with collectItems: false', async () => {
    const seen: unknown[] = [];
    const list = await decodeListStream([compact], {
      onItem: (item) => seen.push(item),
      collectItems: false,
    });
    expect(seen).toEqual(tricky.items);
    expect(list.items).toEqual([]);
    expect(list.metadata).toEqual(tricky.metadata);
  });

  it('decodes empty lists, with or without whitespace', () => {
    for (const text of [
      '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}',
      ' { "items" : [ ] , "metadata" : { } } ',
      '{"items":[]}',
      '{}',
    ]) {
      const list = decodeChunks(chunksOf(Buffer.from(text), 1));
      expect(list.items, text).toEqual([]);
      expect(list, text).toEqual({ ...JSON.parse(text), items: [] });
    }
  });

  it('decodes a body without items (or with items: null) to an empty list, as a Go list type does', () => {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 500,
    };
    expect(decodeChunks([Buffer.from(JSON.stringify(status))])).toEqual({ ...status, items: [] });
    expect(decodeChunks([Buffer.from('{"kind":"PodList","items":null}')])).toEqual({
      kind: 'PodList',
      items: [],
    });
  });

  it('recognises an escaped "items" key and keeps the last of repeated keys, like JSON.parse', () => {
    const text = '{"\\u0069tems":[1],"kind":"A","kind":"B","items":[2,3]}';
    expect(decodeChunks([Buffer.from(text)])).toEqual(JSON.parse(text));
  });

  it('accepts plain Uint8Array chunks and async sources', async () => {
    async function* source(): AsyncGenerator<Uint8Array> {
      for (const chunk of chunksOf(compact, 5)) yield new Uint8Array(chunk);
    }
    expect(await decodeListStream(source())).toEqual(tricky);
  });

  it('reports every truncation of the body with the offset where it ended', () => {
    for (let length = 0; length < compact.length; length++) {
      const err = decodeError([compact.subarray(0, length)]);
      expect(err.offset, `cut at ${length}`).toBe(length);
      expect(err.message).toMatch(length === 0 ? /the body is empty/ : /the body ended at byte/);
    }
    const cut = compact.subarray(0, compact.indexOf('"ß"'));
    expect(decodeError([cut]).message).toMatch(
      new RegExp(
        `ended at byte ${cut.length} inside items\\[1\\] \\(which started at byte ${compact.indexOf('{"metadata":{"name":"ß"')}\\)`,
      ),
    );
  });

  it('reports malformed JSON with what was wrong and where', () => {
    const cases: [string, RegExp, number][] = [
      ['[1,2]', /expected a JSON object, found '\[' at byte 0/, 0],
      ['  "x"', /expected a JSON object, found '"' at byte 2/, 2],
      ['{"items":[{"a":1},{"a":}]}', /invalid JSON in items\[1\] at bytes 18-23: /, 18],
      ['{"items":[1,,2]}', /unexpected ',' at byte 12, expected items\[1\]/, 12],
      ['{"items":[1,]}', /unexpected '\]' at byte 12, expected items\[1\]/, 12],
      [
        '{"items":[{"a":1}}]}',
        /unexpected '}' at byte 17, expected ',' or '\]' after items\[0\]/,
        17,
      ],
      ['{"items":{"a":1}}', /"items" at byte 9 is an object, not an array/, 9],
      ['{"items":"x"}', /"items" at byte 9 is a string, not an array/, 9],
      ['{"items":[]}x', /unexpected 'x' at byte 12 after the list/, 12],
      ['{"kind":"A",}', /unexpected '}' at byte 12, expected a field name/, 12],
      ['{"kind" "A"}', /unexpected '"' at byte 8, expected ':'/, 8],
      ['{"kind":"A" "b":1}', /unexpected '"' at byte 12, expected ',' or '}' after a field/, 12],
      ['{"count":12x,"items":[]}', /invalid JSON in the value of "count" at bytes 9-11/, 9],
      ['{"items":[tru]}', /invalid JSON in items\[0\] at bytes 10-12/, 10],
      ['{\u0001}', /unexpected byte 0x1 at byte 1, expected a field name/, 1],
    ];
    for (const [text, message, offset] of cases) {
      for (const chunks of [[Buffer.from(text)], chunksOf(Buffer.from(text), 1)]) {
        const err = decodeError(chunks);
        expect(err.message, text).toMatch(message);
        expect(err.message).toMatch(/^cannot decode the list body: /);
        expect(err.offset, text).toBe(offset);
        expect(err.statusCode).toBe(0);
        expect(isResponseDecodeError(err)).toBe(true);
      }
    }
  });

  it('keeps the JSON.parse error as the cause', () => {
    const err = decodeError([Buffer.from('{"items":[{"a":}]}')]);
    expect(err.cause).toBeInstanceOf(SyntaxError);
  });

  it('refuses more input after an error or the end', () => {
    const decoder = new ListStreamDecoder();
    expect(() => decoder.write(Buffer.from('x'))).toThrow(ResponseDecodeError);
    expect(() => decoder.write(Buffer.from('{}'))).toThrow(/after end\(\) or an error/);
  });

  it('passes on what onItem throws and closes the source', async () => {
    let closed = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      try {
        yield Buffer.from('{"items":[{"a":1},');
        yield Buffer.from('{"a":2}]}');
      } finally {
        closed = true;
      }
    }
    const boom = new Error('boom');
    await expect(
      decodeListStream(source(), {
        onItem: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
    expect(closed).toBe(true);
  });
});

describe('ListStreamDecoder on a large list', () => {
  it('never turns more than one item into a string', async () => {
    const body = makePodListBody(13_000);
    expect(body.length).toBeGreaterThan(28_000_000);
    const expected = JSON.parse(body.toString('utf8')) as ObjectList<unknown>;
    const largestItem = Math.max(
      ...expected.items.map((item) => Buffer.byteLength(JSON.stringify(item))),
    );

    let longestString = 0;
    let largestBuffer = 0;
    const noteString = (buffer: Buffer, start?: number, end?: number) => {
      const from = Math.max(0, start ?? 0);
      const to = Math.min(buffer.length, end ?? buffer.length);
      longestString = Math.max(longestString, to - from);
    };
    const originalToString = Buffer.prototype.toString;
    vi.spyOn(Buffer.prototype, 'toString').mockImplementation(function (
      this: Buffer,
      ...args: unknown[]
    ) {
      const [encoding, start, end] = args as [BufferEncoding?, number?, number?];
      noteString(this, start, end);
      return originalToString.call(this, encoding, start, end);
    });
    // The slicer toString calls, which the decoder calls itself where Buffer has it.
    type Sliced = Buffer & { utf8Slice(start: number, end: number): string };
    const utf8Slice = (Buffer.prototype as Sliced).utf8Slice;
    vi.spyOn(Buffer.prototype as Sliced, 'utf8Slice').mockImplementation(function (
      this: Buffer,
      start: number,
      end: number,
    ) {
      noteString(this, start, end);
      return utf8Slice.call(this, start, end);
    });
    // Values split between chunks are put together in a buffer of their own.
    const allocUnsafeSlow = Buffer.allocUnsafeSlow;
    vi.spyOn(Buffer, 'allocUnsafeSlow').mockImplementation((size) => {
      largestBuffer = Math.max(largestBuffer, size);
      return allocUnsafeSlow(size);
    });
    const concat = Buffer.concat;
    vi.spyOn(Buffer, 'concat').mockImplementation((list, totalLength) => {
      const joined = concat(list, totalLength);
      largestBuffer = Math.max(largestBuffer, joined.length);
      return joined;
    });

    let count = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      yield* chunksOf(body, 64 * 1024);
    }
    const list = await decodeListStream<{ metadata: { name: string } }>(source(), {
      onItem: (item) => {
        if (count % 1000 === 0) expect(item).toEqual(expected.items[count]);
        count++;
      },
      collectItems: false,
    });
    vi.restoreAllMocks();

    expect(count).toBe(13_000);
    expect(list.metadata?.resourceVersion).toBe('123456');
    expect(longestString).toBeGreaterThan(0);
    expect(longestString).toBeLessThanOrEqual(largestItem);
    // The join buffer grows to twice what it held (16 KiB at least), never to the body's size.
    expect(largestBuffer).toBeGreaterThan(0);
    expect(largestBuffer).toBeLessThanOrEqual(Math.max(16 * 1024, 2 * largestItem));
  }, 120_000);
});

describe('ListStreamDecoder size cap', () => {
  /** A list whose second item never ends, generated as it is read; counts the chunks read. */
  function endlessItem(chunkSize: number): {
    source: AsyncGenerator<Uint8Array>;
    read: () => number;
  } {
    let read = 0;
    const filler = Buffer.alloc(chunkSize, 'x');
    async function* source(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('{"kind":"PodList","items":[{"metadata":{"name":"a"}},{"data":"');
      for (;;) {
        read += filler.length;
        yield filler;
      }
    }
    return { source: source(), read: () => read };
  }

  it('fails an item over maxItemBytes with the limit, once that many bytes arrived', async () => {
    const { source, read } = endlessItem(100);
    const items: unknown[] = [];
    const err = await decodeListStream(source, {
      maxItemBytes: 1024,
      onItem: (item) => items.push(item),
    }).catch((e: unknown) => e);
    expect(isResponseDecodeError(err)).toBe(true);
    expect((err as ResponseDecodeError).message).toBe(
      'cannot decode the list body: items[1] (from byte 53) is larger than 1024 bytes, the most one item may have',
    );
    expect((err as ResponseDecodeError).offset).toBe(53);
    expect(items).toEqual([{ metadata: { name: 'a' } }]);
    expect(read()).toBeLessThanOrEqual(1024 + 100);
  });

  it('accepts an item of exactly maxItemBytes, and caps top-level fields too', () => {
    const item = JSON.stringify({ data: 'y'.repeat(100) });
    const body = (metadata: string) => Buffer.from(`{"metadata":${metadata},"items":[${item}]}`);
    const fits = new ListStreamDecoder({ maxItemBytes: item.length });
    fits.write(body('{}'));
    expect(fits.end().items).toHaveLength(1);

    const tooLong = new ListStreamDecoder({ maxItemBytes: item.length - 1 });
    expect(() => tooLong.write(body('{}'))).toThrow(/items\[0\] \(from byte \d+\) is larger than/);

    const bigMetadata = new ListStreamDecoder({ maxItemBytes: item.length });
    expect(() => bigMetadata.write(body(JSON.stringify({ x: 'z'.repeat(200) })))).toThrow(
      `the value of "metadata" (from byte 12) is larger than ${item.length} bytes`,
    );
  });

  it('caps at 64 MiB by default', async () => {
    expect(defaultMaxListItemBytes).toBe(64 * 1024 * 1024);
    const { source, read } = endlessItem(1024 * 1024);
    const err = await decodeListStream(source).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/items\[1\] .* is larger than 67108864 bytes/);
    expect(read()).toBeLessThanOrEqual(65 * 1024 * 1024);
  }, 60_000);

  it('refuses a cap that is not a positive number', () => {
    expect(() => new ListStreamDecoder({ maxItemBytes: 0 })).toThrow(RangeError);
  });
});
