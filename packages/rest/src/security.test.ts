// Security defaults (issue #10): server certificates are verified unless told otherwise,
// secrets stay out of errors, logs and printed configs, and rotating credentials (token
// files, exec plugins) are picked up without a restart. Every server is on loopback.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { isStatusError, isUnauthorized, type Logger } from '@kubets/apimachinery';
import { printedForms, type StubServer, sendJson, startStubServer } from '@kubets/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordingClock } from '../test/helpers.js';
import {
  makeCert,
  makeCertChain,
  startTlsServer,
  type TestCert,
  type TlsServer,
} from '../test/tls.js';
import { RESTClient } from './client.js';
import { loadConfig } from './clientcmd.js';
import { type Config, copyConfig, redactConfig } from './config.js';
import { CredentialSource, TokenFile } from './credentials.js';
import { CredentialsError, isTransportError, TransportError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'kubets-security-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCounter = 0;
function writeFile(name: string, text: string): string {
  const path = join(dir, `${fileCounter++}-${name}`);
  writeFileSync(path, text);
  return path;
}

const base64 = (text: string): string => Buffer.from(text).toString('base64');

interface KubeconfigParts {
  cluster: Record<string, unknown>;
  user?: Record<string, unknown>;
}

/** A one-context kubeconfig file (JSON is YAML). */
function kubeconfigFile(parts: KubeconfigParts): string {
  return writeFile(
    'kubeconfig',
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'c',
      clusters: [{ name: 'k', cluster: parts.cluster }],
      users: [{ name: 'u', user: parts.user ?? {} }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    }),
  );
}

function load(path: string): Config {
  return { ...loadConfig({ kubeconfig: path, env: {}, homeDir: dir }), qps: -1 };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (err: unknown) => err as Error,
  );
}

const ok = (_request: unknown, response: import('node:http').ServerResponse): void => {
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.end('{"kind":"Status","status":"Success"}');
};

/** The tokens sent by three requests: the plugin's first token twice, then its second. */
const renewedOnce = ['Bearer exec-token-1', 'Bearer exec-token-1', 'Bearer exec-token-2'];

