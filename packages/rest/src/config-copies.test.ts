// Issue 37: users spread configs (`{ ...env.config, qps: -1 }`). A config made by kubets keeps
// working in such copies but no copy, nor anything holding one, prints a secret.
import { format, inspect } from 'node:util';
import { startStubServer } from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';
import { configFromKubeconfig } from './clientcmd.js';
import { type Config, copyConfig } from './config.js';

const token = 'tok-SECRET-1';
const password = 'pw-SECRET-2';
const hostPassword = 'hostpw-SECRET-3';
const keyData = 'KEY-SECRET-4';
const secrets = [token, password, hostPassword, keyData];

function base64Pem(label: string, body: string): string {
  const pem = `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
  return Buffer.from(pem).toString('base64');
}

/** Configs as kubets makes them, each holding every kind of secret it can. */
const sources: [name: string, make: () => Config][] = [
  [
    'copyConfig',
    () =>
      copyConfig({
        host: `https://admin:${hostPassword}@127.0.0.1:6443`,
        bearerToken: token,
        username: 'jane',
        password,
        tls: { caData: 'CA', certData: 'CERT', keyData },
      }),
  ],
  [
    'configFromKubeconfig',
    () =>
      configFromKubeconfig({
        clusters: [
          {
            name: 'c',
            cluster: {
              server: `https://admin:${hostPassword}@127.0.0.1:6443`,
              'insecure-skip-tls-verify': true,
            },
          },
        ],
        users: [
          {
            name: 'u',
            user: {
              token,
              'client-certificate-data': base64Pem('CERTIFICATE', 'CERT'),
              'client-key-data': base64Pem('PRIVATE KEY', keyData),
            },
          },
        ],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
  ],
  [
    'RESTClient.config',
    () =>
      new RESTClient({ host: 'http://127.0.0.1:1', bearerToken: token, username: 'jane', password })
        .config,
  ],
];

/** What users do to a config. */
const copies: [name: string, copy: (config: Config) => unknown][] = [
  ['the config itself', (c) => c],
  ['spread', (c) => ({ ...c })],
  ['spread with qps: -1', (c) => ({ ...c, qps: -1 })],
  ['spread of a spread', (c) => ({ ...{ ...c }, burst: 1 })],
  ['Object.assign', (c) => Object.assign({}, c)],
  ['Object.assign with changes', (c) => Object.assign({}, c, { qps: -1 })],
  ['structuredClone', (c) => structuredClone(c)],
  ['JSON round trip', (c) => JSON.parse(JSON.stringify(c))],
  ['a RESTClient of a spread copy', (c) => new RESTClient({ ...c, qps: -1 })],
  ['a spread RESTClient', (c) => ({ ...new RESTClient({ ...c }) })],
  ['an object holding a spread copy', (c) => ({ manager: { config: { ...c } }, n: 1 })],
  ['an array of copies', (c) => [c, { ...c }, Object.assign({}, c)]],
  ['an Error whose cause is a spread copy', (c) => new Error('failed', { cause: { ...c } })],
];

/** Every way a value ends up in a log or on a screen. */
function printed(value: unknown): string[] {
  const forms = [
    inspect(value),
    inspect(value, { depth: Number.POSITIVE_INFINITY }),
    inspect(value, { showHidden: true, depth: Number.POSITIVE_INFINITY }),
    format('%o', value),
    format('%s %j', value, value),
    String(value),
  ];
  try {
    forms.push(JSON.stringify(value) ?? '');
  } catch (err) {
    forms.push(String(err));
  }
  try {
    forms.push(inspect(structuredClone(value), { depth: Number.POSITIVE_INFINITY }));
  } catch (err) {
    forms.push(String(err));
  }
  return forms;
}

describe('copies of a config never print a secret', () => {
  for (const [source, make] of sources) {
    it.each(copies)(`${source}: %s`, (_name, copy) => {
      for (const form of printed(copy(make()))) {
        for (const secret of secrets) expect(form).not.toContain(secret);
      }
    });
  }

  it('error messages about a spread copy name no secret', () => {
    const [, make] = sources[0] ?? [];
    const config = make?.() as Config;
    const messages: string[] = [];
    for (const broken of [
      { ...config, host: `https://admin:${hostPassword}@[::1` },
      { ...config, host: `ftp://admin:${hostPassword}@127.0.0.1` },
      { ...config, host: `http://admin:${hostPassword}@127.0.0.1:1` },
    ]) {
      try {
        new RESTClient(broken);
        messages.push('no error');
      } catch (err) {
        messages.push(String(err), inspect(err));
      }
    }
    expect(messages).not.toContain('no error');
    for (const message of messages) {
      for (const secret of secrets) expect(message).not.toContain(secret);
    }
  });
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A server that answers 200 only to `authorization`, 401 otherwise. */
async function serverRequiring(authorization: string) {
  const server = await startStubServer((request, response) => {
    const ok = request.headers.authorization === authorization;
    response.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
    response.end(ok ? '{"major":"1"}' : '{"kind":"Status","code":401,"reason":"Unauthorized"}');
  });
  cleanups.push(() => server.close());
  return server;
}

describe('a spread copy still authenticates', () => {
  const basic = (user: string, pw: string) =>
    `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;

  it.each<[name: string, authorization: string, make: (url: string) => Config]>([
    ['bearer token', `Bearer ${token}`, (url) => copyConfig({ host: url, bearerToken: token })],
    [
      'basic auth',
      basic('jane', password),
      (url) => copyConfig({ host: url, username: 'jane', password }),
    ],
    [
      'a password in the server URL',
      basic('admin', hostPassword),
      (url) => copyConfig({ host: url.replace('//', `//admin:${hostPassword}@`) }),
    ],
  ])('%s', async (_name, authorization, make) => {
    const server = await serverRequiring(authorization);
    const config = make(server.url);
    for (const copy of [
      { ...config, qps: -1 },
      Object.assign({}, config, { qps: -1 }),
      { ...{ ...config }, burst: 1 },
    ]) {
      for (const secret of secrets) expect(inspect(copy)).not.toContain(secret);
      const client = new RESTClient(copy);
      await expect(client.get().absPath('/version').do()).resolves.toEqual({ major: '1' });
    }
    // Copies that print nothing cannot authenticate either: their secrets are gone.
    await expect(
      new RESTClient(structuredClone(config)).get().absPath('/version').do(),
    ).rejects.toThrow(/provide credentials/);
  });
});
