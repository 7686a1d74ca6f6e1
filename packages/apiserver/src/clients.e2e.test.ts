import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InMemoryApiServer, startApiServer } from './server.js';

const execFileAsync = promisify(execFile);
const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

describe('real clients against the in-memory API server', () => {
  let server: InMemoryApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await execFileAsync(
      KUBECTL,
      ['--kubeconfig', server.kubeconfigPath, ...args],
      {
        timeout: 30_000,
      },
    );
    return stdout;
  };
  const manifest = async (name: string, body: string): Promise<string> => {
    const path = join(server.kubeconfigPath, '..', name);
    await writeFile(path, body);
    return path;
  };

  describe.skipIf(!existsSync(KUBECTL))('kubectl', () => {
    it('lists API resources', async () => {
      const out = await kubectl('api-resources');
      expect(out).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
      expect(out).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
      expect(out).toMatch(/^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
    });

    it('gets, applies (client-side and server-side) and deletes', async () => {
      expect(await kubectl('get', 'namespaces', '-o', 'name')).toContain('namespace/default');
      const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: nginx:1
`;
      const path = await manifest('deployment.yaml', deployment(1));
      expect(await kubectl('apply', '-f', path)).toContain('deployment.apps/web created');
      await writeFile(path, deployment(2));
      expect(await kubectl('apply', '-f', path)).toContain('deployment.apps/web configured');
      expect(await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}')).toBe(
        '2',
      );
      expect(
        await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.generation}'),
      ).toBe('2');

      const cm = await manifest(
        'configmap.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  key: one\n',
      );
      expect(await kubectl('apply', '--server-side', '-f', cm)).toContain('serverside-applied');
      const managers = JSON.parse(
        await kubectl('get', 'configmap', 'ssa', '-o', 'jsonpath={.metadata.managedFields}'),
      ) as { manager: string; operation: string }[];
      expect(managers).toEqual([
        expect.objectContaining({ manager: 'kubectl', operation: 'Apply' }),
      ]);
      await writeFile(
        cm,
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  key: two\n',
      );
      await expect(
        kubectl('apply', '--server-side', '--field-manager', 'intruder', '-f', cm),
      ).rejects.toThrow(/conflict/i);
      await kubectl(
        'apply',
        '--server-side',
        '--field-manager',
        'intruder',
        '--force-conflicts',
        '-f',
        cm,
      );
      expect(await kubectl('get', 'configmap', 'ssa', '-o', 'jsonpath={.data.key}')).toBe('two');

      expect(await kubectl('delete', '-f', path)).toContain('deployment.apps "web" deleted');
      expect(await kubectl('delete', 'configmap', 'ssa')).toContain('configmap "ssa" deleted');
      await expect(kubectl('get', 'configmap', 'ssa')).rejects.toThrow(/NotFound|not found/);
    });

    it('watches with get -w', async () => {
      const child: ChildProcess = spawn(
        KUBECTL,
        ['--kubeconfig', server.kubeconfigPath, 'get', 'configmaps', '-w', '--output-watch-events'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const seen = async (text: string): Promise<void> => {
        const deadline = Date.now() + 15_000;
        while (!output.includes(text)) {
          if (Date.now() > deadline)
            throw new Error(`kubectl get -w never printed ${text}: ${output}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      try {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const path = await manifest(
          'watched.yaml',
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\n',
        );
        await kubectl('create', '-f', path);
        await seen('ADDED');
        await kubectl('delete', '-f', path);
        await seen('DELETED');
        expect(output).toMatch(/^ADDED\s+watched\s/m);
        expect(output).toMatch(/^DELETED\s+watched\s/m);
      } finally {
        child.kill('SIGTERM');
      }
    });
  });

  const cli = join(import.meta.dirname, '..', 'dist', 'cli.js');
  describe.skipIf(!existsSync(cli))('kubets-apiserver CLI (built)', () => {
    it('prints the path of its kubeconfig, serves until SIGTERM, then exits 0', async () => {
      const child = spawn(process.execPath, [cli], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      const deadline = Date.now() + 10_000;
      while (!stdout.includes('\n')) {
        if (Date.now() > deadline) throw new Error(`no kubeconfig path printed: ${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const host = /server: "([^"]+)"/.exec(readFileSync(stdout.trim(), 'utf8'))?.[1];
      expect(host).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${host}/api/v1/namespaces/default`);
      expect(res.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
  });

  describe('@kubernetes/client-node', () => {
    it('makeInformer syncs, then sees an added and a deleted object', async () => {
      const kc = new KubeConfig();
      kc.loadFromString(server.kubeconfig);
      const core = kc.makeApiClient(CoreV1Api);
      const namespace = 'informer-test';
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: 'existing' }, data: { a: '1' } },
      });
      const informer = makeInformer<V1ConfigMap>(
        kc,
        `/api/v1/namespaces/${namespace}/configmaps`,
        () => core.listNamespacedConfigMap({ namespace }),
      );
      const added: string[] = [];
      const deleted: string[] = [];
      const errors: unknown[] = [];
      informer.on('add', (obj) => added.push(obj.metadata?.name ?? ''));
      informer.on('delete', (obj) => deleted.push(obj.metadata?.name ?? ''));
      informer.on('error', (error) => errors.push(error));
      await informer.start();
      try {
        expect(informer.list().map((o) => o.metadata?.name)).toEqual(['existing']);
        await core.createNamespacedConfigMap({
          namespace,
          body: { metadata: { name: 'new' }, data: { b: '2' } },
        });
        const until = async (check: () => boolean): Promise<void> => {
          const deadline = Date.now() + 10_000;
          while (!check()) {
            if (Date.now() > deadline)
              throw new Error(`timed out; added=${added} errors=${errors}`);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        };
        await until(() => added.includes('new'));
        expect(informer.get('new', namespace)?.data).toEqual({ b: '2' });
        await core.deleteNamespacedConfigMap({ name: 'existing', namespace });
        await until(() => deleted.includes('existing'));
        expect(informer.list().map((o) => o.metadata?.name)).toEqual(['new']);
        expect(errors).toEqual([]);
      } finally {
        await informer.stop();
      }
    });
  });
});
