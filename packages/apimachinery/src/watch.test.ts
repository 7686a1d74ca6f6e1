import { describe, expect, it } from 'vitest';
import { isGone, isResourceExpired, isStatusError } from './status.js';
import {
  INITIAL_EVENTS_END_ANNOTATION,
  isInitialEventsEndBookmark,
  isWatchEventType,
  parseWatchEvent,
  type WatchEvent,
  watchErrorToStatusError,
  watchEventTypes,
} from './watch.js';

interface Pod {
  metadata: { name: string; resourceVersion?: string };
}

describe('isWatchEventType', () => {
  it('accepts the five types and nothing else', () => {
    for (const type of ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']) {
      expect(isWatchEventType(type)).toBe(true);
    }
    for (const value of ['added', 'SYNC', '', undefined, 1, {}]) {
      expect(isWatchEventType(value)).toBe(false);
    }
    expect(watchEventTypes).toHaveLength(5);
  });
});

describe('WatchEvent', () => {
  it('narrows by type', () => {
    const describe = (event: WatchEvent<Pod>): string => {
      switch (event.type) {
        case 'ADDED':
        case 'MODIFIED':
        case 'DELETED':
          return `${event.type} ${event.object.metadata.name}`;
        case 'BOOKMARK':
          return `bookmark at ${event.object.metadata?.resourceVersion}`;
        case 'ERROR':
          return `error ${event.object.code}`;
      }
    };
    expect(describe({ type: 'ADDED', object: { metadata: { name: 'a' } } })).toBe('ADDED a');
    expect(describe({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } })).toBe(
      'bookmark at 9',
    );
    expect(describe({ type: 'ERROR', object: { code: 410, reason: 'Expired' } })).toBe('error 410');
  });
});

describe('parseWatchEvent', () => {
  it('accepts a decoded watch line', () => {
    const event = parseWatchEvent<Pod>(
      JSON.parse('{"type":"MODIFIED","object":{"metadata":{"name":"a"}}}'),
    );
    expect(event).toEqual({ type: 'MODIFIED', object: { metadata: { name: 'a' } } });
  });

  it('rejects malformed envelopes', () => {
    expect(() => parseWatchEvent(null)).toThrow('expected a JSON object');
    expect(() => parseWatchEvent([])).toThrow(TypeError);
    expect(() => parseWatchEvent({ type: 'SYNC', object: {} })).toThrow('unknown type "SYNC"');
    expect(() => parseWatchEvent({ object: {} })).toThrow('unknown type undefined');
    expect(() => parseWatchEvent({ type: 'ADDED' })).toThrow(
      `the ADDED event's "object" is not an object`,
    );
    expect(() => parseWatchEvent({ type: 'ADDED', object: 'x' })).toThrow(TypeError);
  });
});

describe('isInitialEventsEndBookmark', () => {
  it('recognises the annotated bookmark only', () => {
    expect(INITIAL_EVENTS_END_ANNOTATION).toBe('k8s.io/initial-events-end');
    const end: WatchEvent<Pod> = {
      type: 'BOOKMARK',
      object: {
        metadata: {
          resourceVersion: '5',
          annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' },
        },
      },
    };
    expect(isInitialEventsEndBookmark(end)).toBe(true);
    expect(isInitialEventsEndBookmark({ type: 'BOOKMARK', object: { metadata: {} } })).toBe(false);
    expect(
      isInitialEventsEndBookmark({
        type: 'BOOKMARK',
        object: { metadata: { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'false' } } },
      }),
    ).toBe(false);
    expect(isInitialEventsEndBookmark({ type: 'ADDED', object: { metadata: { name: 'a' } } })).toBe(
      false,
    );
  });
});

describe('watchErrorToStatusError', () => {
  it('carries the Status so a reflector can tell it to relist', () => {
    const err = watchErrorToStatusError({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' },
    });
    expect(isStatusError(err)).toBe(true);
    expect(isResourceExpired(err)).toBe(true);
    expect(isGone(err)).toBe(false);
    expect(err.message).toBe('too old resource version');
  });

  // What a hostile or broken server puts in an ERROR event instead of a Status: the message
  // says what came (kind, apiVersion, a bounded excerpt), never "[object Object]".
  it.each<[what: string, object: unknown, message: RegExp]>([
    [
      'a Pod',
      { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a' } },
      /^unexpected object in a watch ERROR event \(expected a Status\): kind "Pod", apiVersion "v1": \{"kind":"Pod","apiVersion":"v1","metadata":\{"name":"a"\}\}$/,
    ],
    [
      'an object without kind whose message is an object',
      { message: { nested: true }, status: 'Failure' },
      /^unexpected object .*: no kind, no apiVersion: \{"message":\{"nested":true\},"status":"Failure"\}$/,
    ],
    ['an empty object', {}, /: no kind, no apiVersion: \{\}$/],
    ['an array', [1, 2], /: an array: \[1,2\]$/],
    ['a string', 'boom', /: string: "boom"$/],
    [
      'a huge ConfigMap',
      { kind: 'ConfigMap', apiVersion: 'v1', data: { big: 'x'.repeat(10_000) } },
      /kind "ConfigMap", apiVersion "v1": \{"kind":"ConfigMap".{150,200}\.\.\.$/,
    ],
  ])('describes %s instead of a Status', (_what, object, message) => {
    const err = watchErrorToStatusError({ type: 'ERROR', object: object as never });
    expect(isStatusError(err)).toBe(true);
    expect(err.code).toBe(500);
    expect(err.reason).toBe('InternalError');
    expect(err.message).toMatch(message);
    expect(err.message.length).toBeLessThan(400);
    expect(String(err)).not.toContain('[object Object]');
    expect(String(err)).not.toContain('HTTP unknown');
  });

  it('keeps a Status with a non-text message readable', () => {
    const err = watchErrorToStatusError({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Gone', message: { x: 1 } as never },
    });
    expect(isGone(err)).toBe(true);
    expect(err.message).toBe('Gone (HTTP 410)');
  });
});
