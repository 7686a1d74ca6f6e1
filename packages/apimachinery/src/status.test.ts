import { describe, expect, it } from 'vitest';
import * as statusModule from './status.js';
import {
  findStatusError,
  isAlreadyExists,
  isConflict,
  isGone,
  isInternalError,
  isNotFound,
  isResourceExpired,
  isServerTimeout,
  isStatusError,
  isTimeout,
  isTooManyRequests,
  type Status,
  StatusError,
  statusFromHttp,
} from './status.js';

function failure(code: number, reason: string, extra: Partial<Status> = {}): StatusError {
  return new StatusError({ kind: 'Status', status: 'Failure', code, reason, ...extra });
}

describe('StatusError', () => {
  it('exposes code, reason and the Status as sent', () => {
    const status: Status = { code: 404, reason: 'NotFound', message: 'pods "x" not found' };
    const err = new StatusError(status);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('StatusError');
    expect(err.status).toBe(status);
    expect(err.code).toBe(404);
    expect(err.reason).toBe('NotFound');
  });

  it('uses the server message, or describes the status when there is none', () => {
    expect(new StatusError({ code: 409, message: 'the object has been modified' }).message).toBe(
      'the object has been modified',
    );
    const described = new StatusError({
      code: 404,
      reason: 'NotFound',
      details: { kind: 'pods', name: 'mypod' },
    });
    expect(described.message).toBe('pods "mypod": NotFound (HTTP 404)');
    expect(new StatusError({}).message).toBe('request failed (HTTP unknown)');
  });

  it('defaults code to 0 and reason to empty when absent', () => {
    const err = new StatusError({});
    expect(err.code).toBe(0);
    expect(err.reason).toBe('');
    expect(err.retryAfterSeconds).toBeUndefined();
  });

  it('reports retryAfterSeconds from details', () => {
    expect(
      failure(429, 'TooManyRequests', { details: { retryAfterSeconds: 7 } }).retryAfterSeconds,
    ).toBe(7);
  });

  it('keeps the cause', () => {
    const cause = new Error('socket hang up');
    expect(new StatusError({ code: 500 }, { cause }).cause).toBe(cause);
  });
});

describe('isStatusError', () => {
  it('recognises StatusError and rejects other values', () => {
    expect(isStatusError(new StatusError({ code: 500 }))).toBe(true);
    expect(isStatusError(new Error('plain'))).toBe(false);
    expect(isStatusError({ code: 404, reason: 'NotFound' })).toBe(false);
    expect(isStatusError(null)).toBe(false);
    expect(isStatusError('NotFound')).toBe(false);
  });

  it('recognises an error branded by another copy of the package', () => {
    // A second copy of the package has its own class but the same Symbol.for brand.
    const foreign = Object.assign(new Error('from another copy'), {
      [Symbol.for('kubets.StatusError')]: true,
      status: { code: 404, reason: 'NotFound' },
      code: 404,
      reason: 'NotFound',
    });
    expect(foreign).not.toBeInstanceOf(StatusError);
    expect(isStatusError(foreign)).toBe(true);
    expect(isNotFound(foreign)).toBe(true);
  });
});

