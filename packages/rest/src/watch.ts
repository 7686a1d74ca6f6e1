import type { Readable } from 'node:stream';
import {
  isStatusError,
  parseWatchEvent,
  RingBuffer,
  type Status,
  type WatchEvent,
} from '@kubets/apimachinery';
import { nodeStream, nodeStringDecoder } from './builtins.js';
import { inspectAsJSON } from './inspect.js';

export type { WatchEvent, WatchEventType } from '@kubets/apimachinery';

/**
 * The Status a client reports for a watch stream it could not decode, as client-go does:
 * an InternalError whose message says what went wrong; `details.causes` holds an excerpt
 * of the offending data.
 */
export function watchDecodeFailure(message: string, excerpt?: string): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 500,
    reason: 'InternalError',
    message,
    ...(excerpt !== undefined
      ? { details: { causes: [{ reason: 'UnexpectedServerResponse', message: excerpt }] } }
      : {}),
  };
}

// Marks the Status of an ERROR event this package makes up for a stream that broke (see
// isWatchStreamBroken). A registry symbol, so that another copy of this package recognises it;
// defined non-enumerable, so that it is neither serialised nor compared.
const watchStreamBrokenBrand = Symbol.for('kubets.rest.watchStreamBroken');

/**
 * The ERROR event a {@link WatchStream} yields when its connection breaks or the stream ends
 * in the middle of an event: an InternalError Status with `message`, marked so that
 * {@link isWatchStreamBroken} recognises it. Fakes of a watch use it to act out a dropped
 * connection.
 */
export function watchStreamBrokenEvent<T>(message: string, excerpt?: string): WatchEvent<T> {
  const status = watchDecodeFailure(message, excerpt);
  Object.defineProperty(status, watchStreamBrokenBrand, { value: true });
  return { type: 'ERROR', object: status };
}

/**
 * True when `value` reports a watch stream that broke rather than an answer of the server:
 * the ERROR event made by {@link watchStreamBrokenEvent} (a connection that broke, a stream
 * that ended in the middle of an event), its Status, or the `StatusError` built from it
 * (`watchErrorToStatusError`). A reflector watches again from where it was instead of
 * relisting, as client-go's stream watcher ends such a watch quietly.
 */
export function isWatchStreamBroken(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  let status: unknown = value;
  if (isStatusError(value)) status = value.status;
  else if ((value as Partial<WatchEvent<unknown>>).type === 'ERROR') {
    status = (value as { object?: unknown }).object;
  }
  return typeof status === 'object' && status !== null && watchStreamBrokenBrand in status;
}

const excerptLength = 200;

function excerptOf(line: string): string {
  return line.length > excerptLength ? `${line.slice(0, excerptLength)}...` : line;
}

/**
 * What a {@link RewriteWatchEventText} hook returns for one event line: other JSON text to
 * parse in its place, and the step that turns the object parsed from it into the object the
 * line holds.
 */
export interface WatchEventTextRewrite<T> {
  /** The JSON text to parse instead of the event line. */
  readonly text: string;
  /**
   * Gets the object of the event parsed from {@link WatchEventTextRewrite.text} (only an
   * ADDED, MODIFIED or DELETED event's) and returns the object to deliver, which must equal
   * the object of the original line; or `undefined` when it cannot prove that, and the
   * original line is parsed instead. It may change the object it gets; it must not throw.
   */
  finish(object: T): T | undefined;
}

/**
 * Called with the text of each watch event line before it is parsed, to make parsing it
 * cheaper: it returns a {@link WatchEventTextRewrite} (text to parse instead, and a finishing
 * step), or `undefined` to have the line parsed as it is. A cache that already holds parts of
 * an object can cut them out of the text and put its own copies back. When the rewritten text
 * does not parse, holds an ERROR or BOOKMARK event, or `finish` returns `undefined`, the
 * original line is decoded instead, so a rewrite changes what decoding costs, never what it
 * delivers. It must not keep the text and must not throw.
 */
export type RewriteWatchEventText<T> = (eventText: string) => WatchEventTextRewrite<T> | undefined;

/**
 * The event of a rewritten line, or `undefined` when the rewrite does not hold (the text does
 * not parse into an object event, or `finish` refuses it): the original line is decoded then.
 */
