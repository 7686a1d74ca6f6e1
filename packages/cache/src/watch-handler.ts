import {
  getResourceVersion,
  type HasObjectMeta,
  type Logger,
  type WatchEvent,
  watchErrorToStatusError,
} from '@kubets/apimachinery';
import type { ReflectorStore } from './reflector-options.js';

/** Where {@link handleWatchEvents} applies a watch's events, and whom it tells. */
export interface WatchEventTarget<T> {
  readonly store: ReflectorStore<T>;
  readonly logger: Logger;
  /** The reflector's name, for logs. */
  readonly name: string;
  /** What it watches, for logs. */
  readonly typeDescription: string;
  /**
   * Called after each event but an ERROR, with its resourceVersion when it moves the
   * reflector's (past the synthetic ADDED events of a watch from `""` or `"0"`), else `''`.
   */
  progressed(resourceVersion: string): void;
}

/** How one watch ended without throwing: its event count, and the Status of an ERROR event. */
export interface WatchResult {
  readonly events: number;
  readonly error: unknown;
}

/** An iterator that can hand over events it holds already (`WatchStream.tryNext`). */
interface BufferedEvents<T> {
  tryNext(): WatchEvent<T> | undefined;
}

function hasBufferedEvents<T>(
  it: AsyncIterator<WatchEvent<T>>,
): it is AsyncIterator<WatchEvent<T>> & BufferedEvents<T> {
  return typeof (it as Partial<BufferedEvents<T>>).tryNext === 'function';
}

/**
 * Applies one watch's events to the store until the stream ends, an ERROR event arrives
 * (its Status is returned, the stream stopped) or `signal` aborts.
 */
export async function handleWatchEvents<T>(
  it: AsyncIterator<WatchEvent<T>>,
  signal: AbortSignal,
  target: WatchEventTarget<T>,
  progress: { events: number },
  propagateRVFromStart: boolean,
): Promise<WatchResult> {
  let events = 0;
  let done = false;
  let eventReceivedBesidesAdded = false;
  // A watch stream of @kubets/rest hands over the other events of the same read without a
  // promise each; any other iterator is read one `next()` at a time.
  const drain = hasBufferedEvents(it) ? it : undefined;
  try {
    for (;;) {
      const r = await it.next();
      if (r.done) {
        done = true;
        return { events, error: undefined };
      }
      for (
        let event: WatchEvent<T> | undefined = r.value;
        event !== undefined;
        event = drain?.tryNext()
      ) {
        if (signal.aborted) return { events, error: undefined };
        events++;
        progress.events = events;
        switch (event.type) {
          case 'ADDED':
            apply(target, 'add', event.object);
            break;
          case 'MODIFIED':
            eventReceivedBesidesAdded = true;
            apply(target, 'update', event.object);
            break;
          case 'DELETED':
            eventReceivedBesidesAdded = true;
            apply(target, 'delete', event.object);
            break;
          case 'BOOKMARK':
            eventReceivedBesidesAdded = true;
            if (target.store.bookmark !== undefined) bookmark(target, event.object);
            break;
          case 'ERROR':
            return { events, error: watchErrorToStatusError(event) };
        }
        const rv = getResourceVersion(event.object as HasObjectMeta);
        target.progressed(rv && (propagateRVFromStart || eventReceivedBesidesAdded) ? rv : '');
      }
    }
  } finally {
    if (!done) await it.return?.();
  }
}

function bookmark<T>(target: WatchEventTarget<T>, obj: HasObjectMeta): void {
  try {
    target.store.bookmark?.(getResourceVersion(obj));
  } catch (err) {
    target.logger.error('Unable to send bookmark event to the store', {
      name: target.name,
      error: String(err),
    });
  }
}

function apply<T>(target: WatchEventTarget<T>, op: 'add' | 'update' | 'delete', obj: T): void {
  try {
    target.store[op](obj);
  } catch (err) {
    target.logger.error(`Unable to ${op} watch event object to the store`, {
      name: target.name,
      type: target.typeDescription,
      error: String(err),
    });
  }
}
