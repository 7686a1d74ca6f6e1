import type { ObjectList } from '@kubets/apimachinery';
import { ResponseDecodeError } from './errors.js';
import { ItemIdentityReader, type ListItemIdentity } from './item-identity.js';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  isDelimiter,
  isWhitespace,
  OPEN_BRACE,
  OPEN_BRACKET,
  opensContainer,
  QUOTE,
  utf8Text,
} from './json-bytes.js';

/** How {@link decodeListStream} and {@link ListStreamDecoder} hand out the list's items. */
export interface ListDecodeOptions<T> {
  /**
   * Called with each element of `items` as soon as its bytes have arrived and been
   * parsed, in order, before the rest of the body is read. An exception thrown here stops
   * decoding and is passed on unchanged.
   */
  onItem?: ((item: T) => void) | undefined;
  /**
   * Called with each item's identity, read from its bytes before they are parsed. When it
   * returns an object, that object takes the item's place (in `items` and the `onItem`
   * call) and the item is not parsed at all. A cache relisting objects it already holds
   * returns its own object when the resourceVersion is the one it has, so a large,
   * mostly unchanged relist neither parses nor holds its objects a second time.
   *
   * The identity has {@link ListItemIdentity.key} and {@link ListItemIdentity.isIdentityOf},
   * and its fields are read from the item's bytes when asked for: looking the object up by
   * `key` and checking it with `isIdentityOf` makes one string per item. It is valid only
   * during the call (the next item reuses it); copy its fields to keep them. Items whose
   * identity cannot be read exactly as JSON.parse would read it (an escaped key, a repeated
   * `metadata`, a name or resourceVersion that is not a non-empty string) are parsed without
   * calling it.
   */
  reuseItem?: ((identity: ListItemIdentity) => T | undefined) | undefined;
  /**
   * Called with each item parsed from the body (not with those `reuseItem` supplied) right
   * after it is parsed, before `onItem`; it may change the item in place. A cache that
   * shares or drops parts of its objects does it here, so the parts it would let go of
   * die young, instead of being held (and copied by the garbage collector) until the whole
   * list has arrived. An exception thrown here stops decoding and is passed on unchanged.
   */
  prepareItem?: ((item: T) => void) | undefined;
  /**
   * Gives each parsed item the list's `apiVersion` and `kind` (without its `List` suffix),
   * as a watch event's object carries them; the API server leaves them out of the items of a
   * built-in resource's list. They become the item's first fields, as in a watch event, so
   * the object holds them in place rather than in a separately allocated store; an item's
   * own `apiVersion` or `kind` wins; items `reuseItem` supplied are left as they are. That
   * is when the list's `kind` and `apiVersion` arrive before its `items` (kube-apiserver
   * sends them first) and are of a real one's length (at most 512 characters); otherwise,
   * once the list is complete, every collected item with neither an `apiVersion` nor a
   * `kind` gets those of the list's it has (as `setListItemTypeMeta` of
   * `@kubets/apimachinery`). Default `false`.
   */
  setItemTypeMeta?: boolean | undefined;
  /**
   * Whether the result's `items` holds the items (default `true`). Pass `false` when
   * `onItem` consumes them, so a large list is not held twice; `items` is then `[]`.
   */
  collectItems?: boolean | undefined;
  /**
   * The most bytes one item may have — and, as the same unbounded buffering applies, one
   * top-level field such as `metadata`. Default {@link defaultMaxListItemBytes} (64 MiB).
   * A longer value is a {@link ResponseDecodeError} naming the limit, raised once that
   * many bytes have arrived, so a broken or hostile body is not buffered until V8's string
   * limit (about 512 MiB) throws. `Infinity` turns the cap off.
   */
  maxItemBytes?: number | undefined;
}

/**
 * The default most bytes of one list item: 64 MiB. Objects an API server stores are at
 * most about 1.5 MiB (etcd's default request limit; kube-apiserver refuses request bodies
 * over 3 MiB), and watch events are capped at 16 MiB (`defaultMaxWatchEventBytes`, as
 * client-go); four times that leaves room for any real object, including one an unusual
 * etcd setting lets grow, while a runaway body fails long before it exhausts memory.
 * client-go has no such cap on lists; it has no streaming list decoder either.
 */
