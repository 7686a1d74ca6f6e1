// client-go's rest/config_test.go, as data: TestConfigStringer, TestConfigSprint (the
// redaction it pins) and TestCopyConfig. TestRESTClientLimiter is in client.clientgo.test.ts;
// the Go-only tests are listed in the package README.

import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type AuthProvider, type Config, copyConfig, redactConfig } from './config.js';

// Go's AuthProvider/ExecProvider carry their secrets in plain maps; a kubets AuthProvider is
// code, so the secret hides in its closure and must not show either.
const secretProvider = (): AuthProvider => {
  const secret = 's3cr3t';
  return { credentials: async () => ({ headers: { Authorization: `Bearer ${secret}` } }) };
};

describe('TestConfigStringer', () => {
  const rows: [desc: string, config: Config, expectContent: string[], prohibitContent: string[]][] =
    [
      [
        'non-sensitive config',
        { host: 'localhost:8080', apiPath: 'v1', userAgent: 'gobot' },
        ['localhost:8080', 'v1', 'gobot'],
        [],
      ],
      [
        'sensitive config',
        {
          host: 'localhost:8080',
          username: 'gopher',
          password: 'g0ph3r',
          bearerToken: '1234567890',
          tls: { certData: 'fake cert', keyData: 'fake key' },
          authProvider: secretProvider(),
        },
        ['localhost:8080', 'gopher', '--- REDACTED ---', '--- TRUNCATED ---'],
        ['g0ph3r', '1234567890', 'fake cert', 'fake key', 's3cr3t'],
      ],
    ];
  it.each(rows)('%s', (_desc, config, expectContent, prohibitContent) => {
    const printed = [
      inspect(copyConfig(config), { depth: 10 }),
      JSON.stringify(copyConfig(config)),
      inspect(redactConfig(config), { depth: 10 }),
      // TestConfigSprint: every way of printing shows the same redaction.
      `${inspect({ config: copyConfig(config) }, { depth: 10 })}`,
    ];
    for (const text of printed) {
      for (const want of expectContent) expect(text).toContain(want);
      for (const secret of prohibitContent) expect(text).not.toContain(secret);
    }
  });
});

describe('TestCopyConfig', () => {
  it('copies every setting and shares no nested settings object', () => {
    const original: Config = {
      host: 'https://127.0.0.1:6443',
      apiPath: '/api',
      tls: {
        caData: 'ca',
        certData: 'cert',
        keyData: 'key',
        serverName: 's',
        insecureSkipVerify: false,
      },
      bearerToken: 't',
      bearerTokenFile: '/token',
      username: 'u',
      password: 'p',
      impersonate: { user: 'someone', uid: '1', groups: ['g'], extra: { k: ['v'] } },
      qps: 1,
      burst: 2,
      timeoutMs: 3000,
      userAgent: 'ua',
      maxRetries: 4,
      namespace: 'ns',
    };
    const copy = copyConfig(original);
    // Read field by field: the copy keeps its secrets non-enumerable, so it prints redacted.
    const settings = Object.fromEntries(
      Object.keys(original).map((key) => [key, copy[key as keyof Config]]),
    );
    const tls = Object.fromEntries(
      Object.keys(original.tls ?? {}).map((key) => [
        key,
        copy.tls?.[key as keyof NonNullable<Config['tls']>],
      ]),
    );
    expect({ ...settings, tls }).toEqual(original);
    expect(copy).not.toBe(original);
    expect(copy.tls).not.toBe(original.tls);
    expect(copyConfig(original, { qps: 9 }).qps).toBe(9);
    expect(original.qps).toBe(1);
  });
});
