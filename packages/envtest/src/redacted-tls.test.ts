import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { redactedTls } from './redacted-tls.js';

const key = '-----BEGIN RSA PRIVATE KEY-----\nKEY-SECRET\n-----END RSA PRIVATE KEY-----\n';

describe('redactedTls', () => {
  it('keeps the key readable, also through a spread config, and never prints it', () => {
    const tls = redactedTls({ caData: 'CA', certData: 'CERT', keyData: key });
    const config = { host: 'https://127.0.0.1:1', tls, qps: -1 };
    const copy = { ...config, qps: 5 };
    expect(copy.tls.keyData).toBe(key);
    const { keyData } = tls;
    expect(keyData).toBe(key);
    for (const value of [tls, config, copy, Object.assign({}, config), structuredClone(copy)]) {
      for (const text of [
        inspect(value, { depth: 5 }),
        inspect(value, { showHidden: true, depth: 5 }),
        JSON.stringify(value),
      ]) {
        expect(text).not.toContain('KEY-SECRET');
      }
    }
    expect(JSON.stringify(config)).toContain('--- REDACTED ---');
  });
});
