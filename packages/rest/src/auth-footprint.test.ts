// Which of @kubernetes/client-node's modules a process loads, per kubeconfig user: a token or
// client-certificate kubeconfig loads none (kubets reads the file itself: JSON.parse for a JSON
// text, js-yaml, required on first use, for YAML); each
// auth plugin loads its own module on the first credentials() call, OIDC (client-node's API
// client and openid-client) only for an oidc user. And which of Node's heavy built-ins: none
// of HTTP, TLS, streams or undici until the first request, and undici not even then.
// Deterministic: a fresh `node` process imports a bundle of the current source (built here
// with tsup, as the package is) and reports the module URLs a `module.registerHooks` load hook
// saw and the built-ins Node lists as loaded. Nothing is timed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakePemData, singleUserKubeconfig } from '@kubets/test-utils';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Built-ins a process should not pay for before it needs them: HTTP, TLS and sockets until
// the first request; undici (Node's fetch, pulled in by an ES module import of node:http)
// never. Streams and crypto only once something needs them.
const undici = 'internal/deps/undici/undici';
const untilFirstRequest = ['http', 'https', 'http2', 'tls', 'net', 'zlib', undici];
// node:fs/promises brings readline, the REPL history, fs watchers and node:os (+1.9 MB of RSS):
// reading the in-cluster token file must not need it.
const fsPromises = 'fs/promises';
const heavyBuiltins = [...untilFirstRequest, 'stream', 'crypto', fsPromises];
// The YAML parser of a kubeconfig, and the other one in the repository: neither may be loaded
// by a process that reads no kubeconfig.
const yamlParsers = ['js-yaml', 'yaml'];

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
let work: string;
let bundle: string;

