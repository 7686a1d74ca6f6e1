import { StatusError, watchErrorToStatusError } from '@kubets/apimachinery';
import { TransportError, watchDecodeFailure, watchStreamBrokenEvent } from '@kubets/rest';
import { describe, expect, it } from 'vitest';
import { expiredError, statusError } from '../test/helpers.js';
import { DataInconsistencyError } from './data-consistency-detector.js';
import {
  maxIncompleteStreamingLists,
  nextReflectorAction,
  type ReflectorAction,
  type ReflectorOutcome,
} from './reflector-policy.js';

// Every kind of failure the reflector meets, as the layers below it report them.
const refused = new TransportError(
  'GET https://127.0.0.1:6443/api/v1/pods: connect ECONNREFUSED',
  { method: 'GET', url: 'https://127.0.0.1:6443/api/v1/pods', code: 'ECONNREFUSED' },
  { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) },
);
const reset = new TransportError(
  'GET https://127.0.0.1:6443/api/v1/pods: socket hang up',
  { method: 'GET', url: 'https://127.0.0.1:6443/api/v1/pods', code: 'ECONNRESET' },
  { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) },
);
const expired = expiredError();
const gone = statusError(410, 'Gone');
const tooManyRequests = statusError(429, 'TooManyRequests');
const internal = statusError(500, 'InternalError', 'etcdserver: no leader');
const forbidden = statusError(403, 'Forbidden');
const invalid = statusError(422, 'Invalid');
const tooLargeRV = new StatusError({
  kind: 'Status',
  status: 'Failure',
  code: 504,
  reason: 'Timeout',
  message: 'Too large resource version: 20, current: 10',
  details: {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
  },
});
/** A Timeout of a server older than 1.17, which says it only in its message. */
const tooLargeRVOld = statusError(504, 'Timeout', 'Too large resource version: 20, current: 10');
const brokenStream = (() => {
  const event = watchStreamBrokenEvent('the watch stream broke: socket hang up');
  if (event.type !== 'ERROR') throw new Error('expected an ERROR event');
  return watchErrorToStatusError(event);
})();
const undecodable = new StatusError(watchDecodeFailure('unable to decode an event: bad JSON'));
const inconsistent = new DataInconsistencyError('pods');

const stop: ReflectorAction = { kind: 'stop' };
const fail: ReflectorAction = { kind: 'fail', atLatest: false };
const failAtLatest: ReflectorAction = { kind: 'fail', atLatest: true };
const listAtLatest: ReflectorAction = { kind: 'list-at-latest' };
const pagedList: ReflectorAction = { kind: 'paged-list' };
const streamAtLatest: ReflectorAction = {
  kind: 'streaming-list',
  after: 'now',
  atLatest: true,
  report: 'none',
};
const streamAfterBackoff: ReflectorAction = {
  kind: 'streaming-list',
  after: 'backoff',
  atLatest: false,
  report: 'failure',
};
const streamAgainAfterBackoff: ReflectorAction = {
  kind: 'streaming-list',
  after: 'backoff',
  atLatest: false,
  report: 'incomplete-stream',
};
const pagedListForAWhile: ReflectorAction = {
  kind: 'paged-list',
  report: 'missing-bookmark',
  pauseStreamingMs: 10 * 60_000,
};
const watchNow: ReflectorAction = { kind: 'watch', after: 'now', report: 'none' };
const watchAfterDeadline: ReflectorAction = { kind: 'watch', after: 'now', report: 'deadline' };
const watchAfterBackoff: ReflectorAction = { kind: 'watch', after: 'backoff', report: 'failure' };
const watchAfterInternalError: ReflectorAction = {
  kind: 'watch',
  after: 'now',
  report: 'internal-error',
};
const relistAfterWatchError: ReflectorAction = {
  kind: 'relist',
  atLatest: false,
  report: 'watch-error',
};

