import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type StubServer, sendJson, startStubServer } from '@kubets/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';
import { configFromKubeconfig, configSource, loadConfig } from './clientcmd.js';
import { type Config, inClusterConfig } from './config.js';
import { ConfigError, CredentialsError, isConfigError } from './errors.js';
import { parseKubeconfig } from './kubeconfig.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubets-config-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let fileCounter = 0;
function writeFile(name: string, text: string): string {
  const path = join(dir, `${fileCounter++}-${name}`);
  writeFileSync(path, text);
  return path;
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

function kubeconfig(options: {
  current?: string;
  clusters?: { name: string; cluster: Record<string, unknown> }[];
  users?: { name: string; user: Record<string, unknown> }[];
  contexts?: { name: string; context: Record<string, unknown> }[];
}): string {
  // JSON is YAML, and keeps the fixtures free of indentation mistakes.
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    ...(options.current !== undefined ? { 'current-context': options.current } : {}),
    clusters: options.clusters ?? [],
    users: options.users ?? [],
    contexts: options.contexts ?? [],
  });
}

const writeKubeconfig = (options: Parameters<typeof kubeconfig>[0]): string =>
  writeFile('config', kubeconfig(options));

// loadConfig checks that certificate data decodes to PEM; the bytes themselves are not parsed.
const caPem = '-----BEGIN CERTIFICATE-----\nCA PEM\n-----END CERTIFICATE-----\n';

const simpleKubeconfig = kubeconfig({
  current: 'dev',
  clusters: [
    {
      name: 'dev-cluster',
      cluster: {
        server: 'https://dev.example:6443',
        'certificate-authority-data': base64(caPem),
        'tls-server-name': 'kubernetes.default',
      },
    },
  ],
  users: [{ name: 'dev-user', user: { token: 'dev-token' } }],
  contexts: [
    { name: 'dev', context: { cluster: 'dev-cluster', user: 'dev-user', namespace: 'team-a' } },
  ],
});

// Isolates loadConfig from the machine: no KUBECONFIG, no in-cluster variables, empty home.
const emptyHome = () => {
  const home = join(dir, `home-${fileCounter++}`);
  mkdirSync(home, { recursive: true });
  return home;
};
const isolated = () => ({ env: {}, homeDir: emptyHome() });

