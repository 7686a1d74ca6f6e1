// client-go's (k8s.io/apimachinery pkg/api/errors) errors_test.go, as data: each row keeps
// the Go test's input and expectation. Go-only cases are listed in the package README.
import { describe, expect, it } from 'vitest';
import {
  findStatusError,
  isForbidden,
  isNotFound,
  isRequestEntityTooLarge,
  isTooManyRequests,
  type Status,
  StatusError,
  type StatusReason,
} from './status.js';

const statusError = (status: Status) => new StatusError(status);
// Go's fmt.Errorf("...: %w", err) is an Error whose cause is err.
const wrap = (message: string, err: unknown) => new Error(message, { cause: err });
// Go's ReasonForError: the reason of the first StatusError in the chain, else "".
const reasonForError = (err: unknown) => findStatusError(err)?.reason ?? '';

describe('TestReasonForError', () => {
  it('is the unknown reason for no error', () => {
    expect(reasonForError(undefined)).toBe('');
  });
});

describe('TestReasonForErrorSupportsWrappedErrors', () => {
  it.each([
    { name: 'Direct match', err: statusError({ reason: 'Unauthorized' }), reason: 'Unauthorized' },
    { name: 'No match', err: new Error('some other error'), reason: '' },
    {
      name: 'Nested match',
      err: wrap('wrapping', wrap('some more', statusError({ reason: 'AlreadyExists' }))),
      reason: 'AlreadyExists',
    },
    {
      name: 'Nested, no match',
      err: wrap('wrapping', wrap('some more', new Error('hello'))),
      reason: '',
    },
    { name: 'Nil', err: undefined, reason: '' },
  ])('$name', ({ err, reason }) => {
    expect(reasonForError(err)).toBe(reason);
  });
});

// The rows TestIsTooManyRequestsSupportsWrappedErrors and
// TestIsRequestEntityTooLargeErrorSupportsWrappedErrors share, for their reason and code.
const wrappedErrorRows = (reason: StatusReason, code: number) => [
  { name: 'Direct match via status reason', err: statusError({ reason }), match: true },
  { name: 'Direct match via status code', err: statusError({ code }), match: true },
  { name: 'No match', err: statusError({}), match: false },
  {
    name: 'Nested match via status reason',
    err: wrap('Wrapping', statusError({ reason })),
    match: true,
  },
  {
    name: 'Nested match via status code',
    err: wrap('Wrapping', statusError({ code })),
    match: true,
  },
  { name: 'Nested,no match', err: wrap('Wrapping', statusError({ code: 404 })), match: false },
  { name: 'Nil', err: undefined, match: false },
];

describe('TestIsTooManyRequestsSupportsWrappedErrors', () => {
  it.each(wrappedErrorRows('TooManyRequests', 429))('$name', ({ err, match }) => {
    expect(isTooManyRequests(err)).toBe(match);
  });
});

describe('TestIsRequestEntityTooLargeErrorSupportsWrappedErrors', () => {
  it.each(wrappedErrorRows('RequestEntityTooLarge', 413))('$name', ({ err, match }) => {
    expect(isRequestEntityTooLarge(err)).toBe(match);
  });
});

describe('TestIsErrorTypesByReasonAndCode', () => {
  it.each([
    {
      name: 'IsRequestEntityTooLarge',
      fn: isRequestEntityTooLarge,
      knownReason: 'RequestEntityTooLarge',
      otherReason: 'Forbidden',
      otherReasonConsidered: false,
      code: 413,
    },
    {
      name: 'TooManyRequests',
      fn: isTooManyRequests,
      knownReason: 'TooManyRequests',
      otherReason: 'Forbidden',
      otherReasonConsidered: false,
      code: 429,
    },
    {
      name: 'Forbidden',
      fn: isForbidden,
      knownReason: 'Forbidden',
      otherReason: 'NotFound',
      otherReasonConsidered: true,
      code: 403,
    },
    {
      name: 'NotFound',
      fn: isNotFound,
      knownReason: 'NotFound',
      otherReason: 'Forbidden',
      otherReasonConsidered: true,
      code: 404,
    },
  ])('$name', ({ fn, knownReason, otherReason, otherReasonConsidered, code }) => {
    // by known reason
    expect(fn(statusError({ reason: knownReason }))).toBe(true);
    // by code and unknown reason
    expect(fn(statusError({ reason: '', code }))).toBe(true);
    // by code and other known reason: only where Go considers the other reason
    expect(fn(statusError({ reason: otherReason, code }))).toBe(!otherReasonConsidered);
  });
});