describe('server certificate verification', () => {
  // Two unrelated CAs, a server whose certificate CA "a" signed, and a self-signed server.
  const a = makeCertChain('kubets test CA a');
  const b = makeCertChain('kubets test CA b');
  const selfSigned = makeCert({ commonName: 'kubets self-signed', ca: true });
  let server: TlsServer;
  let selfServer: TlsServer;
  beforeAll(async () => {
    server = await startTlsServer(a.serving, ok);
    selfServer = await startTlsServer(selfSigned, ok);
  });
  afterAll(async () => {
    await server.close();
    await selfServer.close();
  });

  function expectClearTLSError(error: Error, url: string): void {
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toContain('TLS verification of the server certificate failed');
    expect(error.message).toContain(url);
    expect(error.message).toContain('certificate-authority');
    expect(error.message).toContain('insecure-skip-tls-verify');
    expect(error.message).not.toContain('fetch failed');
  }

  it('trusts a server signed by the configured CA', async () => {
    const client = new RESTClient({ host: server.url, qps: -1, tls: { caData: a.ca.certPem } });
    await expect(client.get().absPath('/version').do()).resolves.toMatchObject({ kind: 'Status' });
  });

  it('refuses a server signed by another CA than the configured one, naming the URL', async () => {
    const clock = recordingClock();
    const client = new RESTClient(
      { host: server.url, qps: -1, tls: { caData: b.ca.certPem } },
      { clock },
    );
    const before = server.requests;
    const error = await failure(client.get().absPath('/version').do());
    expectClearTLSError(error, `${server.url}/version`);
    expect(error.message).toContain('not signed by the configured certificate-authority');
    expect((error as TransportError).code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    // Nothing reached the server, and a TLS failure is not retried.
    expect(server.requests).toBe(before);
    expect(clock.sleeps).toEqual([]);
  });

  it('refuses a self-signed server when no CA is configured', async () => {
    const client = new RESTClient({ host: selfServer.url, qps: -1 });
    const error = await failure(client.get().absPath('/version').do());
    expectClearTLSError(error, `${selfServer.url}/version`);
    expect(error.message).toContain('no certificate-authority is configured');
    expect((error as TransportError).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  it('refuses a certificate that does not name the server, pointing at tls-server-name', async () => {
    const client = new RESTClient({
      host: server.url,
      qps: -1,
      tls: { caData: a.ca.certPem, serverName: 'kubernetes.default' },
    });
    const error = await failure(client.get().absPath('/version').do());
    expect(error.message).toContain('TLS verification of the server certificate failed');
    expect(error.message).toContain(server.url);
    expect(error.message).toContain('tls-server-name');
    expect((error as TransportError).code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('refuses an untrusted server for watches too', async () => {
    const client = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
    const error = await failure(client.get().resource('pods').watch());
    expectClearTLSError(error, server.url);
  });

  it('verifies with the kubeconfig certificate-authority-data', async () => {
    const trusted = load(
      kubeconfigFile({
        cluster: { server: server.url, 'certificate-authority-data': base64(a.ca.certPem) },
      }),
    );
    await expect(new RESTClient(trusted).get().absPath('/version').do()).resolves.toBeDefined();
    const wrongCA = load(
      kubeconfigFile({
        cluster: { server: server.url, 'certificate-authority-data': base64(b.ca.certPem) },
      }),
    );
    expect(wrongCA.tls?.insecureSkipVerify).toBeUndefined();
    expectClearTLSError(
      await failure(new RESTClient(wrongCA).get().absPath('/version').do()),
      server.url,
    );
    const noCA = load(kubeconfigFile({ cluster: { server: selfServer.url } }));
    expectClearTLSError(
      await failure(new RESTClient(noCA).get().absPath('/version').do()),
      selfServer.url,
    );
  });

  describe('insecure-skip-tls-verify', () => {
    it('skips verification only when Config.tls.insecureSkipVerify is true', async () => {
      const insecure = new RESTClient({
        host: selfServer.url,
        qps: -1,
        tls: { insecureSkipVerify: true },
      });
      await expect(insecure.get().absPath('/version').do()).resolves.toBeDefined();
      // A secure client of the same server must not get the insecure client's pooled
      // connections.
      for (const insecureSkipVerify of [false, undefined]) {
        const secure = new RESTClient({
          host: selfServer.url,
          qps: -1,
          tls: insecureSkipVerify === undefined ? {} : { insecureSkipVerify },
        });
        expectClearTLSError(await failure(secure.get().absPath('/version').do()), selfServer.url);
      }
    });

    it('skips verification only when the kubeconfig says insecure-skip-tls-verify: true', async () => {
      const skip = load(
        kubeconfigFile({ cluster: { server: selfServer.url, 'insecure-skip-tls-verify': true } }),
      );
      expect(skip.tls?.insecureSkipVerify).toBe(true);
      await expect(new RESTClient(skip).get().absPath('/version').do()).resolves.toBeDefined();

      const noSkip = load(
        kubeconfigFile({ cluster: { server: selfServer.url, 'insecure-skip-tls-verify': false } }),
      );
      expect(noSkip.tls?.insecureSkipVerify).toBeUndefined();
      expectClearTLSError(
        await failure(new RESTClient(noSkip).get().absPath('/version').do()),
        selfServer.url,
      );
    });
  });
});

// A plugin printing an ExecCredential whose token changes on every run (a counter file).
const pluginScript = `
const fs = require('node:fs');
const counterFile = process.env.KUBETS_COUNTER_FILE;
let runs = 0;
try { runs = Number(fs.readFileSync(counterFile, 'utf8')); } catch {}
runs += 1;
fs.writeFileSync(counterFile, String(runs));
if (process.env.KUBETS_PLUGIN_MODE === 'fail') {
  process.stdout.write(process.env.KUBETS_PLUGIN_SECRET || '');
  process.stderr.write('error: you must log in first\\n');
  process.exit(1);
}
if (process.env.KUBETS_PLUGIN_MODE === 'garbage') {
  process.stdout.write('token: ' + (process.env.KUBETS_PLUGIN_SECRET || ''));
  process.exit(0);
}
const ttl = Number(process.env.KUBETS_TTL_SECONDS || '3600');
process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1beta1',
  kind: 'ExecCredential',
  status: {
    token: 'exec-token-' + runs,
    expirationTimestamp: new Date(Date.now() + ttl * 1000).toISOString(),
  },
}));
`;
const pluginPath = writeFile('plugin.cjs', pluginScript);

interface Plugin {
  counterFile: string;
  runs(): number;
}

function execUser(env: Record<string, string> = {}): {
  user: Record<string, unknown>;
  plugin: Plugin;
} {
  const counterFile = writeFile('counter', '0');
  return {
    user: {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        command: process.execPath,
        args: [pluginPath],
        env: Object.entries({ KUBETS_COUNTER_FILE: counterFile, ...env }).map(([name, value]) => ({
          name,
          value,
        })),
      },
    },
    plugin: { counterFile, runs: () => Number(readFileSync(counterFile, 'utf8')) },
  };
}

describe('exec plugin credentials', () => {
  // Accepts only `Bearer <accepted>`, as an API server whose token has been revoked.
  let accepted = '';
  let server: StubServer;
  beforeAll(async () => {
    server = await startStubServer((request, response) => {
      if (request.headers.authorization === `Bearer ${accepted}`) {
        sendJson(response, 200, { kind: 'PodList', items: [] });
        return;
      }
      sendJson(response, 401, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    });
  });
  afterAll(() => server.close());
  afterEach(() => {
    vi.useRealTimers();
    server.requests.length = 0;
  });

  function clientWith(user: Record<string, unknown>): RESTClient {
    const config = load(kubeconfigFile({ cluster: { server: server.url }, user }));
    return new RESTClient(config, { groupVersion: 'v1' });
  }

  const sentTokens = (): (string | undefined)[] =>
    server.requests.map((request) => request.headers.authorization);

  const listPods = (client: RESTClient) => client.get().resource('pods').do();

  /** A client whose plugin has run once, its token accepted for a first request. */
  async function clientAfterFirstToken(env?: Record<string, string>) {
    const { user, plugin } = execUser(env);
    const client = clientWith(user);
    accepted = 'exec-token-1';
    await listPods(client);
    return { client, plugin };
  }

  /** The next request runs the plugin a second time and sends its new token. */
  async function expectRenewedOnNextRequest(client: RESTClient, plugin: Plugin): Promise<void> {
    await listPods(client);
    expect(plugin.runs()).toBe(2);
    expect(sentTokens()).toEqual(renewedOnce);
  }

  it('caches the credential until its expirationTimestamp, then runs the plugin again', async () => {
    const { client, plugin } = await clientAfterFirstToken({ KUBETS_TTL_SECONDS: '60' });
    await listPods(client);
    expect(plugin.runs()).toBe(1);

    // Past the credential's expiry (the plugin set it 60 s after its real clock).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    accepted = 'exec-token-2';
    await expectRenewedOnNextRequest(client, plugin);
  });

  it('after a 401 runs the plugin again for the next request, without retrying the failed one', async () => {
    const { client, plugin } = await clientAfterFirstToken();
    // The server stops accepting the token before it expires.
    accepted = 'exec-token-2';
    const error = await failure(listPods(client));
    expect(isStatusError(error) && isUnauthorized(error)).toBe(true);
    // As client-go: the 401 reaches the caller; the request was sent once.
    expect(server.requests).toHaveLength(2);
    await expectRenewedOnNextRequest(client, plugin);
  });

  it('runs the plugin once for several concurrent 401s', async () => {
    const { client, plugin } = await clientAfterFirstToken();
    accepted = 'exec-token-2';
    const results = await Promise.allSettled([
      listPods(client),
      listPods(client),
      listPods(client),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await listPods(client);
    await listPods(client);
    expect(plugin.runs()).toBe(2);
    expect(sentTokens().slice(-2)).toEqual(['Bearer exec-token-2', 'Bearer exec-token-2']);
  });

  it('runs the plugin once for concurrent first requests', async () => {
    const { user, plugin } = execUser();
    const client = clientWith(user);
    accepted = 'exec-token-1';
    await Promise.all([1, 2, 3].map(() => listPods(client)));
    expect(plugin.runs()).toBe(1);
  });

  it('does not share cached credentials between kubeconfigs naming the same user', async () => {
    const first = execUser();
    const second = execUser();
    accepted = 'exec-token-1';
    await listPods(clientWith(first.user));
    await listPods(clientWith(second.user));
    expect([first.plugin.runs(), second.plugin.runs()]).toEqual([1, 1]);
  });
});

describe('a 401 and the bearer token file', () => {
  it('looks at the token file again at once, so a rotated token is used next', async () => {
    const tokenFile = writeFile('token', 'old-sa-token\n');
    let accepted = 'old-sa-token';
    const server = await startStubServer((request, response) =>
      request.headers.authorization === `Bearer ${accepted}`
        ? sendJson(response, 200, {})
        : sendJson(response, 401, { kind: 'Status', code: 401, reason: 'Unauthorized' }),
    );
    try {
      // The clock never moves: only the 401 can make the file be looked at again.
      const client = new RESTClient(
        { host: server.url, qps: -1, bearerTokenFile: tokenFile },
        { groupVersion: 'v1', clock: recordingClock() },
      );
      await client.get().resource('pods').do();
      writeFileSync(tokenFile, 'new-sa-token-rotated\n');
      accepted = 'new-sa-token-rotated';
      await expect(client.get().resource('pods').do()).rejects.toMatchObject({ code: 401 });
      await client.get().resource('pods').do();
      expect(server.requests.map((request) => request.headers.authorization)).toEqual([
        'Bearer old-sa-token',
        'Bearer old-sa-token',
        'Bearer new-sa-token-rotated',
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('secrets never appear in errors, logs or printed configs', () => {
  const marker = randomBytes(6).toString('hex');
  const token = `tok-${marker}-bearer`;
  const password = `pw-${marker}-basic`;
  const execSecret = `exec-${marker}-secret`;
  const client = makeCert({ commonName: 'client' });
  // A distinctive line of the client key's PEM body.
  const keyLine = client.keyPem.split('\n')[2] ?? '';
  const secrets = [token, password, execSecret, keyLine, marker];

  const seen: string[] = [];
  const logger: Logger = {
    debug: (message, fields) => seen.push(`debug ${message} ${inspect(fields, { depth: 10 })}`),
    info: (message, fields) => seen.push(`info ${message} ${inspect(fields, { depth: 10 })}`),
    warn: (message, fields) => seen.push(`warn ${message} ${inspect(fields, { depth: 10 })}`),
    error: (message, fields) => seen.push(`error ${message} ${inspect(fields, { depth: 10 })}`),
  };
  function record(value: unknown): void {
    seen.push(inspect(value, { depth: 10, showHidden: true }));
    if (value instanceof Error) {
      seen.push(String(value), value.message, value.stack ?? '', JSON.stringify(value));
    } else {
      seen.push(JSON.stringify(value) ?? '');
    }
  }

  let plain: StubServer;
  let tls: { server: TlsServer; other: TestCert };
  let closedPort = 0;
  beforeAll(async () => {
    plain = await startStubServer((request, response) => {
      if (request.path.endsWith('/unauthorized')) {
        sendJson(response, 401, { kind: 'Status', code: 401, message: 'Unauthorized' });
      } else if (request.path.endsWith('/busy')) {
        response.writeHead(503, { 'Retry-After': '1' });
        response.end('busy');
      } else if (request.path.endsWith('/hang')) {
        // Never answers.
      } else {
        response.writeHead(500, { 'Content-Type': 'text/plain' });
        response.end('internal error');
      }
    });
    const chain = makeCertChain('kubets secret scan CA');
    tls = { server: await startTlsServer(chain.serving, ok), other: makeCertChain('other').ca };
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as import('node:net').AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
  afterAll(async () => {
    await plain.close();
    await tls.server.close();
  });

  function secretConfig(host: string, extra: Partial<Config> = {}): Config {
    return {
      host,
      qps: -1,
      bearerToken: token,
      username: 'admin',
      password,
      maxRetries: 1,
      logger,
      ...extra,
    };
  }

  it('in errors and debug logs of failing requests', async () => {
    const clock = recordingClock();
    const scenarios: Promise<unknown>[] = [];
    const http = new RESTClient(secretConfig(plain.url), { groupVersion: 'v1', clock });
    scenarios.push(http.get().absPath('/unauthorized').do());
    scenarios.push(http.get().absPath('/internal').do());
    scenarios.push(http.get().absPath('/busy').do());
    scenarios.push(http.get().absPath('/internal').doList());
    scenarios.push(http.get().absPath('/hang').timeout(50).do());
    // Basic auth only (no token), 401.
    const basic = new RESTClient(secretConfig(plain.url, { bearerToken: undefined }), {
      groupVersion: 'v1',
      clock,
    });
    scenarios.push(basic.get().absPath('/unauthorized').do());
    // Connection refused: reported at once, not retried.
    const refused = new RESTClient(secretConfig(`http://127.0.0.1:${closedPort}`), { clock });
    scenarios.push(refused.get().absPath('/version').do());
    // A password in the server URL itself.
    const inUrl = new RESTClient(secretConfig(`http://admin:${password}@127.0.0.1:${closedPort}`), {
      clock,
    });
    scenarios.push(inUrl.get().absPath('/version').do());
    // TLS verification failure, with a client certificate and key configured.
    const tlsClient = new RESTClient(
      secretConfig(tls.server.url, {
        tls: { caData: tls.other.certPem, certData: client.certPem, keyData: client.keyPem },
      }),
      { clock },
    );
    scenarios.push(tlsClient.get().absPath('/version').do());
    scenarios.push(tlsClient.get().absPath('/version').watch());

    const results = await Promise.allSettled(scenarios);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      if (result.status === 'rejected') record(result.reason);
    }
    expect(
      results.some((result) => result.status === 'rejected' && isTransportError(result.reason)),
    ).toBe(true);
    // The retries were logged, so the log lines were scanned too.
    expect(seen.some((line) => /^(debug|info|warn) retrying/.test(line))).toBe(true);
    // The URL password is shown as Go's URL.Redacted does.
    expect(seen.join('\n')).toContain('admin:xxxxx@127.0.0.1');
    for (const secret of secrets) {
      for (const line of seen) expect(line).not.toContain(secret);
    }
  });

  it('in errors from failing exec plugins', async () => {
    for (const mode of ['fail', 'garbage']) {
      const { user } = execUser({ KUBETS_PLUGIN_MODE: mode, KUBETS_PLUGIN_SECRET: execSecret });
      const config = load(kubeconfigFile({ cluster: { server: plain.url }, user }));
      const error = await failure(
        new RESTClient({ ...config, logger }).get().absPath('/version').do(),
      );
      expect(error).toBeInstanceOf(CredentialsError);
      record(error);
    }
    expect(seen.join('\n')).toContain('error: you must log in first');
    expect(seen.join('\n')).toContain('did not print a valid ExecCredential');
    for (const secret of secrets) {
      for (const line of seen) expect(line).not.toContain(secret);
    }
  });

  it('in configs and clients printed with util.inspect, console formatting or JSON.stringify', () => {
    const path = kubeconfigFile({
      cluster: {
        server: `https://admin:${password}@127.0.0.1:6443`,
        'certificate-authority-data': base64(tls.other.certPem),
      },
      user: {
        token,
        username: 'admin',
        password,
        'client-certificate-data': base64(client.certPem),
        'client-key-data': base64(client.keyPem),
      },
    });
    const loaded = loadConfig({ kubeconfig: path, env: {}, homeDir: dir });
    // The config really holds the secrets...
    expect(loaded.bearerToken).toBe(token);
    expect(String(loaded.tls?.keyData)).toContain(keyLine);
    // ...but does not print them.
    const printed = [
      inspect(loaded, { depth: 10 }),
      inspect(loaded.tls),
      JSON.stringify(loaded),
      JSON.stringify({ nested: loaded }),
      `${inspect({ config: loaded })}`,
      inspect(new RESTClient(loaded)),
      JSON.stringify(new RESTClient({ ...loaded, qps: -1 })),
      // A hand-written config prints safely through redactConfig.
      inspect(redactConfig({ host: 'https://h', bearerToken: token, password })),
      JSON.stringify(
        loadConfig({ kubeconfig: path, env: {}, homeDir: dir, master: 'https://other:6443' }),
      ),
    ];
    for (const text of printed) {
      expect(text).toContain('REDACTED');
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
    // Copies keep working: a client of a spread copy finds the secrets again...
    expect(new RESTClient({ ...loaded, qps: -1 }).config.bearerToken).toBe(token);
    expect(new RESTClient(Object.assign({}, loaded)).config.password).toBe(password);
    // ...while a structured clone or JSON copy, which could not hide them, holds none.
    expect(structuredClone({ ...loaded, authProvider: undefined }).password).toBeUndefined();
    expect(JSON.parse(JSON.stringify(loaded)).bearerToken).toBe('--- REDACTED ---');
  });

  it('in clients, requests, token files and credential sources built from spread configs', async () => {
    const tokenFile = new TokenFile(writeFile('token', `${token}\n`));
    expect(await tokenFile.token()).toBe(token);
    const config: Config = {
      ...secretConfig(`https://admin:${password}@127.0.0.1:6443`),
      tls: { certData: client.certPem, keyData: client.keyPem },
    };
    const rest = new RESTClient({ ...config });
    const objects: [string, unknown][] = [
      ['RESTClient.config', rest.config],
      ['copyConfig', copyConfig(config, { qps: 5 })],
      ['Request', rest.get().absPath('/version').setHeader('Authorization', `Bearer ${token}`)],
      ['Request with a body', rest.post().resource('secrets').body({ data: { token } })],
      ['TokenFile', tokenFile],
      ['CredentialSource', new CredentialSource(config)],
    ];
    for (const [what, value] of objects) {
      for (const { how, text } of printedForms(value)) {
        for (const secret of secrets) expect(text, `${what} (${how})`).not.toContain(secret);
      }
    }
    expect(inspect(rest.get().absPath('/version'))).toContain(
      "url: 'https://admin:xxxxx@127.0.0.1:6443/version'",
    );
    // The copy a client keeps still authenticates.
    expect(rest.config.bearerToken).toBe(token);
  });
});