function expectConfigError(run: () => unknown, expected: RegExp): ConfigError {
  let caught: unknown;
  try {
    run();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  expect(isConfigError(caught)).toBe(true);
  const error = caught as ConfigError;
  expect(error.message).toMatch(expected);
  // One readable line: no YAML excerpts or stack frames from client-node in the message.
  expect(error.message).not.toContain('\n');
  expect(error.message).not.toMatch(/\bat .*\.js:\d+/);
  return error;
}

/** {@link expectConfigError} for loading the kubeconfig `file`, isolated from the machine. */
function expectLoadError(file: string, expected: RegExp, context?: string): ConfigError {
  return expectConfigError(
    () => loadConfig({ kubeconfig: file, context, ...isolated() }),
    expected,
  );
}

describe('loadConfig from a kubeconfig file', () => {
  it('reads server, CA, TLS server name, token and namespace of the current context', () => {
    const config = loadConfig({ kubeconfig: writeFile('config', simpleKubeconfig), ...isolated() });
    expect(config.host).toBe('https://dev.example:6443');
    expect(Buffer.from(config.tls?.caData ?? '').toString()).toBe(caPem);
    expect(config.tls?.serverName).toBe('kubernetes.default');
    expect(config.bearerToken).toBe('dev-token');
    expect(config.namespace).toBe('team-a');
    expect(config.authProvider).toBeUndefined();
  });

  it('reads a kubeconfig as kubectl writes it: block YAML, comments, plain and quoted scalars', () => {
    const text = [
      '# written by kubectl',
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- cluster:',
      `    certificate-authority-data: ${base64(caPem)}`,
      '    server: https://dev.example:6443/',
      "    tls-server-name: 'kubernetes.default'",
      '  name: dev-cluster',
      'contexts:',
      '- context:',
      '    cluster: dev-cluster',
      '    namespace: "2024-01-01" # quoted, though unquoted it stays a string too',
      '    user: dev-user',
      '  name: dev',
      'current-context: dev',
      'preferences: {}',
      'users:',
      '- name: dev-user',
      '  user:',
      '    token: dev-token',
      '',
    ].join('\n');
    const config = loadConfig({ kubeconfig: writeFile('config', text), ...isolated() });
    expect(config.host).toBe('https://dev.example:6443');
    expect(Buffer.from(config.tls?.caData ?? '').toString()).toBe(caPem);
    expect(config.tls?.serverName).toBe('kubernetes.default');
    expect(config.bearerToken).toBe('dev-token');
    expect(config.namespace).toBe('2024-01-01');
  });

  it('reads YAML 1.2 core scalars: a date-like or yes/no value is a string, not a Date or boolean', () => {
    const text = [
      'current-context: c',
      'clusters: [{name: k, cluster: {server: "https://k:6443", tls-server-name: yes}}]',
      'contexts: [{name: c, context: {cluster: k, namespace: 2024-01-01}}]',
    ].join('\n');
    const config = loadConfig({ kubeconfig: writeFile('config', text), ...isolated() });
    expect(config.namespace).toBe('2024-01-01');
    expect(config.tls?.serverName).toBe('yes');
  });

  it('reads a JSON kubeconfig (JSON is YAML) into what the same YAML gives', () => {
    const yaml = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: dev-cluster',
      '  cluster:',
      `    certificate-authority-data: ${base64(caPem)}`,
      '    server: https://dev.example:6443/',
      'contexts:',
      '- name: dev',
      '  context: {cluster: dev-cluster, user: dev-user, namespace: "caf\\u00e9"}',
      'current-context: dev',
      'preferences: {}',
      'users:',
      '- name: dev-user',
      '  user:',
      '    token: dev-token',
      '    exec: {command: /bin/tok, args: [a, "b/c"], interactiveMode: Never, provideClusterInfo: true}',
      '',
    ].join('\n');
    const fromYaml = parseKubeconfig(yaml);
    expect(fromYaml.contexts[0]?.context.namespace).toBe('café');
    const json = `\n  ${JSON.stringify(fromYaml, null, 2).replace('b/c', 'b\\/c')}\n`;
    expect(json).toContain('"b\\/c"');
    expect(parseKubeconfig(json)).toEqual(fromYaml);
  });

  // client-go decodes a kubeconfig with sigs.k8s.io/yaml's non-strict YAMLToJSON, whose own
  // tests ("Last declaration of `a` wins", "Even ignore first declaration of `a` with wrong
  // type") keep the last value of a repeated key.
  it('a key given twice in a JSON object keeps its last value, as client-go reads it', () => {
    const clusters = '"clusters": [{"name": "k", "cluster": {"server": "https://k:6443"}}]';
    const json = `{"current-context": "a", "current-context": "c", ${clusters}}`;
    expect(parseKubeconfig(json)['current-context']).toBe('c');
  });

  it('a key given twice in a YAML mapping keeps its last value, as client-go reads it', () => {
    const yaml = [
      'current-context: a',
      'clusters:',
      '- name: k',
      '  cluster:',
      '    server: https://first:6443',
      '    server: https://k:6443',
      'current-context: [not, a, string]',
      'current-context: c',
      '',
    ].join('\n');
    const config = parseKubeconfig(yaml);
    expect(config['current-context']).toBe('c');
    expect(config.clusters[0]?.cluster.server).toBe('https://k:6443');
    const flow = '{current-context: a, current-context: c, clusters: []}';
    expect(parseKubeconfig(flow)['current-context']).toBe('c');
  });

  it('a text that only looks like JSON is read as YAML: flow YAML, and broken JSON with the YAML error', () => {
    const flow = '{current-context: c, clusters: [{name: k, cluster: {server: "https://k:6443"}}]}';
    expect(parseKubeconfig(flow).clusters[0]?.cluster.server).toBe('https://k:6443');
    expect(() => parseKubeconfig('{"clusters": [1,, 2]}', 'broken.json')).toThrow(
      /^invalid kubeconfig broken\.json: .+/,
    );
  });

  it('uses the requested context', () => {
    const file = writeKubeconfig({
      current: 'a',
      clusters: [
        { name: 'a', cluster: { server: 'https://a:6443' } },
        { name: 'b', cluster: { server: 'http://b:8080', 'insecure-skip-tls-verify': true } },
      ],
      users: [{ name: 'u', user: { username: 'admin', password: 'pw', as: 'jane' } }],
      contexts: [
        { name: 'a', context: { cluster: 'a', user: 'u' } },
        { name: 'b', context: { cluster: 'b', user: 'u' } },
      ],
    });
    const config = loadConfig({ kubeconfig: file, context: 'b', ...isolated() });
    expect(config).toMatchObject({
      host: 'http://b:8080',
      tls: { insecureSkipVerify: true },
      username: 'admin',
      password: 'pw',
      impersonate: { user: 'jane' },
    });
  });

  it('merges the files in KUBECONFIG: the first to set a value wins, missing files are skipped', () => {
    const first = writeFile(
      'first',
      kubeconfig({
        current: 'one',
        clusters: [{ name: 'shared', cluster: { server: 'https://first:6443' } }],
        users: [{ name: 'u1', user: { token: 't1' } }],
        contexts: [{ name: 'one', context: { cluster: 'shared', user: 'u1' } }],
      }),
    );
    const second = writeFile(
      'second',
      kubeconfig({
        current: 'two',
        clusters: [
          { name: 'shared', cluster: { server: 'https://second:6443' } },
          { name: 'other', cluster: { server: 'https://other:6443' } },
        ],
        users: [{ name: 'u2', user: { token: 't2' } }],
        contexts: [{ name: 'two', context: { cluster: 'other', user: 'u2' } }],
      }),
    );
    const env = { KUBECONFIG: [first, join(dir, 'missing'), second].join(delimiter) };
    const current = loadConfig({ env, homeDir: emptyHome() });
    expect(current).toMatchObject({ host: 'https://first:6443', bearerToken: 't1' });
    const other = loadConfig({ env, homeDir: emptyHome(), context: 'two' });
    expect(other).toMatchObject({ host: 'https://other:6443', bearerToken: 't2' });
  });

  it('falls back to ~/.kube/config', () => {
    const home = emptyHome();
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), simpleKubeconfig);
    expect(loadConfig({ env: {}, homeDir: home }).host).toBe('https://dev.example:6443');
  });

  it('lets master override the server, keeping the credentials', () => {
    const file = writeFile('config', simpleKubeconfig);
    const config = loadConfig({
      kubeconfig: file,
      master: 'https://127.0.0.1:9443',
      ...isolated(),
    });
    expect(config.host).toBe('https://127.0.0.1:9443');
    expect(config.bearerToken).toBe('dev-token');
  });

  it('with master alone, gives a plain config for that URL, as BuildConfigFromFlags does', () => {
    const env = { KUBECONFIG: writeFile('config', simpleKubeconfig) };
    expect(loadConfig({ master: 'http://127.0.0.1:8080', env, homeDir: emptyHome() })).toEqual({
      host: 'http://127.0.0.1:8080',
    });
  });
});