beforeAll(async () => {
  // Inside the package, so the bundle resolves @kubernetes/client-node and yaml as dist/ does.
  const cache = join(packageDir, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  work = mkdtempSync(join(cache, 'kubets-footprint-'));
  await build({
    entry: { index: join(packageDir, 'src/index.ts') },
    outDir: work,
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    dts: false,
    sourcemap: false,
    silent: true,
    config: false,
    external: [/^@kubernetes\/client-node/, /^@kubets\//, 'js-yaml'],
  });
  bundle = join(work, 'index.js');
}, 60_000);

/** A loopback port nothing listens on: a request to it fails at once, after loading what it needs. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A service-account directory as the kubelet mounts one: token `in-cluster-token`, a CA. */
function writeServiceAccount(): string {
  const dir = join(work, `serviceaccount-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'token'), 'in-cluster-token\n');
  writeFileSync(join(dir, 'ca.crt'), Buffer.from(fakePemData('CERTIFICATE'), 'base64'));
  return dir;
}

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// The child: import the bundle, load the kubeconfig, ask for credentials when there is an
// auth provider; print the client-node modules loaded after each step and what was sent.
const child = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
const [bundle, loadOptions, request] = process.argv.slice(1);
const clientNode = () =>
  loaded.filter((url) => url.includes('/@kubernetes/client-node/')).map((url) => url.replace(/.*\\/@kubernetes\\/client-node\\//, ''));
const heavy = ${JSON.stringify(heavyBuiltins)};
const yamlParsers = ${JSON.stringify(yamlParsers)};
const builtins = () => heavy.filter((name) => process.moduleLoadList.includes('NativeModule ' + name));
const { loadConfig, RESTClient } = await import(bundle);
const afterImport = builtins();
const config = loadConfig(JSON.parse(loadOptions));
const afterLoad = clientNode();
const credentials = config.authProvider ? await config.authProvider.credentials() : undefined;
const client = new RESTClient(config, { groupVersion: 'v1' });
const builtinsAfterLoad = builtins();
let requestError = null;
if (request === 'request') {
  requestError = await client.get().resource('pods').do().then(() => null, (err) => err.name);
}
process.stdout.write(JSON.stringify({
  afterLoad,
  afterCredentials: clientNode(),
  yamlParser: loaded.some((url) => yamlParsers.some((name) => url.includes('/node_modules/' + name + '/'))),
  authorization: credentials?.headers?.Authorization ?? null,
  bearerToken: config.bearerToken ?? null,
  builtinsAfterImport: afterImport,
  builtinsAfterLoad,
  builtinsAfterRequest: builtins(),
  requestError,
}));
`;

interface Report {
  afterLoad: string[];
  afterCredentials: string[];
  yamlParser: boolean;
  authorization: string | null;
  bearerToken: string | null;
  builtinsAfterImport: string[];
  builtinsAfterLoad: string[];
  builtinsAfterRequest: string[];
  requestError: string | null;
}

function loadIn(
  user: Record<string, unknown>,
  options: { request?: boolean; server?: string } = {},
): Report {
  const file = join(work, `kubeconfig-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, singleUserKubeconfig(user, options.server));
  return runChild({ kubeconfig: file, inCluster: false }, options.request);
}

/** Runs the child with these `loadConfig` options (JSON); `request`: send one request too. */
function runChild(loadOptions: Record<string, unknown>, request = false): Report {
  const output = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      child,
      bundle,
      JSON.stringify(loadOptions),
      request ? 'request' : '',
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' },
    },
  );
  return JSON.parse(output) as Report;
}

// An unsigned JWT that expires in 2100: client-node's OIDC authenticator uses it as it is.
const idToken = [{ alg: 'none' }, { exp: 4_102_444_800, sub: 'jane' }, 'signature']
  .map((part) =>
    typeof part === 'string' ? part : Buffer.from(JSON.stringify(part)).toString('base64url'),
  )
  .join('.');

describe('client-node modules a process loads, by kubeconfig user', () => {
  it('a token kubeconfig loads no client-node module; in JSON, no YAML parser either', () => {
    const report = loadIn({ token: 'static-token' });
    expect(report.afterCredentials).toEqual([]);
    expect(report.yamlParser).toBe(false);
    expect(report.bearerToken).toBe('static-token');
  });

  it('a YAML kubeconfig loads the YAML parser, and no client-node module', () => {
    const file = join(work, `kubeconfig-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(
      file,
      [
        'current-context: c',
        'clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}]',
        'users: [{name: u, user: {token: static-token}}]',
        'contexts: [{name: c, context: {cluster: k, user: u}}]',
      ].join('\n'),
    );
    const report = runChild({ kubeconfig: file, inCluster: false });
    expect(report.yamlParser).toBe(true);
    expect(report.afterCredentials).toEqual([]);
    expect(report.bearerToken).toBe('static-token');
  });

  it('an in-cluster configuration loads no YAML parser and no client-node module', () => {
    const serviceAccountDir = writeServiceAccount();
    const report = runChild({
      inCluster: true,
      serviceAccountDir,
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
    });
    expect(report.bearerToken).toBe('in-cluster-token');
    expect(report.yamlParser).toBe(false);
    expect(report.afterCredentials).toEqual([]);
    expect(report.builtinsAfterLoad.filter((name) => untilFirstRequest.includes(name))).toEqual([]);
  });

  it('an in-cluster client reads its token file without node:fs/promises', async () => {
    const serviceAccountDir = writeServiceAccount();
    const report = runChild(
      {
        inCluster: true,
        serviceAccountDir,
        env: {
          KUBERNETES_SERVICE_HOST: '127.0.0.1',
          KUBERNETES_SERVICE_PORT: `${await closedPort()}`,
        },
      },
      true,
    );
    expect(report.requestError).toBe('TransportError');
    expect(report.builtinsAfterRequest).not.toContain(fsPromises);
  });

  it('a client-certificate kubeconfig loads no client-node module', () => {
    const report = loadIn({
      'client-certificate-data': fakePemData('CERTIFICATE'),
      'client-key-data': fakePemData('PRIVATE KEY'),
    });
    expect(report.afterCredentials).toEqual([]);
  });

  it('an exec user loads exec_auth.js at the first credentials() call', () => {
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      status: { token: 'from-exec' },
    });
    const report = loadIn({
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        command: process.execPath,
        args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`],
      },
    });
    expect(report.afterLoad).toEqual([]);
    expect(report.afterCredentials).toEqual(['dist/exec_auth.js']);
    expect(report.authorization).toBe('Bearer from-exec');
  });

  it('a tokenFile auth provider loads file_auth.js', () => {
    const tokenFile = join(work, 'token');
    writeFileSync(tokenFile, 'from-file');
    const report = loadIn({ 'auth-provider': { name: 'file', config: { tokenFile } } });
    expect(report.afterLoad).toEqual([]);
    expect(report.afterCredentials).toEqual(['dist/file_auth.js']);
    expect(report.authorization).toBe('Bearer from-file');
  });

  it('an oidc auth provider loads oidc_auth.js (and with it client-node) only when asked for credentials', () => {
    const report = loadIn({
      'auth-provider': {
        name: 'oidc',
        config: { 'client-id': 'kubectl', 'id-token': idToken, 'idp-issuer-url': 'https://idp' },
      },
    });
    expect(report.afterLoad).toEqual([]);
    expect(report.afterCredentials).toContain('dist/oidc_auth.js');
    expect(report.afterCredentials).toContain('dist/gen/index.js');
    expect(report.authorization).toBe(`Bearer ${idToken}`);
  });

  it.each([
    ['gcp', 'dist/gcp_auth.js'],
    ['azure', 'dist/azure_auth.js'],
  ])('a %s auth provider loads %s alone', (name, module) => {
    const report = loadIn({
      'auth-provider': { name, config: { 'access-token': `${name}-token` } },
    });
    expect(report.afterLoad).toEqual([]);
    expect(report.afterCredentials).toEqual([module]);
    expect(report.authorization).toBe(`Bearer ${name}-token`);
  });
});

describe('Node built-ins a process loads', () => {
  it.each([
    ['token', { token: 'static-token' }],
    [
      'client-certificate',
      {
        'client-certificate-data': fakePemData('CERTIFICATE'),
        'client-key-data': fakePemData('PRIVATE KEY'),
      },
    ],
  ])('a %s kubeconfig and a client load no HTTP, TLS or sockets', (_, user) => {
    const report = loadIn(user);
    expect(report.builtinsAfterImport).toEqual([]);
    expect(report.builtinsAfterLoad.filter((name) => untilFirstRequest.includes(name))).toEqual([]);
  });

  it('the first request loads node:https and TLS, and undici still not', async () => {
    const port = await closedPort();
    const report = loadIn(
      { token: 'static-token' },
      { request: true, server: `https://127.0.0.1:${port}` },
    );
    expect(report.requestError).toBe('TransportError');
    expect(report.builtinsAfterRequest).toEqual(expect.arrayContaining(['https', 'tls']));
    expect(report.builtinsAfterRequest).not.toContain(undici);
  });
});
