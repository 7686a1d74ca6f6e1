import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:https';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive } from '../test/process.js';
import { type Envtest, startEnvtest } from './envtest.js';

const execFileAsync = promisify(execFile);

interface Reply {
  status: number;
  json: { [key: string]: unknown };
}

/** A request over node:https with the given TLS material (no agent: nothing lingers). */
function call(
  env: Envtest,
  method: string,
  path: string,
  options: { clientCert?: boolean; body?: unknown } = {},
): Promise<Reply> {
  const clientCert = options.clientCert ?? true;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, env.host),
      {
        method,
        agent: false,
        ca: env.tls.caData,
        ...(clientCert ? { cert: env.tls.certData, key: env.tls.keyData } : {}),
        headers: {
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Reply['json'],
            });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && (await exists(join(dir, name)))) return join(dir, name);
  }
  return undefined;
}

const kubectl = await onPath('kubectl');

describe('envtest against a real etcd and kube-apiserver', () => {
  let env: Envtest;

  beforeAll(async () => {
    env = await startEnvtest();
    console.info(
      `envtest started in ${env.startDurationMs} ms at ${env.host} ` +
        `(etcd: ${env.binaries.etcd.path}, kube-apiserver: ${env.binaries.kubeApiserver.path})`,
    );
  });

  afterAll(async () => {
    await env?.stop();
  });

  it('serves on loopback: https for the API server, http for etcd', async () => {
    expect(env.host).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(env.etcdEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${env.etcdEndpoint}/health`);
    expect(await health.json()).toMatchObject({ health: 'true' });
  });

  it('has the default namespace, readable with the admin client certificate', async () => {
    const reply = await call(env, 'GET', '/api/v1/namespaces/default');
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      kind: 'Namespace',
      metadata: { name: 'default' },
      status: { phase: 'Active' },
    });
  });

  it('authenticates the client certificate as admin in system:masters', async () => {
    const review = await call(
      env,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { verb: '*', group: '*', resource: '*' } },
        },
      },
    );
    expect(review.status).toBe(201);
    expect(review.json).toMatchObject({ status: { allowed: true } });

    // Without the certificate the request is anonymous, and RBAC forbids it.
    const anonymous = await call(env, 'GET', '/api/v1/namespaces/default', { clientCert: false });
    expect(anonymous.status).toBe(403);
    expect(String(anonymous.json.message)).toContain('system:anonymous');
  });

  it("hands out the admin's client config without client-side throttling, as controller-runtime's envtest", () => {
    expect(env.config).toEqual({ host: env.host, tls: env.tls, qps: -1 });
  });

  it('writes the kubeconfig it returns, readable only by its owner', async () => {
    expect(env.kubeconfigPath.startsWith(env.dir)).toBe(true);
    expect(await readFile(env.kubeconfigPath, 'utf8')).toBe(env.kubeconfig);
    expect((await stat(env.kubeconfigPath)).mode & 0o777).toBe(0o600);
    expect(env.kubeconfig).toContain(`server: "${env.host}"`);
    expect(env.kubeconfig).toContain('current-context: "envtest"');
  });

  it.skipIf(kubectl === undefined)('works with kubectl through the kubeconfig', async () => {
    const { stdout } = await execFileAsync(kubectl ?? 'kubectl', [
      '--kubeconfig',
      env.kubeconfigPath,
      'get',
      'namespace',
      'default',
      '-o',
      'json',
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ kind: 'Namespace', metadata: { name: 'default' } });
    const whoami = await execFileAsync(kubectl ?? 'kubectl', [
      '--kubeconfig',
      env.kubeconfigPath,
      'auth',
      'can-i',
      '*',
      '*',
    ]);
    expect(whoami.stdout.trim()).toBe('yes');
  });

  it('runs a second instance side by side, and `await using` stops it', async () => {
    let second: { pids: Envtest['pids']; dir: string; host: string } | undefined;
    {
      await using other = await startEnvtest();
      second = { pids: other.pids, dir: other.dir, host: other.host };
      expect(other.host).not.toBe(env.host);
      expect(other.etcdEndpoint).not.toBe(env.etcdEndpoint);
      expect((await call(other, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
    }
    expect(alive(second.pids.etcd)).toBe(false);
    expect(alive(second.pids.kubeApiserver)).toBe(false);
    expect(await exists(second.dir)).toBe(false);
    // The first one is untouched.
    expect((await call(env, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
  });

  it('restartApiServer: after a SIGKILL, kube-apiserver comes back on the same host with the data', async () => {
    const created = await call(env, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'survives-restart' },
        data: { answer: '42' },
      },
    });
    expect(created.status).toBe(201);
    const before = env.pids;
    const host = env.host;

    await env.restartApiServer({ signal: 'SIGKILL' });

    expect(env.host).toBe(host);
    expect(env.pids.etcd).toBe(before.etcd);
    expect(env.pids.kubeApiserver).not.toBe(before.kubeApiserver);
    expect(alive(before.kubeApiserver)).toBe(false);
    expect(alive(env.pids.kubeApiserver)).toBe(true);
    // Same host, same certificates: the old TLS material still works; etcd kept the data.
    const read = await call(env, 'GET', '/api/v1/namespaces/default/configmaps/survives-restart');
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      data: { answer: '42' },
      metadata: {
        uid: (created.json.metadata as { uid: string }).uid,
        resourceVersion: (created.json.metadata as { resourceVersion: string }).resourceVersion,
      },
    });
    const again = await call(env, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-restart' } },
    });
    expect(again.status).toBe(201);
  });

  it('stop() leaves no child process and no temp dir, and can be called again', async () => {
    const { pids, dir } = env;
    expect(alive(pids.etcd)).toBe(true);
    expect(alive(pids.kubeApiserver)).toBe(true);
    expect(await exists(dir)).toBe(true);
    await env.stop();
    expect(alive(pids.etcd)).toBe(false);
    expect(alive(pids.kubeApiserver)).toBe(false);
    expect(await exists(dir)).toBe(false);
    await expect(env.stop()).resolves.toBeUndefined();
  });
});