describe('configSource', () => {
  it('names the source loadConfig uses, in client-go order, without reading it', () => {
    const home = mkdtempSync(join(tmpdir(), 'kubets-home-'));
    const emptyHome = mkdtempSync(join(tmpdir(), 'kubets-empty-home-'));
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), 'not even YAML: [');
    const inCluster = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '6443' };
    const cases: [Parameters<typeof configSource>[0], ReturnType<typeof configSource>][] = [
      [{ kubeconfig: '/missing', env: {}, homeDir: emptyHome }, 'explicit'],
      [{ master: 'https://127.0.0.1:6443', env: {}, homeDir: home }, 'explicit'],
      [{ inCluster: true, env: {}, homeDir: home }, 'explicit'],
      [{ env: { KUBECONFIG: `${delimiter}/missing`, ...inCluster }, homeDir: home }, 'KUBECONFIG'],
      [{ env: { KUBECONFIG: delimiter, ...inCluster }, homeDir: home }, 'home'],
      [{ env: inCluster, homeDir: emptyHome }, 'in-cluster'],
      [{ env: inCluster, homeDir: emptyHome, inCluster: false }, undefined],
      [{ env: {}, homeDir: emptyHome }, undefined],
    ];
    for (const [options, expected] of cases) expect(configSource(options)).toBe(expected);
    rmSync(home, { recursive: true });
    rmSync(emptyHome, { recursive: true });
  });
});

