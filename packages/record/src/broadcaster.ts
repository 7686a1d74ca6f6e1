import type { Clock } from '@kubets/apimachinery';
import {
  isAlreadyExists,
  isNotFound,
  isStatusError,
  type Logger,
  type RandomSource,
  silentLogger,
} from '@kubets/apimachinery';
import { isInvalidRequestError } from '@kubets/rest';
import type { Event, ObjectReference } from 'kubernetes-types/core/v1.js';
import { type CorrelatorOptions, EventCorrelator, type EventPatch } from './correlator.js';
import { sprintf } from './printf.js';
import { getReference, type RecordableObject } from './reference.js';
import type { EventSink } from './sink.js';
import { rfc3339, systemClock, uniqueUnixNanos } from './time.js';

/** Events a broadcaster (and each of its watchers) queues before dropping new ones. */
export const defaultMaxQueuedEvents = 1000;
/** How often a failed sink write is tried in all. */
export const maxTriesPerEvent = 12;
/** The wait between sink write tries, in milliseconds (the first wait is random below it). */
export const defaultSleepDurationMs = 10_000;

/** The two event types core/v1 knows. */
export type EventType = 'Normal' | 'Warning';

/** Who records: `source.component` (and `reportingComponent`), and optionally the host. */
export interface EventSourceOptions {
  /** The controller's name, e.g. `'mydemo-controller'`. */
  component: string;
  /** The node or host name; becomes `source.host` and `reportingInstance`. */
  host?: string | undefined;
}

/**
 * Records events about objects (client-go's `record.EventRecorder`). Every method returns at
 * once and never throws: an event that cannot be built (an object without `kind`, an
 * unknown type) or that finds the queue full is dropped and reported to the broadcaster's
 * logger.
 */
