import { describe, expect, it } from 'vitest';
import { validateSpec } from './controller.ts';

describe('validateSpec', () => {
  it('accepts the example and rejects what the schema does not catch', () => {
    expect(validateSpec({ ip: '127.0.0.1', port: 8080 })).toBeUndefined();
    expect(validateSpec({ ip: '::1', port: 1 })).toBeUndefined();
    expect(validateSpec({ ip: '10.0.0.1', port: 65535 })).toBeUndefined();
    expect(validateSpec({ ip: '127.0.0.1', port: 0 })).toBe('spec.port 0 is outside 1-65535');
    expect(validateSpec({ ip: '127.0.0.1', port: 70000 })).toBe(
      'spec.port 70000 is outside 1-65535',
    );
    expect(validateSpec({ ip: '127.0.0.1', port: 80.5 })).toBe('spec.port 80.5 is outside 1-65535');
    expect(validateSpec({ ip: '127.0.0.1' })).toBe('spec.port is missing');
    expect(validateSpec(undefined)).toBe('spec.port is missing');
    expect(validateSpec({ port: 80 })).toBe('spec.ip is missing');
    expect(validateSpec({ ip: 'localhost', port: 80 })).toBe(
      'spec.ip "localhost" is not an IP address',
    );
  });
});