describe('loadConfig errors', () => {
  it('an unknown context names it, the file and the known contexts', () => {
    const file = writeFile('config', simpleKubeconfig);
    const error = expectLoadError(
      file,
      /^context "prod" not found in kubeconfig .*config; known contexts: "dev"$/,
      'prod',
    );
    expect(error.context).toBe('prod');
    expect(error.file).toBe(file);
  });

  it('a missing certificate file names the file and the field', () => {
    const file = writeKubeconfig({
      current: 'c',
      clusters: [{ name: 'k', cluster: { server: 'https://k:6443' } }],
      users: [
        {
          name: 'u',
          user: { 'client-certificate': 'certs/nope.crt', 'client-key': 'certs/nope.key' },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    });
    const error = expectLoadError(
      file,
      /^cannot read users\[u\]\.client-certificate .*certs\/nope\.crt \(context "c" in kubeconfig .*\): no such file$/,
    );
    // Relative paths resolve against the kubeconfig's directory.
    expect(error.file).toBe(join(dir, 'certs', 'nope.crt'));
    expect(error.field).toBe('users[u].client-certificate');
    expect(error.cause).toMatchObject({ code: 'ENOENT' });
  });

  it('a missing CA file names it', () => {
    const file = writeKubeconfig({
      current: 'c',
      clusters: [
        {
          name: 'k',
          cluster: { server: 'https://k:6443', 'certificate-authority': '/nonexistent/ca.crt' },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'k' } }],
    });
    expectLoadError(
      file,
      /^cannot read clusters\[k\]\.certificate-authority \/nonexistent\/ca\.crt/,
    );
  });

  it('broken YAML names the file in one line', () => {
    const file = writeFile('config', 'clusters:\n  - name: a\n   cluster: [unclosed\n');
    const error = expectLoadError(file, /^invalid kubeconfig .*config: .+/);
    expect(error.file).toBe(file);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it.each([
    ['null', '~\n'],
    ['a list', '- a\n- b\n'],
    ['plain text', 'hello\n'],
  ])('a file holding %s is not a kubeconfig', (_what, text) => {
    const file = writeFile('config', text);
    expectLoadError(file, /^invalid kubeconfig .*config: not a kubeconfig/);
  });

  it('a file holding two YAML documents is refused, with the count', () => {
    const file = writeFile('config', `${simpleKubeconfig}\n---\n${simpleKubeconfig}\n`);
    expectLoadError(
      file,
      /^invalid kubeconfig .*config: holds 2 YAML documents; a kubeconfig is one$/,
    );
  });

  it('a file with more than 100 aliases is refused; 100 are read', () => {
    const withAliases = (count: number) =>
      [
        'current-context: c',
        'clusters:',
        '- name: k',
        '  cluster: &cluster {server: "https://k:6443"}',
        'contexts:',
        '- name: c',
        '  context: {cluster: k}',
        `extensions: [${Array.from({ length: count - 1 }, () => '*cluster').join(', ')}]`,
        'users:',
        '- name: u',
        '  user: {}',
        `preferences: {extensions: [*cluster]}`,
      ].join('\n');
    expect(
      loadConfig({ kubeconfig: writeFile('config', withAliases(100)), ...isolated() }).host,
    ).toBe('https://k:6443');
    expectLoadError(
      writeFile('config', withAliases(101)),
      /^invalid kubeconfig .*config: aliases exceeded maxAliases \(100\)/,
    );
  });

  it('an empty file is reported', () => {
    const file = writeFile('config', '');
    expectLoadError(file, /^invalid kubeconfig .*config: .+/);
  });

  it('a cluster without a server names the missing field', () => {
    const file = writeKubeconfig({
      current: 'c',
      clusters: [{ name: 'k', cluster: {} }],
      contexts: [],
    });
    expectLoadError(file, /^invalid kubeconfig .*: clusters\[0\]\.cluster\.server is missing$/);
  });

  it('a context naming a missing cluster or user is reported', () => {
    const file = writeKubeconfig({
      current: 'c',
      clusters: [{ name: 'k', cluster: { server: 'https://k' } }],
      contexts: [
        { name: 'c', context: { cluster: 'gone' } },
        { name: 'd', context: { cluster: 'k', user: 'ghost' } },
      ],
    });
    expectLoadError(file, /cluster "gone" of context "c" not found/);
    expectLoadError(file, /user "ghost" of context "d" not found/, 'd');
  });

  it('no current context is reported with the choices', () => {
    const file = writeKubeconfig({
      clusters: [{ name: 'k', cluster: { server: 'https://k' } }],
      contexts: [{ name: 'c', context: { cluster: 'k' } }],
    });
    expectLoadError(
      file,
      /no context selected in kubeconfig .*: current-context is not set; choose one of "c"/,
    );
  });

  it('a missing explicit file is an error, not a fallback', () => {
    const missing = join(dir, 'does-not-exist');
    const error = expectLoadError(
      missing,
      /^cannot read kubeconfig .*does-not-exist: no such file$/,
    );
    expect(error.file).toBe(missing);
  });

  it('KUBECONFIG listing only missing files is an error', () => {
    expectConfigError(
      () => loadConfig({ env: { KUBECONFIG: join(dir, 'nope1') }, homeDir: emptyHome() }),
      /^none of the files in KUBECONFIG exist/,
    );
  });

  it('no configuration anywhere says where it looked', () => {
    expectConfigError(() => loadConfig(isolated()), /^no Kubernetes configuration found/);
  });

  const withUser = (user: Record<string, unknown>) =>
    writeKubeconfig({
      current: 'c',
      clusters: [{ name: 'k', cluster: { server: 'https://k.example' } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    });

  it('an auth provider no plugin handles is refused, as client-go does, naming it and the choices', () => {
    const file = withUser({ 'auth-provider': { name: 'keystone', config: {} } });
    const error = expectLoadError(
      file,
      /^unsupported auth-provider "keystone" of users\[u\] \(context "c" in kubeconfig .*\); supported: azure, gcp, exec, tokenFile, oidc \(or an exec credential plugin\)$/,
    );
    expect(error.field).toBe('users[u].auth-provider');
    expectLoadError(withUser({ 'auth-provider': {} }), /^unsupported auth-provider without a name/);
  });

  it('an exec plugin without a command is refused at load time', () => {
    const file = withUser({ exec: { apiVersion: 'client.authentication.k8s.io/v1beta1' } });
    const error = expectLoadError(
      file,
      /^users\[u\]\.exec\.command is missing \(context "c" in kubeconfig .*\): it names the credential plugin to run$/,
    );
    expect(error.field).toBe('users[u].exec.command');
    expectLoadError(
      withUser({ exec: { command: ['kubelogin'] } }),
      /^invalid users\[u\]\.exec\.command .*: expected a string, got a list$/,
    );
  });
});

describe('loadConfig rejects values of the wrong shape, naming the field and the file', () => {
  const keyPem =
    '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n';
  const withEntries = (cluster: Record<string, unknown>, user: Record<string, unknown>): string =>
    writeKubeconfig({
      current: 'ctx',
      clusters: [{ name: 'c1', cluster: { server: 'https://c1:6443', ...cluster } }],
      users: [{ name: 'u1', user }],
      contexts: [{ name: 'ctx', context: { cluster: 'c1', user: 'u1' } }],
    });
  const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it.each([
    ['an object', { a: 1 }, 'an object'],
    ['a number', 12345, 'a number'],
    ['a list', ['x'], 'a list'],
  ])('token that is %s', (_what, token, kind) => {
    const file = withEntries({}, { token });
    const error = expectLoadError(
      file,
      new RegExp(
        `^invalid users\\[u1\\]\\.token \\(context "ctx" in kubeconfig ${escapeRe(file)}\\): expected a string, got ${kind}$`,
      ),
    );
    expect(error.file).toBe(file);
    expect(error.field).toBe('users[u1].token');
  });

  it.each([
    ['username', { username: 7 }],
    ['password', { password: { secret: true } }],
    ['client-key', { 'client-key': 42 }],
    ['as', { as: ['a'] }],
  ])('%s that is not a string', (field, user) => {
    const file = withEntries({}, user);
    const error = expectLoadError(
      file,
      new RegExp(`^invalid users\\[u1\\]\\.${field} .*${escapeRe(file)}.*expected a string`),
    );
    expect(error.field).toBe(`users[u1].${field}`);
  });

  it.each([
    [
      'as-groups',
      { as: 'jane', 'as-groups': 'admins' },
      'expected a list of strings, got a string',
    ],
    ['tokenFile', { tokenFile: 7 }, 'expected a string, got a number'],
  ])('%s of the wrong type', (field, user, problem) => {
    const file = withEntries({}, user);
    const error = expectLoadError(
      file,
      new RegExp(`^invalid users\\[u1\\]\\.${field} .*${escapeRe(file)}.*: ${problem}$`),
    );
    expect(error.field).toBe(`users[u1].${field}`);
  });

  it.each([
    [
      'clusters that is not a list',
      { clusters: { a: 1 } },
      'clusters is not a list (got an object)',
    ],
    [
      'a cluster without a name',
      { clusters: [{ cluster: { server: 'https://k' } }] },
      'clusters[0].name is missing',
    ],
    [
      'a user that is not a mapping',
      { users: [{ name: 'u', user: 'token' }] },
      'users[0].user is not a mapping',
    ],
    [
      'a context without a cluster',
      { contexts: [{ name: 'c', context: {} }] },
      'contexts[0].context.cluster is missing',
    ],
    [
      'a current-context that is not a string',
      { 'current-context': ['a'] },
      'current-context must be a string, got a list',
    ],
  ])('%s names the entry', (_what, document, problem) => {
    const file = writeFile('config', JSON.stringify(document));
    expectLoadError(
      file,
      new RegExp(`^invalid kubeconfig ${escapeRe(file)}: ${escapeRe(problem)}$`),
    );
  });

  const dataFields = [
    ['clusters[c1].certificate-authority-data', 'certificate-authority-data', 'cluster'],
    ['users[u1].client-certificate-data', 'client-certificate-data', 'user'],
    ['users[u1].client-key-data', 'client-key-data', 'user'],
  ] as const;

  it.each(dataFields)('%s that is not base64', (field, key, entry) => {
    const bad = { [key]: 'not*base64!' };
    const file = entry === 'cluster' ? withEntries(bad, {}) : withEntries({}, bad);
    const error = expectLoadError(
      file,
      new RegExp(
        `^invalid ${escapeRe(field)} \\(context "ctx" in kubeconfig ${escapeRe(file)}\\): not valid base64$`,
      ),
    );
    expect(error.field).toBe(field);
    expect(error.file).toBe(file);
  });

  it.each(dataFields)('%s with base64 that is not PEM', (field, key, entry) => {
    const bad = { [key]: base64('just some bytes, no PEM block') };
    const file = entry === 'cluster' ? withEntries(bad, {}) : withEntries({}, bad);
    const error = expectLoadError(
      file,
      new RegExp(
        `^invalid ${escapeRe(field)} \\(context "ctx" in kubeconfig ${escapeRe(file)}\\): the base64 does not decode to PEM`,
      ),
    );
    expect(error.field).toBe(field);
  });

  it('base64 with missing padding is refused, and PEM split over lines is accepted', () => {
    const unpadded = base64(keyPem).replace(/=+$/, '');
    expect(unpadded.length % 4).not.toBe(0);
    const file = withEntries({}, { 'client-key-data': unpadded });
    expectLoadError(file, /users\[u1\]\.client-key-data .*not valid base64/);

    const wrapped = base64(keyPem).replace(/(.{20})/g, '$1\n');
    const good = withEntries({}, { 'client-key-data': wrapped });
    const config = loadConfig({ kubeconfig: good, ...isolated() });
    expect(Buffer.from(config.tls?.keyData ?? '').toString()).toBe(keyPem);
  });
});

describe('in-cluster configuration', () => {
  function serviceAccountDir(files: Record<string, string>): string {
    const sa = join(dir, `sa-${fileCounter++}`);
    mkdirSync(sa);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(sa, name), text);
    return sa;
  }

  it('uses the service host, CA, rotating token file and namespace', () => {
    const sa = serviceAccountDir({
      token: 'sa-token\n',
      'ca.crt': 'CLUSTER CA',
      namespace: 'kube-system',
    });
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const config = loadConfig({ env, homeDir: emptyHome(), serviceAccountDir: sa });
    expect(config).toMatchObject({
      host: 'https://10.96.0.1:443',
      bearerToken: 'sa-token',
      bearerTokenFile: join(sa, 'token'),
      namespace: 'kube-system',
    });
    expect(Buffer.from(config.tls?.caData ?? '').toString()).toBe('CLUSTER CA');
  });

  it('brackets an IPv6 service host', () => {
    const sa = serviceAccountDir({ token: 't', 'ca.crt': 'CA' });
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    expect(inClusterConfig({ env, serviceAccountDir: sa }).host).toBe('https://[fd00::1]:443');
  });

  it('is preferred when asked for, even with a kubeconfig around', () => {
    const sa = serviceAccountDir({ token: 't', 'ca.crt': 'CA' });
    const env = {
      KUBERNETES_SERVICE_HOST: '10.0.0.1',
      KUBERNETES_SERVICE_PORT: '6443',
      KUBECONFIG: writeFile('config', simpleKubeconfig),
    };
    expect(loadConfig({ inCluster: true, env, serviceAccountDir: sa }).host).toBe(
      'https://10.0.0.1:6443',
    );
  });

  it('is skipped with inCluster: false', () => {
    const sa = serviceAccountDir({ token: 't', 'ca.crt': 'CA' });
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expectConfigError(
      () => loadConfig({ inCluster: false, env, homeDir: emptyHome(), serviceAccountDir: sa }),
      /no Kubernetes configuration found/,
    );
  });

  it('reports a missing token file and a missing environment', () => {
    const sa = serviceAccountDir({ 'ca.crt': 'CA' });
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expectConfigError(
      () => inClusterConfig({ env, serviceAccountDir: sa }),
      /^cannot read the service-account token .*token: no such file$/,
    );
    expectConfigError(
      () => inClusterConfig({ env: {}, serviceAccountDir: sa }),
      /not running inside a cluster/,
    );
  });
});

describe('authentication through client-node', () => {
  let server: StubServer;
  beforeAll(async () => {
    server = await startStubServer((_request, response) =>
      sendJson(response, 200, { kind: 'PodList' }),
    );
  });
  afterAll(() => server.close());
  afterEach(() => {
    server.requests.length = 0;
  });

  function execKubeconfig(script: string): string {
    return writeKubeconfig({
      current: 'c',
      clusters: [{ name: 'k', cluster: { server: server.url } }],
      users: [
        {
          name: 'exec-user',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              command: process.execPath,
              args: ['-e', script],
            },
          },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'exec-user' } }],
    });
  }

  it('runs exec credential plugins and sends their token', async () => {
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      status: { token: 'from-exec-plugin' },
    });
    const file = execKubeconfig(`process.stdout.write(${JSON.stringify(credential)})`);
    const config = loadConfig({ kubeconfig: file, ...isolated() });
    expect(config.authProvider).toBeDefined();
    const client = new RESTClient({ ...config, qps: -1 }, { groupVersion: 'v1' });
    expect(await client.get().resource('pods').do()).toEqual({ kind: 'PodList' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer from-exec-plugin');
  });

  it('configFromKubeconfig also takes a kubeconfig exported by client-node itself', async () => {
    const { KubeConfig } = await import('@kubernetes/client-node');
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(simpleKubeconfig);
    const config = configFromKubeconfig(parseKubeconfig(kubeConfig.exportConfig()));
    expect(config.host).toBe('https://dev.example:6443');
    expect(config.bearerToken).toBe('dev-token');
    expect(config.namespace).toBe('team-a');
  });

  it('reports a failing exec plugin as a CredentialsError naming the user', async () => {
    const file = execKubeconfig('process.stderr.write("no login"); process.exit(3)');
    const config = loadConfig({ kubeconfig: file, ...isolated() });
    const client = new RESTClient({ ...config, qps: -1 }, { groupVersion: 'v1' });
    const error = await client
      .get()
      .resource('pods')
      .do()
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CredentialsError);
    expect((error as Error).message).toBe(
      'getting credentials for user "exec-user" failed: no login',
    );
    expect(server.requests).toHaveLength(0);
  });
});

