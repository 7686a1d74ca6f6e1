import type { Clock } from '@kubets/apimachinery';
import type { Event } from 'kubernetes-types/core/v1.js';
import { LruCache } from './lru.js';
import { rfc3339, systemClock, uniqueUnixNanos } from './time.js';

/** Entries each correlation cache (aggregation, de-duplication, spam) holds at most. */
export const maxLruCacheEntries = 4096;
/** Similar events (differing only in message) within the interval before they are aggregated. */
export const defaultAggregateMaxEvents = 10;
/** The window for counting similar events, in milliseconds (10 minutes). */
export const defaultAggregateIntervalMs = 600_000;
/** Events a source may emit about one object before the spam filter starts dropping. */
export const defaultSpamBurst = 25;
/** Spam-filter refill rate in tokens per second: one event per 5 minutes. */
export const defaultSpamQps = 1 / 300;

/** The prefix client-go puts on the message of an aggregated event. */
export const aggregatedMessagePrefix = '(combined from similar events): ';

/** Strategic merge patch body sent to update a repeated event in place. */
export interface EventPatch {
  /** How many times the event has now occurred. */
  count: number;
  /** When it last occurred, RFC 3339. */
  lastTimestamp: string;
  /** The latest message, when it changed. */
  message?: string;
}

/** Groups events for aggregation: `[aggregateKey, localKey]` (the local key tells members apart). */
export type EventAggregatorKeyFunc = (event: Event) => [aggregateKey: string, localKey: string];
/** Builds the message of an aggregated event. */
export type EventAggregatorMessageFunc = (event: Event) => string;
/** The key the spam filter rate-limits on. */
export type EventSpamKeyFunc = (event: Event) => string;
/** True when the event should be dropped. */
export type EventFilterFunc = (event: Event) => boolean;

/** Tunables of an {@link EventCorrelator}, as client-go's `CorrelatorOptions`. */
export interface CorrelatorOptions {
  /** Size of each LRU cache. Default {@link maxLruCacheEntries} (4096). */
  lruCacheSize?: number | undefined;
  /** Spam filter bucket size. Default {@link defaultSpamBurst} (25). */
  burstSize?: number | undefined;
  /** Spam filter refill rate, tokens per second. Default {@link defaultSpamQps} (1/300). */
  qps?: number | undefined;
  /** Aggregation grouping. Default {@link eventAggregatorByReasonFunc}. */
  keyFunc?: EventAggregatorKeyFunc | undefined;
  /** Aggregated message. Default {@link eventAggregatorByReasonMessageFunc}. */
  messageFunc?: EventAggregatorMessageFunc | undefined;
  /** Distinct similar events before aggregating. Default 10. */
  maxEvents?: number | undefined;
  /** Window for similar events, in milliseconds. Default 600 000. */
  maxIntervalMs?: number | undefined;
  /** Spam filter key. Default {@link getSpamKey}. */
  spamKeyFunc?: EventSpamKeyFunc | undefined;
  /** Wall clock. Default the system clock. */
  clock?: Pick<Clock, 'now'> | undefined;
}

// The source, involved object and type: the part client-go's event, spam and aggregation keys
// share. `fieldPath` belongs to the full event key only; the others pass '', which adds
// nothing to the concatenation, so all three keep client-go's field order.
function sourceObjectTypeKey(event: Event, fieldPath: string): string {
  const o = event.involvedObject;
  return [
    event.source?.component ?? '',
    event.source?.host ?? '',
    o.kind ?? '',
    o.namespace ?? '',
    o.name ?? '',
    fieldPath,
    o.uid ?? '',
    o.apiVersion ?? '',
    event.type ?? '',
  ].join('');
}

/** The full identity of an event: source, involved object, type, reason and message. */
export function getEventKey(event: Event): string {
  return (
    sourceObjectTypeKey(event, event.involvedObject.fieldPath ?? '') +
    (event.reason ?? '') +
    (event.message ?? '')
  );
}

/** The spam-filter key: source, involved object and type (not reason or message). */
export function getSpamKey(event: Event): string {
  return sourceObjectTypeKey(event, '');
}

/**
 * Groups events that match on source, involved object, type, reason and reporting
 * controller/instance; the message tells them apart (client-go's
 * `EventAggregatorByReasonFunc`).
 */
export const eventAggregatorByReasonFunc: EventAggregatorKeyFunc = (event) => {
  const aggregateKey =
    sourceObjectTypeKey(event, '') +
    (event.reason ?? '') +
    (event.reportingComponent ?? '') +
    (event.reportingInstance ?? '');
  return [aggregateKey, event.message ?? ''];
};