export interface EventRecorder {
  /** Records an event of `type` with a `reason` (UpperCamelCase, e.g. `Synced`) and message. */
  event(obj: RecordableObject, type: EventType, reason: string, message: string): void;
  /** {@link event} with a printf-style message (`%s`, `%d`, `%v`, `%q`, ...). */
  eventf(
    obj: RecordableObject,
    type: EventType,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void;
  /** {@link eventf} that also sets `metadata.annotations` on the event. */
  annotatedEventf(
    obj: RecordableObject,
    annotations: Readonly<Record<string, string>>,
    type: EventType,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void;
}

/** A registration returned by the `start*` methods; `stop()` ends it (client-go's `watch.Interface`). */
export interface EventWatcher {
  /** Stops delivering events to this watcher; events it has queued are discarded. */
  stop(): void;
  /** Same as `stop()`, so a watcher held with `using` stops at the end of its scope. */
  [Symbol.dispose](): void;
}

/** Settings of {@link newBroadcaster}. */
export interface EventBroadcasterOptions {
  /**
   * Wall clock for timestamps and the retry waits: its `now()` must be epoch milliseconds.
   * Default {@link systemClock}.
   */
  clock?: Clock | undefined;
  /**
   * Bound of the broadcaster's queue and of each watcher's queue; events beyond it are
   * dropped, never waited for. Default 1000.
   */
  maxQueuedEvents?: number | undefined;
  /** Wait between sink write tries, in milliseconds; the first is random in [0, this). Default 10 000. */
  sleepDurationMs?: number | undefined;
  /** Tries per event before giving up. Default 12. */
  maxTriesPerEvent?: number | undefined;
  /** Random source for the first retry wait. Default `Math.random`. */
  random?: RandomSource | undefined;
  /** Where drops, write failures and give-ups are reported. Default silent. */
  logger?: Logger | undefined;
  /** Aggregation, de-duplication and spam-filter settings for {@link EventBroadcaster.startRecordingToSink}. */
  correlatorOptions?: CorrelatorOptions | undefined;
}

/**
 * Receives events from its recorders and hands them to its watchers: a sink writing them to
 * the API server, a log line printer, your own functions (client-go's
 * `record.EventBroadcaster`).
 */
export interface EventBroadcaster {
  /** A recorder stamping events with `source`. */
  newRecorder(source: EventSourceOptions): EventRecorder;
  /**
   * Calls `handler` for every event, one at a time in recording order; a returned promise is
   * awaited before the next event. Errors thrown are reported to the logger.
   */
  startEventWatcher(handler: (event: Event) => void | Promise<void>): EventWatcher;
  /**
   * Calls `log` with one line per event, as client-go's `StartLogging`:
   * `Event(v1.ObjectReference{Kind:"Mydemo", ...}): type: 'Normal' reason: 'Synced' Mydemo synced successfully`.
   */
  startLogging(log: (message: string) => void): EventWatcher;
  /**
   * Writes events to `sink` after correlation (aggregation, de-duplication into count
   * patches, spam filtering), retrying failed writes up to 12 times.
   */
  startRecordingToSink(sink: EventSink): EventWatcher;
  /**
   * Resolves once every event recorded so far has been handled by every watcher, sink
   * retries included (so with a fake clock, step it while waiting).
   */
  flush(): Promise<void>;
  /**
   * Stops the broadcaster: later events are dropped; events already queued are handed to the
   * watchers, log and function watchers handle them, sink watchers abandon what they have
   * not started and do not retry the write in flight (pending retry waits end at once).
   * Resolves when every watcher is done; no timers are left behind.
   */
  shutdown(): Promise<void>;
}

type Handler = (event: Event) => void | Promise<void>;

class BroadcastWatcher implements EventWatcher {
  readonly #queue: Event[] = [];
  readonly #limit: number;
  readonly #handler: Handler;
  readonly #onStop: (watcher: BroadcastWatcher) => void;
  readonly #logger: Logger;
  readonly abort = new AbortController();
  #running = false;
  #stopped = false;
  #idle: (() => void)[] = [];

  constructor(
    limit: number,
    handler: Handler,
    onStop: (watcher: BroadcastWatcher) => void,
    logger: Logger,
  ) {
    this.#limit = limit;
    this.#handler = handler;
    this.#onStop = onStop;
    this.#logger = logger;
  }

  /** True while events are queued or being handled. */
  get busy(): boolean {
    return this.#running;
  }

  /** Queues `event`; false when the watcher is stopped or its queue is full. */
  push(event: Event): boolean {
    if (this.#stopped || this.#queue.length >= this.#limit) return false;
    this.#queue.push(event);
    if (!this.#running) {
      this.#running = true;
      queueMicrotask(() => void this.#pump());
    }
    return true;
  }

  async #pump(): Promise<void> {
    try {
      for (;;) {
        const event = this.#stopped ? undefined : this.#queue.shift();
        if (!event) break;
        try {
          await this.#handler(event);
        } catch (err) {
          this.#logger.error('event watcher failed to handle an event', {
            err,
            event: event.metadata.name,
          });
        }
      }
    } finally {
      this.#running = false;
      const waiters = this.#idle;
      this.#idle = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Resolves when nothing is queued or being handled. */
  idle(): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#queue.length = 0;
    this.abort.abort(new Error('event watcher stopped'));
    this.#onStop(this);
  }

  [Symbol.dispose](): void {
    this.stop();
  }
}

function quote(value: string | undefined): string {
  return JSON.stringify(value ?? '');
}

/** The `v1.ObjectReference{Kind:"...", ...}` rendering of client-go's `%#v`. */
export function formatObjectReference(ref: ObjectReference): string {
  return (
    `v1.ObjectReference{Kind:${quote(ref.kind)}, Namespace:${quote(ref.namespace)}, ` +
    `Name:${quote(ref.name)}, UID:${quote(ref.uid)}, APIVersion:${quote(ref.apiVersion)}, ` +
    `ResourceVersion:${quote(ref.resourceVersion)}, FieldPath:${quote(ref.fieldPath)}}`
  );
}

/** The line {@link EventBroadcaster.startLogging} prints for `event`. */
export function formatEventForLog(event: Event): string {
  return (
    `Event(${formatObjectReference(event.involvedObject)}): ` +
    `type: '${event.type ?? ''}' reason: '${event.reason ?? ''}' ${event.message ?? ''}`
  );
}

function describe(event: Event): string {
  const o = event.involvedObject;
  return `${o.kind ?? ''} ${o.namespace ? `${o.namespace}/` : ''}${o.name ?? ''} ${event.type ?? ''} ${event.reason ?? ''}: ${event.message ?? ''}`;
}

class Broadcaster implements EventBroadcaster {
  readonly #clock: Clock;
  readonly #maxQueued: number;
  readonly #sleepMs: number;
  readonly #maxTries: number;
  readonly #random: RandomSource;
  readonly #logger: Logger;
  readonly #correlatorOptions: CorrelatorOptions;
  readonly #incoming: Event[] = [];
  readonly #watchers = new Set<BroadcastWatcher>();
  #distributeScheduled = false;
  #closed = false;

  constructor(options: EventBroadcasterOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#maxQueued = options.maxQueuedEvents ?? defaultMaxQueuedEvents;
    if (!(Number.isInteger(this.#maxQueued) && this.#maxQueued > 0)) {
      throw new RangeError(`maxQueuedEvents must be a positive integer, got ${this.#maxQueued}`);
    }
    this.#sleepMs = options.sleepDurationMs ?? defaultSleepDurationMs;
    this.#maxTries = options.maxTriesPerEvent ?? maxTriesPerEvent;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? silentLogger;
    this.#correlatorOptions = { clock: this.#clock, ...options.correlatorOptions };
  }

  newRecorder(source: EventSourceOptions): EventRecorder {
    return new Recorder(this, source, this.#clock, this.#logger);
  }

  /** Queues an event for the watchers without waiting; false when it was dropped. */
  action(event: Event): boolean {
    if (this.#closed) {
      this.#logger.error('unable to record event: the broadcaster is shut down (will not retry!)', {
        event: describe(event),
      });
      return false;
    }
    if (this.#incoming.length >= this.#maxQueued) {
      this.#logger.error('unable to record event: too many queued events, dropped event', {
        event: describe(event),
      });
      return false;
    }
    this.#incoming.push(event);
    if (!this.#distributeScheduled) {
      this.#distributeScheduled = true;
      queueMicrotask(() => this.#distribute());
    }
    return true;
  }

  #distribute(): void {
    this.#distributeScheduled = false;
    const events = this.#incoming.splice(0);
    for (const event of events) {
      for (const watcher of this.#watchers) {
        if (!watcher.push(event)) {
          this.#logger.warn('event watcher queue is full, dropped event', {
            event: describe(event),
          });
        }
      }
    }
  }

  startEventWatcher(handler: Handler): EventWatcher {
    const watcher = new BroadcastWatcher(
      this.#maxQueued,
      handler,
      (w) => this.#watchers.delete(w),
      this.#logger,
    );
    if (this.#closed) {
      this.#logger.error('cannot start an event watcher: the broadcaster is shut down');
      watcher.stop();
      return watcher;
    }
    this.#watchers.add(watcher);
    return watcher;
  }

  startLogging(log: (message: string) => void): EventWatcher {
    return this.startEventWatcher((event) => log(formatEventForLog(event)));
  }

  startRecordingToSink(sink: EventSink): EventWatcher {
    const correlator = new EventCorrelator(this.#correlatorOptions);
    let signal: AbortSignal | undefined;
    const watcher = this.startEventWatcher((event) =>
      this.#recordToSink(sink, event, correlator, signal as AbortSignal),
    );
    signal = (watcher as BroadcastWatcher).abort.signal;
    return watcher;
  }

  async #recordToSink(
    sink: EventSink,
    original: Event,
    correlator: EventCorrelator,
    signal: AbortSignal,
  ): Promise<void> {
    if (signal.aborted) {
      this.#logger.debug('not writing event: the broadcaster is shut down', {
        event: describe(original),
      });
      return;
    }
    const copy: Event = { ...original, metadata: { ...original.metadata } };
    const result = correlator.correlate(copy);
    if (result.skip) {
      this.#logger.debug('event dropped by the spam filter', { event: describe(copy) });
      return;
    }
    const { event, patch } = result;
    for (let tries = 0; ; ) {
      if (await this.#recordEvent(sink, event, patch, correlator)) return;
      tries++;
      if (tries >= this.#maxTries) {
        this.#logger.error('unable to write event (retry limit exceeded!)', {
          event: describe(event),
          tries,
        });
        return;
      }
      // Randomize the first wait so clients do not retry in lockstep after an outage.
      const delay = tries === 1 ? this.#sleepMs * this.#random() : this.#sleepMs;
      try {
        await this.#clock.sleep(delay, signal);
      } catch {
        this.#logger.error('unable to write event (broadcaster is shut down)', {
          event: describe(event),
        });
        return;
      }
    }
  }

  /** One write attempt; true when done (written, or failed for good), false to retry. */
  async #recordEvent(
    sink: EventSink,
    event: Event,
    patch: EventPatch | undefined,
    correlator: EventCorrelator,
  ): Promise<boolean> {
    const updateExisting = (event.count ?? 0) > 1 && patch !== undefined;
    let written: Event | undefined;
    let error: unknown;
    let failed = false;
    if (updateExisting) {
      try {
        written = await sink.patch(event, patch);
      } catch (err) {
        failed = true;
        error = err;
      }
    }
    // The existing event may be gone (expired, deleted): create it again.
    if (!updateExisting || (failed && isNotFound(error))) {
      // Never send a resourceVersion on create.
      const { resourceVersion: _ignored, ...metadata } = event.metadata;
      const toCreate: Event = { ...event, metadata };
      failed = false;
      error = undefined;
      try {
        written = await sink.create(toCreate);
      } catch (err) {
        failed = true;
        error = err;
      }
    }
    if (!failed) {
      if (written) correlator.updateState(written);
      return true;
    }
    if (isInvalidRequestError(error)) {
      this.#logger.error('unable to construct event request (will not retry!)', {
        event: describe(event),
        err: error,
      });
      return true;
    }
    if (isStatusError(error)) {
      const log = isAlreadyExists(error) ? this.#logger.debug : this.#logger.error;
      log.call(this.#logger, 'server rejected event (will not retry!)', {
        event: describe(event),
        err: error,
      });
      return true;
    }
    this.#logger.error('unable to write event (may retry after sleeping)', {
      event: describe(event),
      err: error,
    });
    return false;
  }

  async flush(): Promise<void> {
    for (;;) {
      if (this.#incoming.length > 0) this.#distribute();
      const busy = [...this.#watchers].filter((w) => w.busy);
      if (busy.length === 0) return;
      await Promise.all(busy.map((w) => w.idle()));
    }
  }

  async shutdown(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#distribute();
      for (const watcher of this.#watchers) watcher.abort.abort(new Error('broadcaster shut down'));
    }
    const watchers = [...this.#watchers];
    await Promise.all(watchers.map((w) => w.idle()));
    for (const watcher of watchers) watcher.stop();
  }
}

const validTypes: ReadonlySet<string> = new Set<EventType>(['Normal', 'Warning']);

class Recorder implements EventRecorder {
  readonly #broadcaster: Broadcaster;
  readonly #source: EventSourceOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(broadcaster: Broadcaster, source: EventSourceOptions, clock: Clock, logger: Logger) {
    this.#broadcaster = broadcaster;
    this.#source = { ...source };
    this.#clock = clock;
    this.#logger = logger;
  }

  // Typed by the interface, so the parameter lists are written once, in EventRecorder.
  readonly event: EventRecorder['event'] = (obj, type, reason, message) =>
    this.#generate(obj, undefined, type, reason, () => message);

  readonly eventf: EventRecorder['eventf'] = (obj, type, reason, format, ...args) =>
    this.#generate(obj, undefined, type, reason, () => sprintf(format, args));

  readonly annotatedEventf: EventRecorder['annotatedEventf'] = (
    obj,
    annotations,
    type,
    reason,
    format,
    ...args
  ) => this.#generate(obj, annotations, type, reason, () => sprintf(format, args));

  #generate(
    obj: RecordableObject,
    annotations: Readonly<Record<string, string>> | undefined,
    type: EventType,
    reason: string,
    message: () => string,
  ): void {
    try {
      let ref: ObjectReference;
      try {
        ref = getReference(obj);
      } catch (err) {
        this.#logger.error(
          `Could not construct reference to the object: ${err instanceof Error ? err.message : String(err)}. Will not report event: '${type}' '${reason}'`,
          { err },
        );
        return;
      }
      if (!validTypes.has(type)) {
        this.#logger.error(`Unsupported event type: '${String(type)}'`);
        return;
      }
      this.#broadcaster.action(this.#makeEvent(ref, annotations, type, reason, message()));
    } catch (err) {
      // Recording must never break the caller.
      this.#logger.error('unable to record event', { err });
    }
  }

  #makeEvent(
    ref: ObjectReference,
    annotations: Readonly<Record<string, string>> | undefined,
    type: EventType,
    reason: string,
    message: string,
  ): Event {
    const now = this.#clock.now();
    const stamp = rfc3339(now);
    const event: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${ref.name ?? ''}.${uniqueUnixNanos(now).toString(16)}`,
        namespace: ref.namespace || 'default',
      },
      involvedObject: ref,
      reason,
      message,
      source: { component: this.#source.component },
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
      type,
      reportingComponent: this.#source.component,
      reportingInstance: this.#source.host ?? '',
    };
    if (annotations) event.metadata.annotations = { ...annotations };
    if (this.#source.host) event.source = { ...event.source, host: this.#source.host };
    return event;
  }
}

/**
 * A new event broadcaster (client-go's `record.NewBroadcaster`), with a bounded queue that
 * drops rather than blocks when full:
 *
 * ```ts
 * const broadcaster = newBroadcaster();
 * broadcaster.startLogging((line) => console.log(line));
 * broadcaster.startRecordingToSink(eventSinkFromClientset(clientset));
 * const recorder = broadcaster.newRecorder({ component: 'mydemo-controller' });
 * recorder.event(mydemo, 'Normal', 'Synced', 'Mydemo synced successfully');
 * ```
 */
export function newBroadcaster(options: EventBroadcasterOptions = {}): EventBroadcaster {
  return new Broadcaster(options);
}