export const defaultMaxListItemBytes = 64 * 1024 * 1024;

/** Where a decode error is reported from; filled in by `Request.doList`. */
export interface ListDecodeContext {
  /** Put in front of every error message, e.g. `GET https://...: `. */
  readonly messagePrefix?: string | undefined;
  /** The HTTP status code of the response, copied into decode errors. */
  readonly statusCode?: number | undefined;
  /** The response's `Content-Type`, copied into decode errors. */
  readonly contentType?: string | undefined;
}

// `c & 0xdf` folds `{` (0x7b) onto `[` (0x5b) and `}` (0x7d) onto `]` (0x5d): one compare
// each for "opens a container" and "closes a container".
const FOLD = 0xdf;

/** Where the decoder is in the top-level object. */
const Phase = {
  /** Before the opening `{`. */
  Start: 0,
  /** After `{`: a key or `}`. */
  FirstKey: 1,
  /** After `,`: a key. */
  Key: 2,
  /** After a key: `:`. */
  Colon: 3,
  /** After `:`: a value. */
  Value: 4,
  /** After a value: `,` or `}`. */
  AfterValue: 5,
  /** After `items: [`: an item or `]`. */
  FirstItem: 6,
  /** After `,` in items: an item. */
  Item: 7,
  /** After an item: `,` or `]`. */
  AfterItem: 8,
  /** After the closing `}`: only whitespace. */
  Done: 9,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/** What a captured value becomes once complete: a field name, a field's value, or an item. */
type Target = 'key' | 'value' | 'item';

/**
 * How the end of a captured value is found: an object or array (`container`) ends when its
 * brackets balance, a `string` at its closing quote, a number, `true`, `false` or `null`
 * (`scalar`) before a delimiter.
 */
type Shape = 'container' | 'string' | 'scalar';

function describeByte(c: number): string {
  return c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16)}`;
}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// A group name is at most 253 characters, a version or kind 63: a longer value is not copied
// into every item's text (a hostile list would multiply its size by its item count).
const maxTypeMetaLength = 512;

function isTypeMetaValue(value: string): boolean {
  return value !== '' && value.length <= maxTypeMetaLength;
}

/**
 * Decodes a JSON list body (`{"kind":"PodList","metadata":{...},"items":[...]}`) pushed to
 * it chunk by chunk, without ever holding the body as one string: each element of the
 * top-level `items` array is cut out by a byte scanner and parsed on its own as soon as its
 * last byte arrives; the other top-level fields (`kind`, `apiVersion`, `metadata`, ...) are
 * parsed the same way, in whatever order they come. Chunks may split the body anywhere,
 * including inside a multi-byte UTF-8 character.
 *
 * A body without `items` (or with `"items": null`) decodes to an empty list, as decoding
 * into a Go list type does; a body that is not a JSON object, an `items` that is not an
 * array, malformed JSON and a body cut short are {@link ResponseDecodeError}s whose message
 * names the problem and its byte offset (also in `offset`).
 *
 * {@link decodeListStream} drives it from an async iterable; use the class directly for a
 * push-based source.
 */
export class ListStreamDecoder<T> {
  readonly #onItem: ((item: T) => void) | undefined;
  readonly #reuseItem: ((identity: ListItemIdentity) => T | undefined) | undefined;
  readonly #identities: ItemIdentityReader | undefined;
  readonly #prepareItem: ((item: T) => void) | undefined;
  readonly #setItemTypeMeta: boolean;
  /** `"kind":…,"apiVersion":…` of the list's items, once known (see `setItemTypeMeta`). */
  #itemTypeMetaFields: string | undefined;
  readonly #collect: boolean;
  readonly #maxItemBytes: number;
  readonly #context: ListDecodeContext;
  readonly #result: Record<string, unknown> = {};
  #items: T[] = [];
  #itemCount = 0;
  #finished = false;

  /** Bytes of the body before the current chunk. */
  #offset = 0;
  #phase: Phase = Phase.Start;
  #key = '';

  // The value being captured, if any.
  #capturing = false;
  #target: Target = 'value';
  #shape: Shape = 'container';
  /** Absolute offset of the captured value's first byte. */
  #captureOffset = 0;
  /** Where the captured value starts in the current chunk (0 once it spans chunks). */
  #captureStart = 0;
  /** The earlier chunks the captured value began in: it starts at `#firstPartStart` of the first. */
  #parts: (Buffer | undefined)[] = [];
  #partCount = 0;
  #firstPartStart = 0;
  /** How many of the captured value's bytes those chunks hold. */
  #partBytes = 0;
  /** Where a value that spans chunks is put together: one buffer, reused for each. */
  #joined: Buffer | undefined;
  #depth = 0;
  #inString = false;
  #escapePending = false;

  constructor(options: ListDecodeOptions<T> = {}, context: ListDecodeContext = {}) {
    this.#onItem = options.onItem;
    this.#reuseItem = options.reuseItem;
    this.#identities = options.reuseItem === undefined ? undefined : new ItemIdentityReader();
    this.#prepareItem = options.prepareItem;
    this.#setItemTypeMeta = options.setItemTypeMeta === true;
    this.#collect = options.collectItems !== false;
    const maxItemBytes = options.maxItemBytes ?? defaultMaxListItemBytes;
    if (!(maxItemBytes > 0)) {
      throw new RangeError(
        `maxItemBytes must be a positive number of bytes (or Infinity), not ${maxItemBytes}`,
      );
    }
    this.#maxItemBytes = maxItemBytes;
    this.#context = context;
  }

  /** How many items have been decoded so far. */
  get itemsDecoded(): number {
    return this.#itemCount;
  }

  #fail(message: string, offset: number, cause?: unknown): ResponseDecodeError {
    this.#finished = true;
    return new ResponseDecodeError(
      `${this.#context.messagePrefix ?? ''}cannot decode the list body: ${message}`,
      {
        statusCode: this.#context.statusCode ?? 0,
        contentType: this.#context.contentType,
        offset,
      },
      cause === undefined ? undefined : { cause },
    );
  }

  #unexpected(c: number, at: number, expected: string): ResponseDecodeError {
    return this.#fail(`unexpected ${describeByte(c)} at byte ${at}, expected ${expected}`, at);
  }

  /**
   * Feeds the next bytes of the body. Items completed by them are parsed (and passed to
   * `onItem`) before this returns.
   *
   * @throws {ResponseDecodeError} when the bytes cannot be part of a list body.
   */
  write(chunk: Uint8Array): void {
    if (this.#finished) throw new Error('ListStreamDecoder: write() after end() or an error');
    const buf = asBuffer(chunk);
    const n = buf.length;
    let i = 0;
    while (i < n) {
      if (this.#capturing) {
        const end = this.#shape === 'scalar' ? this.#scanScalar(buf, i, n) : this.#scan(buf, i, n);
        if (end < 0) break;
        this.#checkCaptureSize(this.#offset + end);
        this.#complete(buf, this.#captureStart, end);
        i = end;
        continue;
      }
      const c = buf[i] as number;
      if (isWhitespace(c)) {
        i++;
        continue;
      }
      const at = this.#offset + i;
      switch (this.#phase) {
        case Phase.Start:
          if (c !== OPEN_BRACE) {
            throw this.#fail(`expected a JSON object, found ${describeByte(c)} at byte ${at}`, at);
          }
          this.#phase = Phase.FirstKey;
          break;
        case Phase.FirstKey:
        case Phase.Key:
          if (c === QUOTE) this.#startCapture('key', 'string', at, i);
          else if (c === CLOSE_BRACE && this.#phase === Phase.FirstKey) this.#phase = Phase.Done;
          else throw this.#unexpected(c, at, 'a field name');
          break;
        case Phase.Colon:
          if (c !== COLON) throw this.#unexpected(c, at, "':'");
          this.#phase = Phase.Value;
          break;
        case Phase.Value:
          if (this.#key === 'items' && c === OPEN_BRACKET) {
            this.#startItems();
            this.#phase = Phase.FirstItem;
          } else {
            this.#startValue('value', c, at, i);
          }
          break;
        case Phase.AfterValue:
          if (c === COMMA) this.#phase = Phase.Key;
          else if (c === CLOSE_BRACE) this.#phase = Phase.Done;
          else throw this.#unexpected(c, at, "',' or '}' after a field");
          break;
        case Phase.FirstItem:
        case Phase.Item:
          if (c === CLOSE_BRACKET && this.#phase === Phase.FirstItem)
            this.#phase = Phase.AfterValue;
          else this.#startValue('item', c, at, i);
          break;
        case Phase.AfterItem:
          if (c === COMMA) this.#phase = Phase.Item;
          else if (c === CLOSE_BRACKET) this.#phase = Phase.AfterValue;
          else throw this.#unexpected(c, at, `',' or ']' after items[${this.#itemCount - 1}]`);
          break;
        case Phase.Done:
          throw this.#fail(`unexpected ${describeByte(c)} at byte ${at} after the list`, at);
      }
      // Every step takes one byte: a structural one, or the first of a value being captured
      // (never the whole value: the scanner above reads the rest).
      i++;
    }
    if (this.#capturing) {
      this.#checkCaptureSize(this.#offset + n);
      // The value goes on in the next chunk: keep this one.
      const from = this.#captureStart;
      if (this.#partCount === 0) this.#firstPartStart = from;
      this.#parts[this.#partCount++] = buf;
      this.#partBytes += n - from;
      this.#captureStart = 0;
    }
    this.#offset += n;
  }

  /**
   * Ends the body and returns the list: the top-level fields as parsed and `items` (empty
   * when `collectItems` is `false`).
   *
   * @throws {ResponseDecodeError} when the body was empty or cut short.
   */
  end(): ObjectList<T> {
    if (this.#finished) throw new Error('ListStreamDecoder: end() called twice or after an error');
    if (this.#phase !== Phase.Done) {
      const at = this.#offset;
      if (at === 0) throw this.#fail('the body is empty', 0);
      if (this.#capturing && this.#target === 'item') {
        throw this.#fail(
          `the body ended at byte ${at} inside items[${this.#itemCount}] (which started at byte ${this.#captureOffset})`,
          at,
        );
      }
      throw this.#fail(`the body ended at byte ${at} before the list was complete`, at);
    }
    this.#finished = true;
    if (!('items' in this.#result)) this.#result.items = this.#items;
    if (this.#setItemTypeMeta && this.#itemTypeMetaFields === undefined) {
      this.#setTypeMetaAfterwards();
    }
    return this.#result as unknown as ObjectList<T>;
  }

  /** `setItemTypeMeta` for a list whose type meta did not come before its items. */
  #setTypeMetaAfterwards(): void {
    const { kind, apiVersion } = this.#result;
    const itemKind = typeof kind === 'string' ? kind.replace(/List$/, '') : '';
    const version = typeof apiVersion === 'string' ? apiVersion : '';
    if (itemKind === '' && version === '') return;
    const items = this.#items as unknown[];
    // An indexed loop: an iterator's result objects would be garbage per item.
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as { apiVersion?: unknown; kind?: unknown } | null;
      if (item === null || typeof item !== 'object' || item.apiVersion || item.kind) continue;
      if (version !== '') item.apiVersion = version;
      if (itemKind !== '') item.kind = itemKind;
    }
  }

  #startItems(): void {
    // A repeated `items` replaces the earlier one, as JSON.parse does.
    this.#items = [];
    this.#result.items = this.#items;
    const { kind, apiVersion } = this.#result;
    const itemKind = typeof kind === 'string' ? kind.replace(/List$/, '') : '';
    this.#itemTypeMetaFields =
      this.#setItemTypeMeta &&
      isTypeMetaValue(itemKind) &&
      typeof apiVersion === 'string' &&
      isTypeMetaValue(apiVersion)
        ? `"kind":${JSON.stringify(itemKind)},"apiVersion":${JSON.stringify(apiVersion)}`
        : undefined;
  }

  /**
   * The item's text with the list's type meta as its first fields. JSON.parse keeps a
   * repeated key's last value, so fields the item has of its own win.
   */
  #withTypeMeta(text: string, fields: string): string {
    if (text.charCodeAt(0) !== OPEN_BRACE) return text; // not an object: JSON.parse says why
    let i = 1;
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
    const empty = text.charCodeAt(i) === CLOSE_BRACE;
    return `{${fields}${empty ? '' : ','}${text.slice(1)}`;
  }

  #startCapture(target: Target, shape: Shape, at: number, index: number): void {
    this.#capturing = true;
    this.#captureStart = index;
    this.#target = target;
    this.#shape = shape;
    this.#captureOffset = at;
    this.#depth = shape === 'container' ? 1 : 0;
    this.#inString = shape === 'string';
    this.#escapePending = false;
  }

  /** Starts capturing a value whose first byte `c` is at `i`. */
  #startValue(target: Target, c: number, at: number, i: number): void {
    if (opensContainer(c)) {
      this.#startCapture(target, 'container', at, i);
    } else if (c === QUOTE) {
      this.#startCapture(target, 'string', at, i);
    } else if (isDelimiter(c)) {
      throw this.#unexpected(
        c,
        at,
        target === 'item' ? `items[${this.#itemCount}]` : `the value of "${this.#key}"`,
      );
    } else {
      // A number or literal: its first byte is not a delimiter, so the scanner reads on from
      // the next one to find its end.
      this.#startCapture(target, 'scalar', at, i);
    }
  }

  /**
   * Scans an object, array or string from `i` for the byte that completes it. Returns the
   * index after that byte, or -1 when the chunk ends first (the state is kept).
   */
  #scan(buf: Buffer, start: number, n: number): number {
    let i = start;
    let depth = this.#depth;
    let inString = this.#inString;
    if (this.#escapePending) {
      this.#escapePending = false;
      i++;
    }
    for (;;) {
      if (inString) {
        for (;;) {
          if (i >= n) return this.#suspendScan(depth, true, false);
          const c = buf[i++] as number;
          if (c === QUOTE) break;
          if (c === BACKSLASH) {
            if (i >= n) return this.#suspendScan(depth, true, true);
            i++;
          }
        }
        inString = false;
        if (depth === 0) return i;
      }
      for (;;) {
        if (i >= n) return this.#suspendScan(depth, false, false);
        const c = buf[i++] as number;
        if (c === QUOTE) {
          inString = true;
          break;
        }
        const folded = c & FOLD;
        if (folded === OPEN_BRACKET) {
          depth++;
        } else if (folded === CLOSE_BRACKET) {
          if (--depth === 0) return i;
        }
      }
    }
  }

  /** Keeps where {@link scan} stopped, at the end of a chunk, for the next; returns -1. */
  #suspendScan(depth: number, inString: boolean, escapePending: boolean): number {
    this.#depth = depth;
    this.#inString = inString;
    this.#escapePending = escapePending;
    return -1;
  }

  /** Finds the end of a number or literal: the index of the delimiter after it, or -1. */
  #scanScalar(buf: Buffer, start: number, n: number): number {
    for (let i = start; i < n; i++) {
      const c = buf[i] as number;
      if (isDelimiter(c) || isWhitespace(c)) return i;
    }
    return -1;
  }

  #fileItem(item: T): void {
    this.#itemCount++;
    this.#phase = Phase.AfterItem;
    if (this.#collect) this.#items.push(item);
    this.#onItem?.(item);
  }

  /** What the captured value is, for messages. */
  #describeCapture(): string {
    return this.#target === 'item'
      ? `items[${this.#itemCount}]`
      : this.#target === 'key'
        ? 'a field name'
        : `the value of "${this.#key}"`;
  }

  /** Fails once the captured value, read up to absolute offset `end`, exceeds the cap. */
  #checkCaptureSize(end: number): void {
    if (end - this.#captureOffset <= this.#maxItemBytes) return;
    this.#parts = [];
    this.#partCount = 0;
    throw this.#fail(
      `${this.#describeCapture()} (from byte ${this.#captureOffset}) is larger than ` +
        `${this.#maxItemBytes} bytes, the most one item may have`,
      this.#captureOffset,
    );
  }

  /**
   * Puts the captured value together from the kept chunks and `buf` up to `end`, in the
   * decoder's join buffer (reused: a relist that reuses its items allocates nothing here);
   * `#partBytes` becomes its length.
   */
  #join(buf: Buffer, end: number): Buffer {
    const length = this.#partBytes + end;
    let joined = this.#joined;
    if (joined === undefined || joined.length < length) {
      joined = Buffer.allocUnsafeSlow(Math.max(length, 2 * (joined?.length ?? 0), 16 * 1024));
      this.#joined = joined;
    }
    let at = 0;
    for (let k = 0; k < this.#partCount; k++) {
      const part = this.#parts[k] as Buffer;
      at += part.copy(joined, at, k === 0 ? this.#firstPartStart : 0);
      this.#parts[k] = undefined;
    }
    buf.copy(joined, at, 0, end);
    this.#partCount = 0;
    this.#partBytes = length;
    return joined;
  }

  /** Parses the captured value, which ends at `end` in `buf`, and files it. */
  #complete(buf: Buffer, start: number, end: number): void {
    this.#capturing = false;
    const endOffset = this.#offset + end;
    // The value's bytes are buf[start, end) unless they began in an earlier chunk.
    if (this.#partCount > 0) {
      buf = this.#join(buf, end);
      start = 0;
      end = this.#partBytes;
      this.#partBytes = 0;
    }
    if (this.#target === 'item' && this.#identities !== undefined) {
      const identity = this.#identities.read(buf, start, end);
      if (identity !== undefined) {
        let held: T | undefined;
        try {
          held = this.#reuseItem?.(identity);
        } finally {
          identity.release();
        }
        if (held !== undefined) {
          this.#fileItem(held);
          return;
        }
      }
    }
    const text = utf8Text(buf, start, end);
    let value: unknown;
    try {
      value = JSON.parse(
        this.#target === 'item' && this.#itemTypeMetaFields !== undefined
          ? this.#withTypeMeta(text, this.#itemTypeMetaFields)
          : text,
      );
    } catch (parseError) {
      // The message's positions are those of the item's own text.
      let err = parseError;
      try {
        JSON.parse(text);
      } catch (own) {
        err = own;
      }
      const reason = err instanceof Error ? err.message : String(err);
      throw this.#fail(
        `invalid JSON in ${this.#describeCapture()} at bytes ${this.#captureOffset}-${endOffset - 1}: ${reason}`,
        this.#captureOffset,
        err,
      );
    }
    switch (this.#target) {
      case 'item':
        this.#prepareItem?.(value as T);
        this.#fileItem(value as T);
        break;
      case 'key':
        this.#key = value as string;
        this.#phase = Phase.Colon;
        break;
      case 'value':
        this.#phase = Phase.AfterValue;
        if (this.#key === 'items') {
          if (value !== null) {
            throw this.#fail(
              `"items" at byte ${this.#captureOffset} is ${typeName(value)}, not an array`,
              this.#captureOffset,
            );
          }
          this.#startItems();
        } else {
          this.#result[this.#key] = value;
        }
        break;
    }
  }
}

/**
 * Decodes a JSON list body from a byte stream as it arrives, without holding the body as
 * one string — so a list larger than V8's string limit (about 512 MB) still decodes, and
 * parsing overlaps the download. Each element of the top-level `items` array is parsed on
 * its own as soon as its last byte arrives and passed to `onItem`; see
 * {@link ListStreamDecoder} for the rules.
 *
 * ```ts
 * const list = await decodeListStream<Pod>(response, { onItem: (pod) => fifo.add(pod), collectItems: false });
 * console.log(list.metadata?.resourceVersion);
 * ```
 *
 * @throws {ResponseDecodeError} for a body that is not a JSON object with an `items`
 * array, malformed JSON, or a body cut short (`offset` holds the byte offset); errors of
 * the source and of `onItem` are passed on unchanged.
 */
export async function decodeListStream<T>(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: ListDecodeOptions<T> = {},
): Promise<ObjectList<T>> {
  const decoder = new ListStreamDecoder<T>(options);
  for await (const chunk of source) decoder.write(chunk);
  return decoder.end();
}
