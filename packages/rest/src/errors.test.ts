import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  CredentialsError,
  InvalidRequestError,
  isConfigError,
  isCredentialsError,
  isInvalidRequestError,
  isResponseDecodeError,
  isTransportError,
  ResponseDecodeError,
  TransportError,
} from './errors.js';

describe('error guards', () => {
  const errors = {
    config: new ConfigError('bad', { file: 'f', context: 'c', field: 'x' }),
    invalid: new InvalidRequestError('name', 'a/b', 'bad name'),
    transport: new TransportError('down', { method: 'GET', url: 'http://x', code: 'ECONNRESET' }),
    credentials: new CredentialsError('no token'),
    decode: new ResponseDecodeError('not json', { statusCode: 200 }),
  };
  const guards = {
    config: isConfigError,
    invalid: isInvalidRequestError,
    transport: isTransportError,
    credentials: isCredentialsError,
    decode: isResponseDecodeError,
  };

  it('each guard accepts its own error only', () => {
    for (const [guardName, guard] of Object.entries(guards)) {
      for (const [errorName, error] of Object.entries(errors)) {
        expect(guard(error), `${guardName}(${errorName})`).toBe(guardName === errorName);
      }
      expect(guard(new Error('plain'))).toBe(false);
      expect(guard(undefined)).toBe(false);
    }
  });

  it('recognises errors by brand, as a second copy of the package would create them', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('kubets.rest.TransportError')]: true,
    });
    expect(isTransportError(foreign)).toBe(true);
  });

  it('keeps the details and the cause', () => {
    const cause = new Error('root');
    const error = new ConfigError('bad', { file: 'f' }, { cause });
    expect(error).toMatchObject({ name: 'ConfigError', file: 'f', context: undefined, cause });
    expect(errors.transport).toMatchObject({ code: 'ECONNRESET', timedOut: false });
  });
});