function openssl(args: string[], cwd: string): boolean {
  try {
    execFileSync('openssl', args, { cwd, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('TLS', () => {
  const certDir = mkdtempSync(join(tmpdir(), 'kubets-tls-'));
  // One self-signed certificate serves as CA, server and client certificate.
  const haveCerts = openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    certDir,
  );
  let url = '';
  let close: () => Promise<void> = async () => {};
  const clientNames: string[] = [];

  beforeAll(async () => {
    if (!haveCerts) return;
    const cert = readFileSync(join(certDir, 'cert.pem'));
    const key = readFileSync(join(certDir, 'key.pem'));
    const server = https.createServer(
      { cert, key, ca: cert, requestCert: true, rejectUnauthorized: false },
      (request, response) => {
        const socket = request.socket as import('node:tls').TLSSocket;
        clientNames.push(
          socket.authorized ? String(socket.getPeerCertificate().subject?.CN) : 'anonymous',
        );
        sendJson(response, 200, { ok: true });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
  });
  afterAll(async () => {
    await close();
    rmSync(certDir, { recursive: true, force: true });
  });

  // Bun's node:https server sockets have no getPeerCertificate(), which this server reads
  // (scripts/runtime-exclusions.txt lists what else does not run on Bun).
  it.skipIf(!haveCerts || process.versions.bun !== undefined)(
    'verifies the server with the kubeconfig CA and presents the client certificate',
    async () => {
      const file = join(certDir, 'kubeconfig');
      writeFileSync(
        file,
        kubeconfig({
          current: 'c',
          clusters: [{ name: 'k', cluster: { server: url, 'certificate-authority': 'cert.pem' } }],
          users: [
            { name: 'u', user: { 'client-certificate': 'cert.pem', 'client-key': 'key.pem' } },
          ],
          contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
        }),
      );
      const config: Config = { ...loadConfig({ kubeconfig: file, ...isolated() }), qps: -1 };
      expect(await new RESTClient(config).get().absPath('/version').do()).toEqual({ ok: true });
      expect(clientNames.at(-1)).toBe('127.0.0.1');
    },
  );

  it.skipIf(!haveCerts)(
    'refuses a server it cannot verify, unless told to skip verification',
    async () => {
      const untrusted = new RESTClient({ host: url, qps: -1 });
      await expect(untrusted.get().absPath('/version').do()).rejects.toMatchObject({
        name: 'TransportError',
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      });
      const insecure = new RESTClient({ host: url, qps: -1, tls: { insecureSkipVerify: true } });
      expect(await insecure.get().absPath('/version').do()).toEqual({ ok: true });
    },
  );
});