function decodeRewritten<T>(rewrite: WatchEventTextRewrite<T>): WatchEvent<T> | undefined {
  let event: WatchEvent<T>;
  try {
    event = parseWatchEvent<T>(JSON.parse(rewrite.text));
  } catch {
    return undefined;
  }
  if (event.type === 'ERROR' || event.type === 'BOOKMARK') return undefined;
  const object = rewrite.finish(event.object);
  return object === undefined ? undefined : { type: event.type, object };
}

function decodeLine<T>(
  line: string,
  truncated: boolean,
  rewriteText: RewriteWatchEventText<T> | undefined,
): WatchEvent<T> {
  const rewrite = rewriteText?.(line);
  if (rewrite !== undefined) {
    const event = decodeRewritten(rewrite);
    if (event !== undefined) return event;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (truncated) {
      return watchStreamBrokenEvent(
        `the watch stream ended in the middle of an event: ${reason}`,
        excerptOf(line),
      );
    }
    return {
      type: 'ERROR',
      object: watchDecodeFailure(
        `unable to decode an event from the watch stream: ${reason}`,
        excerptOf(line),
      ),
    };
  }
  try {
    return parseWatchEvent<T>(parsed);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      type: 'ERROR',
      object: watchDecodeFailure(
        `unable to decode an event from the watch stream: ${reason}`,
        excerptOf(line),
      ),
    };
  }
}

// Blank lines are skipped; an event line starts with `{`, so this stops at its first character
// instead of copying the whole line as trim() would.
function hasContent(line: string): boolean {
  return /\S/.test(line);
}

/**
 * The most bytes one watch event (one line of the stream) may have unless configured
 * otherwise: 16 MiB, the limit of client-go's streaming decoder. An API server stores
 * objects of at most about 1.5 MiB (etcd's default request limit), so a longer line is a
 * broken or hostile stream; without a cap it would grow in memory until V8's string limit
 * (about 512 MiB) throws.
 */
export const defaultMaxWatchEventBytes = 16 * 1024 * 1024;

/**
 * Checks a per-event byte cap: `undefined` means {@link defaultMaxWatchEventBytes};
 * `Infinity` turns the cap off.
 *
 * @throws {RangeError} for a cap that is not a positive number.
 */
export function resolveMaxWatchEventBytes(maxEventBytes: number | undefined): number {
  if (maxEventBytes === undefined) return defaultMaxWatchEventBytes;
  if (!(maxEventBytes > 0)) {
    throw new RangeError(
      `maxEventBytes must be a positive number of bytes (or Infinity), not ${maxEventBytes}`,
    );
  }
  return maxEventBytes;
}

/** The ERROR event that ends a stream whose current line outgrew `maxBytes`. */
function eventTooLarge<T>(maxBytes: number, excerpt: string): WatchEvent<T> {
  return {
    type: 'ERROR',
    object: watchDecodeFailure(
      `watch event larger than ${maxBytes} bytes: the watch stream sent a line longer than ` +
        'the maximum event size; the watch is closed',
      excerpt,
    ),
  };
}

/** Where {@link WatchLineDecoder} appends decoded events: an array, or a stream's ring buffer. */
interface EventSink<T> {
  push(event: WatchEvent<T>): unknown;
}

// A UTF-16 code unit comes from at most 3 bytes of UTF-8, so a line with no more than a
// third of the cap in code units fits without counting its bytes.
const maxUtf8BytesPerCodeUnit = 3;

/**
 * Splits watch text into lines and decodes each complete line into an event, keeping the
 * unfinished last line for the next chunk. Appends to `out`, so a chunk holding many
 * events costs one call, not one promise per event.
 *
 * A line longer than `maxBytes` (counted in bytes as they arrive, before any string is
 * built from them) becomes one ERROR event, after which the decoder ignores its input:
 * a stream that lost its framing cannot be trusted to find it again.
 */
class WatchLineDecoder<T> {
  // Bytes to text; holds back a multi-byte character split between chunks.
  readonly #utf8 = new (nodeStringDecoder().StringDecoder)('utf8');
  // The current line's text so far; kept as parts so a large object arriving in many
  // chunks is joined once, not re-copied on every chunk.
  readonly #partial: string[] = [];
  // The current line's length in bytes, including bytes the UTF-8 decoder holds back.
  #partialBytes = 0;
  readonly #maxBytes: number;
  readonly #rewriteText: RewriteWatchEventText<T> | undefined;
  #overflowed = false;

  constructor(maxBytes: number, rewriteText?: RewriteWatchEventText<T>) {
    this.#maxBytes = maxBytes;
    this.#rewriteText = rewriteText;
  }