/** `(combined from similar events): <message>`. */
export const eventAggregatorByReasonMessageFunc: EventAggregatorMessageFunc = (event) =>
  aggregatedMessagePrefix + (event.message ?? '');

/** `options` with every default filled in (client-go's `populateDefaults`). */
function withDefaults(options: CorrelatorOptions): Required<CorrelatorOptions> {
  return {
    lruCacheSize: options.lruCacheSize ?? maxLruCacheEntries,
    burstSize: options.burstSize ?? defaultSpamBurst,
    qps: options.qps ?? defaultSpamQps,
    keyFunc: options.keyFunc ?? eventAggregatorByReasonFunc,
    messageFunc: options.messageFunc ?? eventAggregatorByReasonMessageFunc,
    maxEvents: options.maxEvents ?? defaultAggregateMaxEvents,
    maxIntervalMs: options.maxIntervalMs ?? defaultAggregateIntervalMs,
    spamKeyFunc: options.spamKeyFunc ?? getSpamKey,
    clock: options.clock ?? systemClock,
  };
}

/** What a correlation stage runs on: its options, defaults filled in, and its per-key state. */
interface Stage<T> {
  readonly options: Required<CorrelatorOptions>;
  readonly cache: LruCache<T>;
}

function newStage<T>(options: CorrelatorOptions): Stage<T> {
  const resolved = withDefaults(options);
  return { options: resolved, cache: new LruCache(resolved.lruCacheSize) };
}

/**
 * A token bucket that is only consulted, never waited on (client-go's passive limiter):
 * starts full with `burst` tokens and refills `qps` tokens per second.
 */
class PassiveTokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, now: number) {
    this.#qps = qps;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = now;
  }

  tryAccept(now: number): boolean {
    const elapsed = Math.max(0, now - this.#last) / 1000;
    this.#last = Math.max(this.#last, now);
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsed * this.#qps);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/**
 * Throttles how many events one source can emit about one object: a token bucket per
 * {@link getSpamKey} (burst 25, one more every 5 minutes by default), held in an LRU cache.
 */
export class EventSourceObjectSpamFilter {
  readonly #stage: Stage<PassiveTokenBucket>;

  constructor(options: CorrelatorOptions = {}) {
    this.#stage = newStage(options);
  }

  /** True when the event exceeds its source+object budget and must be dropped. */
  filter(event: Event): boolean {
    const { options, cache } = this.#stage;
    const key = options.spamKeyFunc(event);
    const now = options.clock.now();
    let bucket = cache.get(key);
    if (!bucket) bucket = new PassiveTokenBucket(options.qps, options.burstSize, now);
    const drop = !bucket.tryAccept(now);
    cache.set(key, bucket);
    return drop;
  }
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastTimestamp: number;
}

/**
 * Turns a burst of similar events (same {@link EventAggregatorKeyFunc} aggregate key,
 * different messages) into one aggregate event: once `maxEvents` distinct messages were
 * seen within `maxIntervalMs`, each further one is replaced by an event whose message is
 * `(combined from similar events): <latest message>`, correlated under the aggregate key so
 * repeats update that one event.
 */
export class EventAggregator {
  readonly #stage: Stage<AggregateRecord>;

  constructor(options: CorrelatorOptions = {}) {
    this.#stage = newStage(options);
  }

  /**
   * The event to write (the input, or a new aggregate event) and the key to correlate it
   * under: the full {@link getEventKey} normally, the aggregate key for an aggregate event.
   */
  aggregate(event: Event): {
    /** The event to write: the input, or a new aggregate event. */
    event: Event;
    /** The key to correlate the event under in the {@link EventLogger}. */
    key: string;
  } {
    const { options, cache } = this.#stage;
    const now = options.clock.now();
    const eventKey = getEventKey(event);
    const [aggregateKey, localKey] = options.keyFunc(event);
    let record = cache.get(aggregateKey);
    if (!record || now - record.lastTimestamp > options.maxIntervalMs) {
      record = { localKeys: new Set(), lastTimestamp: 0 };
    }
    record.localKeys.add(localKey);
    record.lastTimestamp = now;
    cache.set(aggregateKey, record);
    if (record.localKeys.size < options.maxEvents) return { event, key: eventKey };

    // Keep the set at its bound: forget one member (any) before aggregating.
    const any = record.localKeys.values().next();
    if (!any.done) record.localKeys.delete(any.value);

    const stamp = rfc3339(now);
    const aggregated: Event = {
      metadata: {
        name: `${event.involvedObject.name ?? ''}.${uniqueUnixNanos(now).toString(16)}`,
        namespace: event.metadata.namespace,
      },
      involvedObject: { ...event.involvedObject },
      count: 1,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      message: options.messageFunc(event),
      type: event.type,
      reason: event.reason,
      source: event.source ? { ...event.source } : undefined,
    };
    if (aggregated.source === undefined) delete aggregated.source;
    return { event: aggregated, key: aggregateKey };
  }
}

interface EventLog {
  count: number;
  firstTimestamp: string | undefined;
  name: string | undefined;
  resourceVersion: string | undefined;
}

/**
 * Remembers the events already written (client-go's `eventLogger`), so a repeat of an
 * identical event becomes a patch of the existing Event's `count`, `lastTimestamp` and
 * `message` instead of a new object.
 */
export class EventLogger {
  readonly #cache: LruCache<EventLog>;

  constructor(options: Pick<CorrelatorOptions, 'lruCacheSize'> = {}) {
    this.#cache = new LruCache(withDefaults(options).lruCacheSize);
  }

  /**
   * Records an occurrence of `event` under `key`. For a repeat, returns the event renamed to
   * the first occurrence (same name, resourceVersion and firstTimestamp, count + 1) and the
   * patch to send; for a first occurrence, the event unchanged and no patch.
   */
  observe(
    event: Event,
    key: string,
  ): {
    /** The event to write, renamed to the first occurrence for a repeat. */
    event: Event;
    /** For a repeat, the patch for the existing Event; `undefined` for a first occurrence. */
    patch: EventPatch | undefined;
  } {
    const last = this.#cache.get(key);
    let observed: Event = { ...event, metadata: { ...event.metadata } };
    let patch: EventPatch | undefined;
    if (last && last.count > 0) {
      const { resourceVersion: _ignored, ...metadata } = event.metadata;
      observed = {
        ...observed,
        metadata: {
          ...metadata,
          name: last.name,
          ...(last.resourceVersion !== undefined ? { resourceVersion: last.resourceVersion } : {}),
        },
      };
      observed.firstTimestamp = last.firstTimestamp;
      observed.count = last.count + 1;
      patch = { count: observed.count, lastTimestamp: observed.lastTimestamp ?? '' };
      if (observed.message) patch.message = observed.message;
    }
    this.#remember(key, observed);
    return { event: observed, patch };
  }

  /** Takes in the server's copy of a written event (its name, resourceVersion and count). */
  updateState(event: Event): void {
    this.#remember(getEventKey(event), event);
  }

  #remember(key: string, event: Event): void {
    this.#cache.set(key, {
      count: event.count ?? 0,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata.name,
      resourceVersion: event.metadata.resourceVersion,
    });
  }
}

/** What {@link EventCorrelator.correlate} decided about one event. */
export type EventCorrelateResult =
  | {
      /** Write this event: create it, or (when `patch` is set) patch the existing one. */
      skip: false;
      /** The event to write, possibly aggregated or renamed to an earlier occurrence. */
      event: Event;
      /** Set for a repeat: the strategic merge patch for the existing Event. */
      patch: EventPatch | undefined;
    }
  | {
      /** Drop this event: the spam filter rejected it. */
      skip: true;
    };

/**
 * client-go's `EventCorrelator`: aggregation ({@link EventAggregator}), then de-duplication
 * ({@link EventLogger}), then the spam filter ({@link EventSourceObjectSpamFilter}).
 */
export class EventCorrelator {
  readonly #aggregator: EventAggregator;
  readonly #logger: EventLogger;
  readonly #filter: EventFilterFunc;

  constructor(options: CorrelatorOptions = {}) {
    this.#aggregator = new EventAggregator(options);
    this.#logger = new EventLogger(options);
    const spamFilter = new EventSourceObjectSpamFilter(options);
    this.#filter = (event) => spamFilter.filter(event);
  }

  /** Decides whether and how `event` is written. */
  correlate(event: Event): EventCorrelateResult {
    const aggregated = this.#aggregator.aggregate(event);
    const observed = this.#logger.observe(aggregated.event, aggregated.key);
    if (this.#filter(observed.event)) return { skip: true };
    return { skip: false, event: observed.event, patch: observed.patch };
  }

  /** Records the server's copy of an event after a successful write. */
  updateState(event: Event): void {
    this.#logger.updateState(event);
  }
}