describe('reason matching with code fallback', () => {
  const exportsByName = new Map<string, unknown>(Object.entries(statusModule));
  // helper, reason, code: one helper a line.
  const table = `
    isNotFound NotFound 404
    isConflict Conflict 409
    isInvalid Invalid 422
    isGone Gone 410
    isTooManyRequests TooManyRequests 429
    isUnauthorized Unauthorized 401
    isForbidden Forbidden 403
    isTimeout Timeout 504
    isInternalError InternalError 500
    isBadRequest BadRequest 400
    isMethodNotSupported MethodNotAllowed 405
    isServiceUnavailable ServiceUnavailable 503`;
  const helpers = table
    .trim()
    .split('\n')
    .map((line) => {
      const [name, reason, code] = line.trim().split(/\s+/) as [string, string, string];
      const helper = exportsByName.get(name) as (err: unknown) => boolean;
      return [helper, reason, Number(code)] as const;
    });

  for (const [helper, reason, code] of helpers) {
    it(`${helper.name || reason}: matches reason ${reason}, falls back to ${code}`, () => {
      expect(helper(failure(code, reason))).toBe(true);
      // The reason decides even when the code disagrees.
      expect(helper(failure(599, reason))).toBe(true);
      // Empty and unknown reasons fall back to the code.
      expect(helper(failure(code, ''))).toBe(true);
      expect(helper(new StatusError({ code }))).toBe(true);
      expect(helper(failure(code, 'SomethingNewerThanThisClient'))).toBe(true);
      // A different known reason wins over a matching code.
      if (helper !== isTooManyRequests) {
        expect(helper(failure(code, reason === 'BadRequest' ? 'Invalid' : 'BadRequest'))).toBe(
          false,
        );
      }
      expect(helper(failure(418, ''))).toBe(false);
    });
  }

  it('knows StorageReadError: a 500 with that reason is not an InternalError', () => {
    const storeReadError = failure(500, 'StorageReadError');
    expect(isInternalError(storeReadError)).toBe(false);
    expect(isInternalError(failure(500, 'StoreReadError'))).toBe(true);
  });

  it('returns false for non-StatusErrors', () => {
    expect(isNotFound(new Error('404'))).toBe(false);
    expect(isNotFound({ code: 404 })).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  it('look through cause chains and AggregateError, as Go errors.As unwraps', () => {
    const notFound = failure(404, 'NotFound');
    const wrapped = new Error('getting pod', {
      cause: new Error('in lister', { cause: notFound }),
    });
    expect(isNotFound(wrapped)).toBe(true);
    expect(isConflict(wrapped)).toBe(false);
    expect(findStatusError(wrapped)).toBe(notFound);
    // Depth first: the first StatusError found decides, as errors.As stops at it.
    const joined = new AggregateError([new Error('x'), failure(409, 'Conflict'), notFound]);
    expect(isConflict(joined)).toBe(true);
    expect(isNotFound(joined)).toBe(false);
    expect(isConflict(new Error('outer', { cause: joined }))).toBe(true);
    // A chain that loops ends.
    const looped = new Error('a') as Error & { cause?: unknown };
    looped.cause = new Error('b', { cause: looped });
    expect(isNotFound(looped)).toBe(false);
    expect(findStatusError(looped)).toBeUndefined();
  });

  it('isServerTimeout matches only the reason', () => {
    expect(isServerTimeout(failure(504, 'ServerTimeout'))).toBe(true);
    expect(isServerTimeout(failure(504, ''))).toBe(false);
    expect(isTimeout(failure(504, 'ServerTimeout'))).toBe(false);
  });
});

describe('409: AlreadyExists vs Conflict', () => {
  it('AlreadyExists is only the reason; a bare 409 is a Conflict', () => {
    const exists = failure(409, 'AlreadyExists');
    expect(isAlreadyExists(exists)).toBe(true);
    expect(isConflict(exists)).toBe(false);

    const conflict = failure(409, 'Conflict');
    expect(isConflict(conflict)).toBe(true);
    expect(isAlreadyExists(conflict)).toBe(false);

    const bare = new StatusError({ code: 409 });
    expect(isConflict(bare)).toBe(true);
    expect(isAlreadyExists(bare)).toBe(false);
  });
});

describe('410: Gone vs Expired', () => {
  it('reason Expired is a resource-expired error, not Gone', () => {
    const expired = failure(410, 'Expired', { message: 'too old resource version: 1 (2)' });
    expect(isResourceExpired(expired)).toBe(true);
    expect(isGone(expired)).toBe(false);
  });

  it('reason Gone is Gone, not resource-expired', () => {
    const gone = failure(410, 'Gone');
    expect(isGone(gone)).toBe(true);
    expect(isResourceExpired(gone)).toBe(false);
  });

  it('a 410 without a known reason counts as both, so a reflector relists either way', () => {
    const bare = new StatusError({ code: 410 });
    expect(isGone(bare)).toBe(true);
    expect(isResourceExpired(bare)).toBe(true);
  });
});

describe('statusFromHttp', () => {
  it('derives the reason from the code', () => {
    const status = statusFromHttp(404, 'pods "x" not found');
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      message: 'pods "x" not found',
    });
    expect(isNotFound(new StatusError(status))).toBe(true);
    expect(statusFromHttp(410, '').reason).toBe('Gone');
    expect(statusFromHttp(422, '').reason).toBe('Invalid');
    expect(statusFromHttp(418, '').reason).toBe('');
  });

  it('writes a message when the body had none', () => {
    expect(statusFromHttp(503, '').message).toBe(
      'the server responded with HTTP 503 (ServiceUnavailable)',
    );
    expect(statusFromHttp(418, '').message).toBe('the server responded with HTTP 418');
  });

  it('carries Retry-After into details', () => {
    const status = statusFromHttp(429, 'slow down', 3);
    expect(status.details).toEqual({ retryAfterSeconds: 3 });
    const err = new StatusError(status);
    expect(err.retryAfterSeconds).toBe(3);
    expect(isTooManyRequests(err)).toBe(true);
    expect(statusFromHttp(429, 'slow down').details).toBeUndefined();
  });
});