  /** True once a line exceeded the cap; the stream is to be closed. */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  #fits(knownBytes: number, text: string): boolean {
    const max = this.#maxBytes;
    return (
      knownBytes + text.length * maxUtf8BytesPerCodeUnit <= max ||
      knownBytes + Buffer.byteLength(text, 'utf8') <= max
    );
  }

  /** Ends decoding with the too-large ERROR; `line` is the line's text in this chunk. */
  #overflow(out: EventSink<T>, line: string): void {
    // Enough of the line's start to say what it was, without joining all of it.
    let head = '';
    for (const part of this.#partial) {
      if (head.length > excerptLength) break;
      head += part.slice(0, excerptLength + 1);
    }
    if (head.length <= excerptLength) head += line.slice(0, excerptLength + 1);
    this.#overflowed = true;
    this.#partial.length = 0;
    this.#partialBytes = 0;
    out.push(eventTooLarge<T>(this.#maxBytes, excerptOf(head)));
  }

  write(chunk: Uint8Array | string, out: EventSink<T>): void {
    if (this.#overflowed) return;
    const bytes = typeof chunk === 'string' ? undefined : chunk;
    const text = bytes === undefined ? (chunk as string) : this.#utf8.write(bytes);
    let start = 0;
    let newline = text.indexOf('\n');
    if (newline !== -1) {
      // The line in progress ends in this chunk. A newline byte never occurs inside a
      // multi-byte character, so the bytes before the first one are exactly its rest.
      const fits =
        bytes === undefined
          ? this.#fits(this.#partialBytes, text.slice(0, newline))
          : this.#partialBytes + bytes.indexOf(0x0a) <= this.#maxBytes;
      let line = text.slice(0, newline);
      if (!fits) {
        this.#overflow(out, line);
        return;
      }
      if (this.#partial.length > 0) {
        line = this.#partial.join('') + line;
        this.#partial.length = 0;
      }
      this.#partialBytes = 0;
      if (hasContent(line)) out.push(decodeLine<T>(line, false, this.#rewriteText));
      start = newline + 1;
      for (newline = text.indexOf('\n', start); newline !== -1; ) {
        line = text.slice(start, newline);
        if (!this.#fits(0, line)) {
          this.#overflow(out, line);
          return;
        }
        if (hasContent(line)) out.push(decodeLine<T>(line, false, this.#rewriteText));
        start = newline + 1;
        newline = text.indexOf('\n', start);
      }
    }
    if (bytes === undefined) {
      this.#partialBytes += start < text.length ? Buffer.byteLength(text.slice(start), 'utf8') : 0;
    } else {
      this.#partialBytes += start === 0 ? bytes.length : bytes.length - bytes.lastIndexOf(0x0a) - 1;
    }
    if (this.#partialBytes > this.#maxBytes) {
      this.#overflow(out, text.slice(start, start + excerptLength + 1));
      return;
    }
    if (start < text.length) this.#partial.push(text.slice(start));
  }

  /** The stream ended: a last line without its newline is decoded (or reported cut short). */
  end(out: EventSink<T>): void {
    if (this.#overflowed) return;
    const rest = this.#partial.join('') + this.#utf8.end();
    this.#partial.length = 0;
    this.#partialBytes = 0;
    if (hasContent(rest)) out.push(decodeLine<T>(rest, true, this.#rewriteText));
  }
}

/** Settings of {@link decodeWatchEvents}. */
export interface DecodeWatchEventsOptions {
  /**
   * The most bytes one event (one line) may have; default
   * {@link defaultMaxWatchEventBytes} (16 MiB). A longer line ends the iteration with one
   * ERROR event (an InternalError Status naming the limit). `Infinity` turns the cap off.
   */
  maxEventBytes?: number | undefined;
}

/**
 * Decodes newline-delimited watch events (`{"type": ..., "object": ...}` per line) from a
 * byte stream as it arrives. Lines may be split anywhere across chunks, including inside
 * a multi-byte character; blank lines are skipped. A line that is not a valid event, or a
 * last line cut short when the stream ends, becomes an `ERROR` event instead of an
 * exception, so a consumer loop sees it like any other server error. A line longer than
 * `maxEventBytes` becomes an `ERROR` event that ends the iteration (and stops reading
 * `source`).
 */
export async function* decodeWatchEvents<T>(
  source: AsyncIterable<Uint8Array | string>,
  options: DecodeWatchEventsOptions = {},
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const lines = new WatchLineDecoder<T>(resolveMaxWatchEventBytes(options.maxEventBytes));
  const events: WatchEvent<T>[] = [];
  for await (const chunk of source) {
    lines.write(chunk, events);
    for (const event of events) yield event;
    events.length = 0;
    if (lines.overflowed) return;
  }
  lines.end(events);
  yield* events;
}

/** How a {@link WatchStream} reaches the connection it reads from. */
export interface WatchConnection {
  /** The response body, read incrementally. */
  readonly body: AsyncIterable<Uint8Array | string>;
  /** Closes the connection; called by `stop()` and when the consumer leaves its loop. */
  close(): void;
  /** Aborted when the caller's signal aborts; the stream then ends quietly. */
  readonly signal?: AbortSignal | undefined;
  /** Called once when the stream is finished, to release listeners. */
  onFinished?: (() => void) | undefined;
  /**
   * The most bytes one event (one line) may have; default
   * {@link defaultMaxWatchEventBytes} (16 MiB, as client-go). A longer line is not
   * buffered further: the stream yields one ERROR event (an InternalError Status whose
   * message names the limit), closes the connection and ends. `Infinity` turns the cap
   * off.
   */
  readonly maxEventBytes?: number | undefined;
  /** Called with each event line before it is parsed, to parse cheaper text instead. */
  readonly rewriteEventText?: RewriteWatchEventText<unknown> | undefined;
}

/**
 * Events decoded ahead of the consumer before the connection is paused: enough to read a
 * burst in few reads, few enough that a slow consumer does not buffer a whole stream.
 */
const readAheadEvents = 256;

const doneResult: IteratorResult<never, void> = Object.freeze({ done: true, value: undefined });

/**
 * An open watch: iterate it with `for await`. Leaving the loop (`break`, `return`, an
 * exception), calling {@link WatchStream.stop}, disposing it (`await using`) or aborting
 * the request's signal closes the HTTP connection. The iteration ends normally when the
 * server closes the stream (as it does when `timeoutSeconds` elapses) or the watch is
 * stopped; a connection that breaks mid-stream yields one `ERROR` event, then ends.
 * Iterate it once.
 *
 * The connection is read as data arrives, every complete event of a chunk decoded at once;
 * up to 256 decoded events wait for the consumer before reading pauses. An event longer
 * than `maxEventBytes` (16 MiB by default) yields one `ERROR` event
 * and ends the watch, connection closed; so does any other failure to decode the stream —
 * none escapes as an exception.
 */
export class WatchStream<T> implements AsyncIterableIterator<WatchEvent<T>, void>, AsyncDisposable {
  readonly #connection: WatchConnection;
  readonly #body: Readable;
  readonly #lines: WatchLineDecoder<T>;
  // Decoded events not yet taken.
  readonly #pending = new RingBuffer<WatchEvent<T>>();
  // `next()` calls waiting for an event, oldest first.
  readonly #waiters = new RingBuffer<(result: IteratorResult<WatchEvent<T>, void>) => void>(1);
  #ended = false;
  #stoppedByCaller = false;
  #finished = false;
  readonly #onAbort = (): void => {
    this.#endQuietly();
    this.#finish();
  };

  constructor(connection: WatchConnection) {
    this.#lines = new WatchLineDecoder<T>(
      resolveMaxWatchEventBytes(connection.maxEventBytes),
      connection.rewriteEventText as RewriteWatchEventText<T> | undefined,
    );
    this.#connection = connection;
    const body = connection.body;
    const { Readable } = nodeStream();
    this.#body = body instanceof Readable ? body : Readable.from(body, { objectMode: true });
    this.#body.on('data', (chunk: Buffer | string) => this.#onData(chunk));
    this.#body.on('end', () => this.#onEnd());
    this.#body.on('error', (err: unknown) => this.#onBroken(err));
    this.#body.on('close', () => this.#onBroken(new Error('the connection closed')));
    connection.signal?.addEventListener('abort', this.#onAbort, { once: true });
    // Aborted while the response was on its way (Deno's node:https can still deliver it after
    // the request was destroyed): the 'abort' event has passed, so end now.
    if (connection.signal?.aborted) this.#onAbort();
  }

  /** True once the watch was stopped or its signal aborted. */
  get stopped(): boolean {
    return this.#stoppedByCaller || this.#connection.signal?.aborted === true;
  }

  /**
   * What `JSON.stringify` shows: whether the watch is stopped or ended and how many events
   * wait. Not the connection, whose request carries the `Authorization` header.
   */
  toJSON(): Record<string, unknown> {
    return { stopped: this.stopped, ended: this.#ended, buffered: this.#pending.length };
  }

  // Runs in the body's 'data' event: an exception here would be uncaught and end the
  // process, so every failure becomes an ERROR event instead.
  #onData(chunk: Buffer | string): void {
    if (this.#ended) return;
    try {
      this.#lines.write(chunk, this.#pending);
    } catch (err) {
      this.#failDecoding(err);
      return;
    }
    if (this.#lines.overflowed) {
      // The event will never be complete: stop the download instead of discarding it.
      this.#ended = true;
      this.#deliver();
      this.#finish();
      return;
    }
    this.#deliver();
    if (this.#pending.length >= readAheadEvents) this.#body.pause();
  }

  #onEnd(): void {
    if (this.#ended) return;
    try {
      this.#lines.end(this.#pending);
    } catch (err) {
      this.#failDecoding(err);
      return;
    }
    this.#ended = true;
    this.#deliver();
  }

  /** Decoding threw (it should not): report it as the stream's last event and close. */
  #failDecoding(err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    this.#pending.push({
      type: 'ERROR',
      object: watchDecodeFailure(`unable to decode the watch stream: ${reason}`),
    });
    this.#ended = true;
    this.#deliver();
    this.#finish();
  }

  #onBroken(err: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.stopped) {
      const reason = err instanceof Error ? err.message : String(err);
      this.#pending.push(watchStreamBrokenEvent(`the watch stream broke: ${reason}`));
    }
    this.#deliver();
  }

  /** Ends the iteration without reporting anything: the caller stopped or aborted. */
  #endQuietly(): void {
    this.#ended = true;
    this.#pending.clear();
    this.#deliver();
  }

  /** Hands decoded events (or the end) to waiting `next()` calls. */
  #deliver(): void {
    while (this.#waiters.length > 0) {
      const result = this.#take();
      if (result === undefined) return;
      this.#waiters.shift()?.(result);
    }
  }

  #take(): IteratorResult<WatchEvent<T>, void> | undefined {
    if (this.#pending.length > 0) {
      const value = this.#pending.shift() as WatchEvent<T>;
      if (this.#pending.length === 0 && !this.#ended && this.#body.isPaused()) this.#body.resume();
      return { done: false, value };
    }
    if (this.#ended) {
      this.#finish();
      return doneResult;
    }
    return undefined;
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#connection.signal?.removeEventListener('abort', this.#onAbort);
    this.#connection.close();
    // A body we wrapped ourselves is not closed by the connection: stop reading it.
    if (this.#body !== this.#connection.body) this.#body.destroy();
    this.#connection.onFinished?.();
  }

  /**
   * The next event if one is decoded already, without waiting: `undefined` when none is
   * buffered, when the watch has ended, or while a `next()` call waits. A consumer that
   * drains with it after each `await next()` takes the events of one read without a promise
   * per event.
   */
  tryNext(): WatchEvent<T> | undefined {
    if (this.#waiters.length > 0 || this.#pending.length === 0) return undefined;
    const value = this.#pending.shift() as WatchEvent<T>;
    if (this.#pending.length === 0 && !this.#ended && this.#body.isPaused()) this.#body.resume();
    return value;
  }

  /** The next event; resolves as done once the watch has ended. */
  next(): Promise<IteratorResult<WatchEvent<T>, void>> {
    if (this.#waiters.length === 0) {
      const result = this.#take();
      if (result !== undefined) return Promise.resolve(result);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Stops the watch (as {@link WatchStream.stop}); called by `for await` when the loop is left
   * early.
   */
  async return(): Promise<IteratorResult<WatchEvent<T>, void>> {
    this.stop();
    this.#finish();
    return doneResult;
  }

  /** The stream itself: it is its own iterator, so iterate it only once. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * Ends the watch and closes its connection. A pending `next()` resolves as done.
   * Safe to call more than once.
   */
  stop(): void {
    if (this.#stoppedByCaller) return;
    this.#stoppedByCaller = true;
    this.#endQuietly();
    this.#finish();
  }

  /** Stops the watch when an `await using` binding goes out of scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}
inspectAsJSON(WatchStream, 'WatchStream');
