import type { ServerResponse } from 'node:http';
import type { FaultState } from './faults.js';
import type { Entry, EventSink, StoredEvent } from './object-entry.js';
import { isObject, type JsonObject } from './patch.js';
import { renderObject, type View } from './render.js';
import type { ResourceStore } from './resource-store.js';
import { apiVersionOf } from './resources.js';
import { matches, type Selection } from './selectors.js';

function withRv(entry: Entry, rv: number): Entry {
  const md = isObject(entry.obj.metadata) ? entry.obj.metadata : {};
  const obj: JsonObject = { ...entry.obj, metadata: { ...md, resourceVersion: String(rv) } };
  return { ...entry, obj, json: JSON.stringify(obj), rv };
}

/** Options of one watch stream. */
export interface WatchStreamOptions {
  readonly store: ResourceStore;
  readonly namespace: string | undefined;
  /** The group the client watches (events.k8s.io's Events live in the core store). */
  readonly group: string;
  readonly version: string;
  readonly selection: Selection;
  readonly view: View;
  readonly bookmarks: boolean;
  readonly bookmarkIntervalMs: number;
  readonly timeoutMs: number | undefined;
  /** Events at or below this resourceVersion are not sent (a watch from a future version). */
  readonly after: number;
  readonly faults: FaultState;
  /** The server's current resourceVersion, for bookmarks. */
  readonly currentRv: () => number;
  readonly onClose: (stream: WatchStream) => void;
  /** Renders each event's object instead of `view` (Table rows for `kubectl get -w`); not shared. */
  readonly render?: ((entry: Entry) => string) | undefined;
}

/**
 * One watch response: newline-delimited `{"type","object"}` JSON. Each event line is built
 * once per (type, view, apiVersion) and shared by every stream that sends it.
 */
export class WatchStream implements EventSink {
  readonly namespace: string | undefined;
  readonly #res: ServerResponse;
  readonly #options: WatchStreamOptions;
  readonly #apiVersion: string;
  readonly #selectAll: boolean;
  #closed = false;
  #held: string[] = [];
  #bookmarkTimer: NodeJS.Timeout | undefined;
  #timeoutTimer: NodeJS.Timeout | undefined;
  #deadlineBookmark: NodeJS.Timeout | undefined;

  constructor(res: ServerResponse, options: WatchStreamOptions) {
    this.#res = res;
    this.#options = options;
    this.namespace = options.namespace;
    this.#apiVersion = apiVersionOf(options.group, options.version);
    this.#selectAll = !options.selection.labels && !options.selection.fields;
    res.on('close', () => this.close());
  }

  /** Starts timers; call after the initial events were written and the stream registered. */
  start(): void {
    if (this.#closed) return;
    const { bookmarks, bookmarkIntervalMs, timeoutMs } = this.#options;
    if (bookmarks && bookmarkIntervalMs > 0) {
      this.#bookmarkTimer = setInterval(() => this.bookmark(), bookmarkIntervalMs);
      this.#bookmarkTimer.unref();
    }
    if (bookmarks && timeoutMs !== undefined && timeoutMs > 2_000) {
      // Like kube-apiserver: a bookmark shortly before the watch times out.
      this.#deadlineBookmark = setTimeout(() => this.bookmark(), timeoutMs - 2_000);
      this.#deadlineBookmark.unref();
    }
    if (timeoutMs !== undefined) {
      this.#timeoutTimer = setTimeout(() => this.close(), timeoutMs);
      this.#timeoutTimer.unref();
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  #matches(obj: JsonObject): boolean {
    return this.#selectAll || matches(this.#options.selection, obj);
  }

  /** Writes ADDED for an entry (initial state). */
  added(entry: Entry): void {
    if (!this.#matches(entry.obj)) return;
    const object = this.#options.render
      ? this.#options.render(entry)
      : renderObject(entry, this.#apiVersion, this.#options.view);
    this.write(`{"type":"ADDED","object":${object}}\n`);
  }

  /** Fans an event out to this stream, turned into ADDED/DELETED where selection changes. */
  deliver(event: StoredEvent): void {
    if (this.#closed || event.rv <= this.#options.after) return;
    if (this.namespace !== undefined && event.object.namespace !== this.namespace) return;
    let type: 'ADDED' | 'MODIFIED' | 'DELETED' = event.type;
    let variant: 'cur' | 'prev' = 'cur';
    if (!this.#selectAll) {
      const now = this.#matches(event.object.obj);
      if (event.type === 'ADDED') {
        if (!now) return;
      } else if (event.type === 'DELETED') {
        if (!now) return;
      } else {
        const before = event.prev ? this.#matches(event.prev.obj) : false;
        if (now && !before) type = 'ADDED';
        else if (!now && before) {
          type = 'DELETED';
          variant = 'prev';
        } else if (!now) return;
      }
    }
    this.write(this.#line(event, type, variant));
  }

  #line(event: StoredEvent, type: string, variant: 'cur' | 'prev'): string {
    if (this.#options.render) {
      const entry = variant === 'prev' && event.prev ? withRv(event.prev, event.rv) : event.object;
      return `{"type":"${type}","object":${this.#options.render(entry)}}\n`;
    }
    const key = `${type}|${variant}|${this.#options.view}|${this.#apiVersion}`;
    event.lines ??= new Map();
    let line = event.lines.get(key);
    if (line === undefined) {
      const entry = variant === 'prev' && event.prev ? withRv(event.prev, event.rv) : event.object;
      line = `{"type":"${type}","object":${renderObject(entry, this.#apiVersion, this.#options.view)}}\n`;
      event.lines.set(key, line);
    }
    return line;
  }

  /** Writes a BOOKMARK at the current resourceVersion; `initialEventsEnd` annotates it. */
  bookmark(initialEventsEnd = false): void {
    if (this.#closed) return;
    const def = this.#options.store.definition;
    const view = this.#options.view;
    const kind = view === 'full' ? def.kind : 'PartialObjectMetadata';
    const apiVersion = view === 'full' ? this.#apiVersion : view;
    const metadata: JsonObject = { resourceVersion: String(this.#options.currentRv()) };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    this.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind, apiVersion, metadata } })}\n`);
  }

  /** Writes an ERROR event carrying `status` and ends the stream. */
  error(status: object): void {
    this.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    this.close();
  }

  /** Writes one line, unless stalled (then it is held) or a line fault is queued. */
  write(line: string): void {
    if (this.#closed) return;
    const faults = this.#options.faults;
    if (faults.stalled) {
      this.#held.push(line);
      return;
    }
    const fault = faults.takeLineFault();
    if (fault === 'malformed') {
      this.#res.write('{"type":"ADDED","object":{this is not json}\n');
      return;
    }
    if (fault === 'truncated') {
      this.#res.write(line.slice(0, Math.max(1, Math.floor(line.length / 2))));
      // Cut the connection mid-line, as a proxy or a crashing server would.
      this.#closed = true;
      this.#stopTimers();
      this.#options.onClose(this);
      this.#res.destroy();
      return;
    }
    this.#res.write(line);
  }

  /** Writes the lines held while stalled. */
  flush(): void {
    const held = this.#held;
    this.#held = [];
    for (const line of held) this.write(line);
  }

  #stopTimers(): void {
    if (this.#bookmarkTimer) clearInterval(this.#bookmarkTimer);
    if (this.#timeoutTimer) clearTimeout(this.#timeoutTimer);
    if (this.#deadlineBookmark) clearTimeout(this.#deadlineBookmark);
  }

  /** Ends the stream cleanly. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopTimers();
    this.#options.onClose(this);
    if (!this.#res.writableEnded) this.#res.end();
  }
}
