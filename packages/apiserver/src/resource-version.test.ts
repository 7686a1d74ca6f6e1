import { describe, expect, it } from 'vitest';
import { checkGetResourceVersion } from './list.js';
import { continueTokenRevision, goQuote, parseResourceVersion } from './resource-version.js';
import type { ApiError } from './status.js';

describe('parseResourceVersion', () => {
  it('reads every digit, past what a Number holds exactly', () => {
    expect(parseResourceVersion('12345678901234567')).toBe(12345678901234567n);
    expect(parseResourceVersion('18446744073709551615')).toBe(2n ** 64n - 1n);
    expect(parseResourceVersion('')).toBe(0n);
    expect(parseResourceVersion('007')).toBe(7n);
  });

  it('reports an overflow before a later bad character, as Go scans left to right', () => {
    expect(() => parseResourceVersion('99999999999999999999x')).toThrow(
      'strconv.ParseUint: parsing "99999999999999999999x": value out of range',
    );
    expect(() => parseResourceVersion('9x9999999999999999999999')).toThrow('invalid syntax');
  });

  it('names a 17-digit version ahead of the server without rounding it', () => {
    let error: ApiError | undefined;
    try {
      checkGetResourceVersion('12345678901234567', 5);
    } catch (e) {
      error = e as ApiError;
    }
    expect(error?.status.message).toBe(
      'Timeout: Too large resource version: 12345678901234567, current: 5',
    );
  });
});

describe('continueTokenRevision', () => {
  it('takes the JSON text of the number, not its rounded value', () => {
    expect(continueTokenRevision('9223372036854775807', Number('9223372036854775807'))).toBe(
      2n ** 63n - 1n,
    );
    expect(continueTokenRevision('-9223372036854775809', Number('-9223372036854775809'))).toBe(
      'json: cannot unmarshal number -9223372036854775809 into Go struct field continueToken.rv of type int64',
    );
    expect(continueTokenRevision(undefined, [1])).toBe(
      'json: cannot unmarshal array into Go struct field continueToken.rv of type int64',
    );
  });
});

describe('goQuote', () => {
  it('escapes as strconv.Quote does', () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote('\u0007\u000b\u0001\n\u007f')).toBe('"\\a\\v\\x01\\n\\x7f"');
    expect(goQuote('é')).toBe('"é"');
  });
});