const table: { name: string; outcome: ReflectorOutcome; action: ReflectorAction }[] = [
  // A paged list.
  { name: 'list: 410 Expired', outcome: { step: 'list', error: expired }, action: listAtLatest },
  { name: 'list: 410 Gone', outcome: { step: 'list', error: gone }, action: listAtLatest },
  {
    name: 'list: too large resource version',
    outcome: { step: 'list', error: tooLargeRV },
    action: listAtLatest,
  },
  {
    name: 'list: too large resource version (server before 1.17)',
    outcome: { step: 'list', error: tooLargeRVOld },
    action: listAtLatest,
  },
  {
    name: 'list: a plain Timeout',
    outcome: { step: 'list', error: statusError(504, 'Timeout') },
    action: fail,
  },
  { name: 'list: refused', outcome: { step: 'list', error: refused }, action: fail },
  { name: 'list: 500', outcome: { step: 'list', error: internal }, action: fail },
  {
    name: 'list: 410 after the reflector stopped',
    outcome: { step: 'list', error: expired, stopped: true },
    action: fail,
  },
  // A streaming list.
  {
    name: 'streaming list: stopped',
    outcome: { step: 'streaming-list', error: refused, stopped: true },
    action: stop,
  },
  {
    name: 'streaming list: refused',
    outcome: { step: 'streaming-list', error: refused },
    action: streamAfterBackoff,
  },
  {
    name: 'streaming list: 429',
    outcome: { step: 'streaming-list', error: tooManyRequests },
    action: streamAfterBackoff,
  },
  {
    name: 'streaming list: 410 Expired',
    outcome: { step: 'streaming-list', error: expired },
    action: streamAtLatest,
  },
  {
    name: 'streaming list: 410 Gone',
    outcome: { step: 'streaming-list', error: gone },
    action: streamAtLatest,
  },
  {
    name: 'streaming list: too large resource version',
    outcome: { step: 'streaming-list', error: tooLargeRV },
    action: streamAtLatest,
  },
  {
    name: 'streaming list: refused by a server without streaming lists (422)',
    outcome: { step: 'streaming-list', error: invalid },
    action: pagedList,
  },
  {
    name: 'streaming list: a reset connection',
    outcome: { step: 'streaming-list', error: reset },
    action: pagedList,
  },
  {
    name: 'streaming list: an undecodable event',
    outcome: { step: 'streaming-list', error: undecodable },
    action: pagedList,
  },
  {
    name: 'streaming list: its deadline passed',
    outcome: { step: 'streaming-list', error: refused, deadlineExpired: true },
    action: pagedListForAWhile,
  },
  {
    name: 'streaming list: the data-consistency check failed',
    outcome: { step: 'streaming-list', error: inconsistent },
    action: fail,
  },
  {
    name: 'streaming list: ended before its initial events did',
    outcome: { step: 'streaming-list', incompleteStreams: 1 },
    action: streamAgainAfterBackoff,
  },
  {
    name: 'streaming list: the second in a row to end before its initial events did',
    outcome: { step: 'streaming-list', incompleteStreams: maxIncompleteStreamingLists - 1 },
    action: streamAgainAfterBackoff,
  },
  {
    name: 'streaming list: the third in a row to end before its initial events did',
    outcome: { step: 'streaming-list', incompleteStreams: maxIncompleteStreamingLists },
    action: pagedListForAWhile,
  },
  {
    name: 'streaming list: held open past its deadline, then the reflector stopped',
    outcome: { step: 'streaming-list', deadlineExpired: true, stopped: true },
    action: stop,
  },
  {
    name: 'streaming list: ended at once with no events',
    outcome: { step: 'streaming-list', veryShort: true },
    action: pagedList,
  },
  {
    name: 'streaming list: ended at its deadline (held open past its timeout without the bookmark)',
    outcome: { step: 'streaming-list', deadlineExpired: true, incompleteStreams: 1 },
    action: pagedListForAWhile,
  },
  // The watch request.
  {
    name: 'watch request: stopped',
    outcome: { step: 'watch-request', error: forbidden, stopped: true },
    action: stop,
  },
  {
    name: 'watch request: its deadline passed',
    outcome: { step: 'watch-request', error: reset, deadlineExpired: true },
    action: watchAfterDeadline,
  },
  {
    name: 'watch request: refused',
    outcome: { step: 'watch-request', error: refused },
    action: watchAfterBackoff,
  },
  {
    name: 'watch request: 429',
    outcome: { step: 'watch-request', error: tooManyRequests },
    action: watchAfterBackoff,
  },
  {
    name: 'watch request: 410 right after the list',
    outcome: { step: 'watch-request', error: expired, watchedSinceList: false },
    action: failAtLatest,
  },
  {
    name: 'watch request: 410 after watch events',
    outcome: { step: 'watch-request', error: gone, watchedSinceList: true },
    action: fail,
  },
  {
    name: 'watch request: 403',
    outcome: { step: 'watch-request', error: forbidden },
    action: fail,
  },
  {
    name: 'watch request: a refusal not from the transport (no code) fails',
    outcome: { step: 'watch-request', error: new Error('connect ECONNREFUSED 127.0.0.1:6443') },
    action: fail,
  },
  // Reading the watch stream threw.
  {
    name: 'watch stream: threw',
    outcome: { step: 'watch-stream', error: reset },
    action: watchAfterBackoff,
  },
  {
    name: 'watch stream: threw at its deadline',
    outcome: { step: 'watch-stream', error: reset, deadlineExpired: true },
    action: watchAfterDeadline,
  },
  {
    name: 'watch stream: threw after the reflector stopped',
    outcome: { step: 'watch-stream', error: reset, stopped: true },
    action: stop,
  },
  // The watch ended.
  { name: 'watch end: clean', outcome: { step: 'watch-end' }, action: watchNow },
  {
    name: 'watch end: at once with no events',
    outcome: { step: 'watch-end', veryShort: true },
    action: { kind: 'relist', atLatest: false, report: 'very-short-watch' },
  },
  {
    name: 'watch end: at its deadline',
    outcome: { step: 'watch-end', deadlineExpired: true, veryShort: true },
    action: watchAfterDeadline,
  },
  {
    name: 'watch end: stopped',
    outcome: { step: 'watch-end', error: expired, stopped: true },
    action: stop,
  },
  {
    name: 'watch end: the stream broke',
    outcome: { step: 'watch-end', error: brokenStream, retryInternalError: true },
    action: watchAfterBackoff,
  },
  {
    name: 'watch end: ERROR 410 right after the list',
    outcome: { step: 'watch-end', error: expired },
    action: { kind: 'relist', atLatest: true, report: 'expired' },
  },
  {
    name: 'watch end: ERROR 410 after watch events',
    outcome: { step: 'watch-end', error: gone, watchedSinceList: true },
    action: { kind: 'relist', atLatest: false, report: 'expired' },
  },
  {
    name: 'watch end: ERROR 429',
    outcome: { step: 'watch-end', error: tooManyRequests },
    action: watchAfterBackoff,
  },
  {
    name: 'watch end: ERROR InternalError within maxInternalErrorRetryDuration',
    outcome: { step: 'watch-end', error: internal, retryInternalError: true },
    action: watchAfterInternalError,
  },
  {
    name: 'watch end: ERROR InternalError past maxInternalErrorRetryDuration',
    outcome: { step: 'watch-end', error: internal, retryInternalError: false },
    action: relistAfterWatchError,
  },
  {
    name: 'watch end: an undecodable event',
    outcome: { step: 'watch-end', error: undecodable },
    action: relistAfterWatchError,
  },
  {
    name: 'watch end: the broken-stream words from the server are its verdict',
    outcome: {
      step: 'watch-end',
      error: statusError(500, 'InternalError', 'the watch stream broke: socket hang up'),
    },
    action: relistAfterWatchError,
  },
  {
    name: 'watch end: ERROR 403',
    outcome: { step: 'watch-end', error: forbidden, watchedSinceList: true },
    action: relistAfterWatchError,
  },
];

describe('nextReflectorAction', () => {
  it.each(table)('$name', ({ outcome, action }) => {
    expect(nextReflectorAction(outcome)).toEqual(action);
  });

  it('covers every step', () => {
    const steps = new Set(table.map((c) => c.outcome.step));
    expect([...steps].sort()).toEqual(
      ['list', 'streaming-list', 'watch-end', 'watch-request', 'watch-stream'].sort(),
    );
  });
});
