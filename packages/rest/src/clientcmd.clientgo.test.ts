// client-go's tools/clientcmd loading tests, as data: loader_test.go (ClientConfigLoadingRules
// and LoadFromFile) and client_config_test.go (the rest.Config a context makes), case by case
// where they apply to kubets' options. Overrides other than `--context` and `--master`
// (ConfigOverrides), proxy-url, file migration, locking and writing kubeconfigs have no kubets
// counterpart; docs/fidelity.md lists them and the differences asserted here.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configFromKubeconfig,
  kubeconfigEnvFiles,
  kubeconfigPrecedence,
  loadConfig,
  loadKubeconfig,
} from './clientcmd.js';
import type { Kubeconfig } from './clientcmd-api.js';
import { isConfigError } from './errors.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubets-clientcmd-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
/** Writes `content` (an object is written as JSON, which is YAML) to a new file. */
function writeConfig(content: object | string, name = 'config'): string {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const isolated = () => {
  const homeDir = join(dir, `home-${counter++}`);
  mkdirSync(homeDir);
  return { env: {}, homeDir };
};

function loadError(run: () => unknown): Error {
  try {
    run();
  } catch (err) {
    expect(isConfigError(err)).toBe(true);
    return err as Error;
  }
  throw new Error('expected a ConfigError');
}

// client_config_test.go's createValidTestConfig, in the file format.
const validTestConfig = (
  cluster: Record<string, unknown> = {},
  user: Record<string, unknown> = { token: 'the-token' },
): Kubeconfig => ({
  clusters: [{ name: 'clean', cluster: { server: 'https://anything.com:8080', ...cluster } }],
  users: [{ name: 'clean', user }],
  contexts: [{ name: 'clean', context: { cluster: 'clean', user: 'clean' } }],
  'current-context': 'clean',
});

describe('loader_test.go', () => {
  it('TestNonExistentCommandLineFile', () => {
    const error = loadError(() => loadKubeconfig({ kubeconfig: 'bogus_file', ...isolated() }));
    expect(error.message).toContain('bogus_file');
  });

  it('TestToleratingMissingFiles: missing KUBECONFIG files are skipped', () => {
    const present = writeConfig(validTestConfig());
    const env = { KUBECONFIG: ['bogus1', present, 'bogus2', 'bogus3'].join(delimiter) };
    expect(loadKubeconfig({ env, homeDir: isolated().homeDir }).clusters).toHaveLength(1);
    // kubets differs when every file is missing: an error rather than an empty config.
    const allMissing = { KUBECONFIG: ['bogus1', 'bogus2', 'bogus3'].join(delimiter) };
    expect(
      loadError(() => loadKubeconfig({ env: allMissing, homeDir: isolated().homeDir })).message,
    ).toBe(`none of the files in KUBECONFIG exist: ${allMissing.KUBECONFIG}`);
  });

  it('TestErrorReadingFile', () => {
    const file = writeConfig('bogus value');
    expect(loadError(() => loadKubeconfig({ kubeconfig: file, ...isolated() })).message).toContain(
      file,
    );
  });

  it('TestErrorReadingNonFile', () => {
    const directory = mkdtempSync(join(dir, 'non-file-'));
    expect(
      loadError(() => loadKubeconfig({ kubeconfig: directory, ...isolated() })).message,
    ).toContain(directory);
  });

  it('TestConflictingCurrentContext: the explicit file wins', () => {
    const commandLine = writeConfig({ 'current-context': 'any-context-value' });
    const envVar = writeConfig({ 'current-context': 'a-different-context' });
    const merged = loadKubeconfig({
      kubeconfig: commandLine,
      env: { KUBECONFIG: envVar },
      homeDir: isolated().homeDir,
    });
    expect(merged['current-context']).toBe('any-context-value');
  });

  it('TestLoadingEmptyMaps', () => {
    const file = writeConfig({ 'current-context': 'any-context-value' });
    const loaded = loadKubeconfig({ kubeconfig: file, ...isolated() });
    expect(loaded.clusters).toEqual([]);
    expect(loaded.users).toEqual([]);
    expect(loaded.contexts).toEqual([]);
  });

  const duplicateHeader = `
kind: Config
apiVersion: v1
`;
  const duplicateCluster = (name: string) => `
- cluster:
    api-version: v1
    server: https://kubernetes.default.svc:443
    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
  name: ${name}`;
  const duplicateContext = (name: string, cluster: string) => `
- context:
    cluster: ${cluster}
    namespace: default
    user: kubeconfig-user
  name: ${name}`;
  const duplicateUser = (name: string) => `
- name: ${name}
  user:
    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token`;
  it.each([
    [
      'TestDuplicateClusterName',
      `clusters:${duplicateCluster('kubeconfig-cluster')}${duplicateCluster('kubeconfig-cluster')}
contexts:${duplicateContext('kubeconfig-context', 'kubeconfig-cluster')}
users:${duplicateUser('kubeconfig-user')}`,
      'duplicate name "kubeconfig-cluster" in clusters',
    ],
    [
      'TestDuplicateContextName',
      `clusters:${duplicateCluster('kubeconfig-cluster')}
contexts:${duplicateContext('kubeconfig-context', 'kubeconfig-cluster')}${duplicateContext('kubeconfig-context', 'test-example-cluster')}
users:${duplicateUser('kubeconfig-user')}`,
      'duplicate name "kubeconfig-context" in contexts',
    ],
    [
      'TestDuplicateUserName',
      `clusters:${duplicateCluster('kubeconfig-cluster')}
contexts:${duplicateContext('kubeconfig-context', 'kubeconfig-cluster')}
users:${duplicateUser('kubeconfig-user')}${duplicateUser('kubeconfig-user')}`,
      'duplicate name "kubeconfig-user" in users',
    ],
  ])('%s', (_name, body, expected) => {
    const file = writeConfig(`${duplicateHeader}${body}\ncurrent-context: kubeconfig-context\n`);
    const error = loadError(() => loadKubeconfig({ kubeconfig: file, ...isolated() }));
    expect(error.message).toBe(`invalid kubeconfig ${file}: ${expected}`);
  });

  it('TestResolveRelativePaths', () => {
    const absoluteDir = join(dir, 'absolute');
    const configDir1 = mkdtempSync(join(dir, 'resolve-'));
    const configDir2 = mkdtempSync(join(mkdtempSync(join(dir, 'resolve-')), 'nested-'));
    const file1 = join(configDir1, '.kubeconfig');
    const file2 = join(configDir2, '.kubeconfig');
    const ca = (path: string) => ({ server: 'https://x', 'certificate-authority': path });
    writeFileSync(
      file1,
      JSON.stringify({
        users: [
          {
            name: 'relative-user-1',
            user: {
              'client-certificate': join('relative', 'client', 'cert'),
              'client-key': join('..', 'relative', 'client', 'key'),
            },
          },
          {
            name: 'absolute-user-1',
            user: {
              'client-certificate': join(absoluteDir, 'client', 'cert'),
              'client-key': join(absoluteDir, 'client', 'key'),
            },
          },
          {
            name: 'relative-cmd-1',
            user: { exec: { command: join('..', 'relative', 'client', 'cmd') } },
          },
          {
            name: 'absolute-cmd-1',
            user: { exec: { command: join(absoluteDir, 'client', 'cmd') } },
          },
          { name: 'PATH-cmd-1', user: { exec: { command: 'cmd' } } },
        ],
        clusters: [
          { name: 'relative-server-1', cluster: ca(join('..', 'relative', 'ca')) },
          { name: 'absolute-server-1', cluster: ca(join(absoluteDir, 'ca')) },
        ],
      }),
    );
    writeFileSync(
      file2,
      JSON.stringify({
        users: [
          {
            name: 'relative-user-2',
            user: {
              'client-certificate': join('relative', 'client', 'cert2'),
              'client-key': join('..', 'relative', 'client', 'key2'),
            },
          },
          {
            name: 'absolute-user-2',
            user: {
              'client-certificate': join(absoluteDir, 'client', 'cert2'),
              'client-key': join(absoluteDir, 'client', 'key2'),
            },
          },
        ],
        clusters: [
          { name: 'relative-server-2', cluster: ca(join('..', 'relative', 'ca2')) },
          { name: 'absolute-server-2', cluster: ca(join(absoluteDir, 'ca2')) },
        ],
      }),
    );
    const merged = loadKubeconfig({
      env: { KUBECONFIG: [file1, file2].join(delimiter) },
      homeDir: isolated().homeDir,
    });
    const caOf = Object.fromEntries(
      merged.clusters.map(({ name, cluster }) => [name, cluster['certificate-authority']]),
    );
    expect(caOf).toEqual({
      'relative-server-1': join(configDir1, '..', 'relative', 'ca'),
      'relative-server-2': join(configDir2, '..', 'relative', 'ca2'),
      'absolute-server-1': join(absoluteDir, 'ca'),
      'absolute-server-2': join(absoluteDir, 'ca2'),
    });
    const userOf = Object.fromEntries(merged.users.map(({ name, user }) => [name, user]));
    expect(userOf['relative-user-1']).toMatchObject({
      'client-certificate': join(configDir1, 'relative', 'client', 'cert'),
      'client-key': join(configDir1, '..', 'relative', 'client', 'key'),
    });
    expect(userOf['relative-user-2']).toMatchObject({
      'client-certificate': join(configDir2, 'relative', 'client', 'cert2'),
      'client-key': join(configDir2, '..', 'relative', 'client', 'key2'),
    });
    expect(userOf['absolute-user-1']).toMatchObject({
      'client-certificate': join(absoluteDir, 'client', 'cert'),
      'client-key': join(absoluteDir, 'client', 'key'),
    });
    expect(userOf['absolute-user-2']).toMatchObject({
      'client-certificate': join(absoluteDir, 'client', 'cert2'),
      'client-key': join(absoluteDir, 'client', 'key2'),
    });
    expect(userOf['relative-cmd-1']?.exec?.command).toBe(
      join(configDir1, '..', 'relative', 'client', 'cmd'),
    );
    expect(userOf['absolute-cmd-1']?.exec?.command).toBe(join(absoluteDir, 'client', 'cmd'));
    expect(userOf['PATH-cmd-1']?.exec?.command).toBe('cmd');
    expect(merged.users).toHaveLength(7);
  });

  it.each([
    [
      ['a', 'b', 'c', 'd', 'e', 'f'],
      ['a', 'b', 'c', 'd', 'e', 'f'],
    ],
    [
      ['a', 'b', 'c', 'b', 'e', 'f'],
      ['a', 'b', 'c', 'e', 'f'],
    ],
    [
      ['a', 'a', 'b', 'b', 'c', 'b'],
      ['a', 'b', 'c'],
    ],
  ])('TestDeduplicate %j', (src, expected) => {
    expect(kubeconfigEnvFiles({ KUBECONFIG: src.join(delimiter) })).toEqual(expected);
  });

  it.each([
    ['default', {}, '', ['/home/user/.kube/config']],
    ['explicit', { kubeconfig: '/explicit/kubeconfig' }, '', ['/explicit/kubeconfig']],
    ['envvar-single', {}, '/env/kubeconfig', ['/env/kubeconfig']],
    [
      'envvar-multiple',
      {},
      ['/env/kubeconfig', '/other/kubeconfig'].join(delimiter),
      ['/env/kubeconfig', '/other/kubeconfig'],
    ],
  ])('TestLoadingGetLoadingPrecedence %s', (_name, rules, env, precedence) => {
    expect(
      kubeconfigPrecedence({ ...rules, env: { KUBECONFIG: env }, homeDir: '/home/user' }),
    ).toEqual(precedence);
  });
});

describe('client_config_test.go', () => {
  const load = (kubeconfig: Kubeconfig, context?: string) =>
    loadConfig({ kubeconfig: writeConfig(kubeconfig), context, ...isolated() });

  it('TestCreateClean', () => {
    const config = load(validTestConfig());
    expect(config.host).toBe('https://anything.com:8080');
    expect(config.apiPath).toBeUndefined();
    expect(config.tls?.insecureSkipVerify).toBeUndefined();
    expect(config.bearerToken).toBe('the-token');
    expect(config.tls?.serverName).toBeUndefined();
  });

  it.each([
    ['https://anything.com:8080/foo/bar', 'https://anything.com:8080/foo/bar'],
    ['http://anything.com:8080/foo/bar', 'http://anything.com:8080/foo/bar'],
    // kubets drops one trailing slash (as client-node did), client-go keeps it.
    ['http://anything.com:8080/foo/bar/', 'http://anything.com:8080/foo/bar'],
    ['http://anything.com:8080/', 'http://anything.com:8080'],
    ['http://anything.com:8080//', 'http://anything.com:8080/'],
    ['anything.com:8080/foo/bar', 'anything.com:8080/foo/bar'],
    ['anything.com:8080', 'anything.com:8080'],
    ['anything.com', 'anything.com'],
    ['anything', 'anything'],
  ])('TestCreateCleanWithPrefix %s', (server, host) => {
    expect(load(validTestConfig({ server })).host).toBe(host);
  });

  it('TestCreateMissingContext', () => {
    const error = loadError(() => load(validTestConfig(), 'not-present'));
    expect(error.message).toContain('context "not-present" not found');
  });

  it('TestCAOverridesCAData: the CA file wins over the data', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nFROM FILE\n-----END CERTIFICATE-----\n';
    const caFile = writeConfig(pem, 'my.ca');
    const config = load(
      validTestConfig({ 'certificate-authority': caFile, 'certificate-authority-data': 'AAA=' }),
    );
    expect(config.tls?.insecureSkipVerify).toBeUndefined();
    expect(Buffer.from(config.tls?.caData ?? '').toString()).toBe(pem);
  });

  it('TestTLSServerName', () => {
    const config = load(validTestConfig({ 'tls-server-name': 'overridden-server-name' }));
    expect(config.tls?.serverName).toBe('overridden-server-name');
    expect(config.tls?.caData).toBeUndefined();
  });

  it('TestFullImpersonateConfig', () => {
    const config = load(
      validTestConfig(
        { server: 'https://localhost:8443' },
        {
          as: 'alice',
          'as-uid': 'abc123',
          'as-groups': ['group-1'],
          'as-user-extra': { 'some-key': ['some-value'] },
        },
      ),
    );
    expect(config.impersonate).toEqual({
      user: 'alice',
      uid: 'abc123',
      groups: ['group-1'],
      extra: { 'some-key': ['some-value'] },
    });
  });

  it('TestCertificateData', () => {
    // kubets checks that *-data decodes to PEM, so the data are PEM blocks here.
    const pem = (what: string) => `-----BEGIN ${what}-----\n${what}\n-----END ${what}-----\n`;
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const config = load(
      validTestConfig(
        { server: 'https://localhost:8443', 'certificate-authority-data': b64(pem('CA')) },
        {
          'client-certificate-data': b64(pem('CERTIFICATE')),
          'client-key-data': b64(pem('KEY')),
        },
      ),
    );
    expect(Buffer.from(config.tls?.caData ?? '').toString()).toBe(pem('CA'));
    expect(Buffer.from(config.tls?.certData ?? '').toString()).toBe(pem('CERTIFICATE'));
    expect(Buffer.from(config.tls?.keyData ?? '').toString()).toBe(pem('KEY'));
  });

  it('TestBasicAuthData', () => {
    const config = load(
      validTestConfig(
        { server: 'https://localhost:8443' },
        { username: 'myuser', password: 'mypass' },
      ),
    );
    expect(config.username).toBe('myuser');
    expect(config.password).toBe('mypass');
  });

  it('TestBasicTokenFile', () => {
    const tokenFile = writeConfig('exampletoken', 'tokenfile');
    const config = load(validTestConfig({ server: 'https://localhost:8443' }, { tokenFile }));
    expect(config.bearerToken).toBe('exampletoken');
    expect(config.bearerTokenFile).toBe(tokenFile);
  });

  it('TestPrecedenceTokenFile', () => {
    const tokenFile = writeConfig('exampletoken', 'tokenfile');
    const config = load(
      validTestConfig({ server: 'https://localhost:8443' }, { token: 'expected', tokenFile }),
    );
    expect(config.bearerToken).toBe('expected');
  });

  it('an unreadable tokenFile names the field, the context and the file', () => {
    const kubeconfig = validTestConfig({}, { tokenFile: join(dir, 'no-token') });
    const error = loadError(() => configFromKubeconfig(kubeconfig));
    expect(error.message).toBe(
      `cannot read users[clean].tokenFile ${join(dir, 'no-token')} (context "clean"): no such file`,
    );
  });
});
