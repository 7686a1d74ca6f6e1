import { parseWatchEvent, type Status, type WatchEvent } from '@kubets/apimachinery';

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

const excerptLength = 200;

function excerptOf(line: string): string {
  return line.length > excerptLength ? `${line.slice(0, excerptLength)}...` : line;
}

function decodeLine<T>(line: string, truncated: boolean): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const message = truncated
      ? `the watch stream ended in the middle of an event: ${reason}`
      : `unable to decode an event from the watch stream: ${reason}`;
    return { type: 'ERROR', object: watchDecodeFailure(message, excerptOf(line)) };
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
 * Decodes newline-delimited watch events (`{"type": ..., "object": ...}` per line) from a
 * byte stream as it arrives. Lines may be split anywhere across chunks, including inside
 * a multi-byte character; blank lines are skipped. A line that is not a valid event, or a
 * last line cut short when the stream ends, becomes an `ERROR` event instead of an
 * exception, so a consumer loop sees it like any other server error.
 */
export async function* decodeWatchEvents<T>(
  source: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  // The current line's text so far; kept as parts so a large object arriving in many
  // chunks is joined once, not re-copied on every chunk.
  let partial: string[] = [];
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const piece = text.slice(start, newline);
      start = newline + 1;
      const line = partial.length > 0 ? partial.join('') + piece : piece;
      partial = [];
      if (hasContent(line)) yield decodeLine<T>(line, false);
    }
    if (start < text.length) partial.push(text.slice(start));
  }
  const rest = partial.join('') + decoder.decode();
  if (hasContent(rest)) yield decodeLine<T>(rest, true);
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
}

/**
 * An open watch: iterate it with `for await`. Leaving the loop (`break`, `return`, an
 * exception), calling {@link WatchStream.stop}, disposing it (`await using`) or aborting
 * the request's signal closes the HTTP connection. The iteration ends normally when the
 * server closes the stream (as it does when `timeoutSeconds` elapses) or the watch is
 * stopped; a connection that breaks mid-stream yields one `ERROR` event, then ends.
 * Iterate it once.
 */
export class WatchStream<T> implements AsyncIterableIterator<WatchEvent<T>, void>, AsyncDisposable {
  private readonly connection: WatchConnection;
  private readonly events: AsyncGenerator<WatchEvent<T>, void, undefined>;
  private stoppedByCaller = false;
  private finished = false;

  constructor(connection: WatchConnection) {
    this.connection = connection;
    this.events = this.run();
  }

  /** True once the watch was stopped or its signal aborted. */
  get stopped(): boolean {
    return this.stoppedByCaller || this.connection.signal?.aborted === true;
  }

  private async *run(): AsyncGenerator<WatchEvent<T>, void, undefined> {
    try {
      yield* decodeWatchEvents<T>(this.connection.body);
    } catch (err) {
      if (this.stopped) return;
      const reason = err instanceof Error ? err.message : String(err);
      yield {
        type: 'ERROR',
        object: watchDecodeFailure(`the watch stream broke: ${reason}`),
      };
    } finally {
      this.finish();
    }
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.connection.close();
    this.connection.onFinished?.();
  }

  next(): Promise<IteratorResult<WatchEvent<T>, void>> {
    return this.events.next();
  }

  async return(): Promise<IteratorResult<WatchEvent<T>, void>> {
    this.stop();
    await this.events.return(undefined);
    // A generator that never started skips its `finally`; release the connection here too.
    this.finish();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * Ends the watch and closes its connection. A pending `next()` resolves as done.
   * Safe to call more than once.
   */
  stop(): void {
    if (this.stoppedByCaller) return;
    this.stoppedByCaller = true;
    // Closing the connection makes a pending read fail, which the iteration treats as the
    // end because the watch was stopped.
    this.connection.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}
