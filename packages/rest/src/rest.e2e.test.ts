import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  isStatusError,
  type ObjectList,
  type WatchEvent,
} from '@kubets/apimachinery';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { rejectionOf } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertChain } from '../test/tls.js';
import { loadConfig } from './clientcmd.js';
import { PatchType, RESTClient, type RequestBody, TransportError } from './index.js';

interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    managedFields?: { manager?: string; operation?: string }[];
  };
  data?: Record<string, string>;
}

let env: Envtest;
let core: RESTClient;
let namespace: string;

function configMaps() {
  return { ns: namespace, resource: 'configmaps' };
}

function configMap(name: string, data: Record<string, string> = {}): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

async function create(cm: ConfigMap): Promise<ConfigMap> {
  const { ns, resource } = configMaps();
  return core.post().namespace(ns).resource(resource).body(cm).do<ConfigMap>();
}

async function get(name: string): Promise<ConfigMap> {
  const { ns, resource } = configMaps();
  return core.get().namespace(ns).resource(resource).name(name).do<ConfigMap>();
}

async function update(cm: ConfigMap): Promise<ConfigMap> {
  const { ns, resource } = configMaps();
  return core
    .put()
    .namespace(ns)
    .resource(resource)
    .name(cm.metadata.name)
    .body(cm)
    .do<ConfigMap>();
}

beforeAll(async () => {
  env = await startEnvtest();
  // The config comes from the kubeconfig envtest wrote: this exercises loadConfig for real.
  const config = loadConfig({ kubeconfig: env.kubeconfigPath });
  core = new RESTClient({ ...config, qps: -1 }, { groupVersion: 'v1' });
  namespace = `rest-e2e-${randomUUID().slice(0, 8)}`;
  await core
    .post()
    .resource('namespaces')
    .body({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
    .do();
});

afterAll(async () => {
  await env?.stop();
});

describe('RESTClient against a real kube-apiserver', () => {
  it('creates, gets, lists, updates and deletes a ConfigMap', async () => {
    const created = await create(configMap('crud', { a: '1' }));
    expect(created.metadata.resourceVersion).toMatch(/^\d+$/);

    const fetched = await get('crud');
    expect(fetched.data).toEqual({ a: '1' });

    const list = await core
      .get()
      .namespace(namespace)
      .resource('configmaps')
      .do<ObjectList<ConfigMap>>();
    expect(list.items.map((cm) => cm.metadata.name)).toContain('crud');
    expect(list.metadata?.resourceVersion).toMatch(/^\d+$/);

    fetched.data = { a: '2' };
    const updated = await update(fetched);
    expect(updated.data).toEqual({ a: '2' });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );

    await core.delete().namespace(namespace).resource('configmaps').name('crud').do();
    await expect(get('crud')).rejects.toSatisfy(isNotFound);
  });

  it('reports AlreadyExists on a second create', async () => {
    await create(configMap('twice'));
    const second = create(configMap('twice'));
    await expect(second).rejects.toSatisfy(isAlreadyExists);
    await expect(second).rejects.toSatisfy((err: unknown) => !isConflict(err));
  });

  it('reports NotFound with the server Status for a missing name', async () => {
    const err = await get('does-not-exist').catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(isStatusError(err) && err.status.details?.name).toBe('does-not-exist');
    expect(isStatusError(err) && err.message).toContain('"does-not-exist" not found');
  });

  it('reports Conflict on an update with a stale resourceVersion', async () => {
    const original = await create(configMap('stale', { v: '1' }));
    await update({ ...original, data: { v: '2' } });
    const staleUpdate = update({ ...original, data: { v: '3' } });
    await expect(staleUpdate).rejects.toSatisfy(isConflict);
    expect((await get('stale')).data).toEqual({ v: '2' });
  });

  describe('patches', () => {
    function patch(type: PatchType, name: string, body: RequestBody) {
      return core
        .patch(type)
        .namespace(namespace)
        .resource('configmaps')
        .name(name)
        .body(body)
        .do<ConfigMap>();
    }

    it('merge patch adds and removes keys', async () => {
      await create(configMap('merge', { keep: 'k', drop: 'd' }));
      const patched = await patch(PatchType.MergePatch, 'merge', {
        data: { drop: null, added: 'x' },
      });
      expect(patched.data).toEqual({ keep: 'k', added: 'x' });
    });

    it('JSON patch applies operations in order', async () => {
      await create(configMap('jsonpatch', { a: '1' }));
      const patched = await patch(PatchType.JSONPatch, 'jsonpatch', [
        { op: 'replace', path: '/data/a', value: '2' },
        { op: 'add', path: '/data/b', value: '3' },
      ]);
      expect(patched.data).toEqual({ a: '2', b: '3' });
    });

    it('strategic merge patch merges maps', async () => {
      await create(configMap('strategic', { a: '1' }));
      const patched = await patch(PatchType.StrategicMergePatch, 'strategic', {
        metadata: { labels: { tier: 'web' } },
        data: { b: '2' },
      });
      expect(patched.data).toEqual({ a: '1', b: '2' });
      expect(patched.metadata.labels).toEqual({ tier: 'web' });
    });

    it('server-side apply creates, then updates, and records the field manager', async () => {
      const applied = await core
        .patch(PatchType.ApplyPatch)
        .namespace(namespace)
        .resource('configmaps')
        .name('applied')
        .param('fieldManager', 'kubets-e2e')
        .body(configMap('applied', { owner: 'kubets' }))
        .do<ConfigMap>();
      expect(applied.data).toEqual({ owner: 'kubets' });
      const reapplied = await core
        .patch(PatchType.ApplyPatch)
        .namespace(namespace)
        .resource('configmaps')
        .name('applied')
        .param('fieldManager', 'kubets-e2e')
        .param('force', true)
        .body(configMap('applied', { owner: 'kubets', more: 'yes' }))
        .do<ConfigMap>();
      expect(reapplied.data).toEqual({ owner: 'kubets', more: 'yes' });
      expect(reapplied.metadata.managedFields?.map((f) => f.manager)).toContain('kubets-e2e');
    });
  });

  it('watches ADDED, MODIFIED and DELETED made by a second client', async () => {
    const list = await core
      .get()
      .namespace(namespace)
      .resource('configmaps')
      .do<ObjectList<ConfigMap>>();
    const watch = await core
      .get()
      .namespace(namespace)
      .resource('configmaps')
      .param('resourceVersion', list.metadata?.resourceVersion ?? '')
      .param('fieldSelector', 'metadata.name=watched')
      .watch<ConfigMap>();

    // A second, independent client makes the changes.
    const other = new RESTClient(loadConfig({ kubeconfig: env.kubeconfigPath }), {
      groupVersion: 'v1',
    });
    const changes = (async () => {
      await other
        .post()
        .namespace(namespace)
        .resource('configmaps')
        .body(configMap('watched', { n: '1' }))
        .do();
      await other
        .patch(PatchType.MergePatch)
        .namespace(namespace)
        .resource('configmaps')
        .name('watched')
        .body({ data: { n: '2' } })
        .do();
      await other.delete().namespace(namespace).resource('configmaps').name('watched').do();
    })();

    const seen: WatchEvent<ConfigMap>[] = [];
    for await (const event of watch) {
      seen.push(event);
      if (event.type === 'DELETED') break;
    }
    await changes;
    expect(watch.stopped).toBe(true);
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const modified = seen[1];
    expect(modified?.type === 'MODIFIED' && modified.object.data).toEqual({ n: '2' });
  });

  it('lists page by page with limit and continue', async () => {
    const names = Array.from({ length: 7 }, (_, i) => `page-${i}`);
    for (const name of names) await create(configMap(name));
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const request = core
        .get()
        .namespace(namespace)
        .resource('configmaps')
        .param('labelSelector', '')
        .param('limit', 3);
      if (token) request.param('continue', token);
      const page = await request.do<ObjectList<ConfigMap>>();
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((cm) => cm.metadata.name));
      token = page.metadata?.continue || undefined;
      pages++;
    } while (token);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(names));
  });

  it('stream-decodes a list with doList(), matching do()', async () => {
    const names = Array.from({ length: 25 }, (_, i) => `streamed-${i}`);
    for (const name of names) {
      await create(configMap(name, { text: `ünïcødé "${name}" \\ {[`, big: 'x'.repeat(20_000) }));
    }
    const request = () =>
      core.get().namespace(namespace).resource('configmaps').param('labelSelector', '');
    const seen: string[] = [];
    const streamed = await request().doList<ConfigMap>({
      onItem: (cm) => seen.push(cm.metadata.name),
    });
    const whole = await request().do<ObjectList<ConfigMap>>();
    expect(streamed.kind).toBe('ConfigMapList');
    expect(streamed.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(streamed.items).toEqual(whole.items);
    expect(seen).toEqual(whole.items.map((cm) => cm.metadata.name));
    expect(seen).toEqual(expect.arrayContaining(names));

    const missing = await core
      .get()
      .namespace(namespace)
      .resource('nosuchthings')
      .doList()
      .catch((err: unknown) => err);
    expect(isNotFound(missing)).toBe(true);
  });

  it('sends requestURI as kubectl get --raw does: its path and query, earlier parameters dropped', async () => {
    for (const name of ['raw-a', 'raw-b']) await create(configMap(name));
    const page = await core
      .get()
      .param('limit', 500)
      .requestURI(`/api/v1/namespaces/${namespace}/configmaps?limit=1`)
      .do<ObjectList<ConfigMap>>();
    expect(page.kind).toBe('ConfigMapList');
    expect(page.items).toHaveLength(1);
    expect(page.metadata?.continue).toBeTruthy();
  });

  it("sends a request's timeout in Go's duration form, which the server accepts", async () => {
    await create(configMap('timeout-a'));
    const request = core.get().namespace(namespace).resource('configmaps').timeout(90_000);
    expect(request.url().searchParams.get('timeout')).toBe('1m30s');
    const list = await request.do<ObjectList<ConfigMap>>();
    expect(list.kind).toBe('ConfigMapList');
  });

  it('streams a raw body through stream()', async () => {
    const body = await core.get().absPath('/version').stream();
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    const version = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { gitVersion: string };
    expect(version.gitVersion).toMatch(/^v1\.\d+/);
  });
});

describe("envtest's client config", () => {
  it('is a Config without client-side throttling that reaches the server as admin', async () => {
    const client = new RESTClient(env.config, { groupVersion: 'v1' });
    expect(client.rateLimiter).toBeUndefined();
    const ns = await client
      .get()
      .resource('namespaces')
      .name(namespace)
      .do<{ metadata?: { name?: string } }>();
    expect(ns.metadata?.name).toBe(namespace);
  });
});

describe('loadConfig errors a user sees', () => {
  it('names an unknown context', () => {
    expect(() => loadConfig({ kubeconfig: env.kubeconfigPath, context: 'nope' })).toThrow(
      /context "nope"/,
    );
  });

  it('names a kubeconfig file that is not YAML', () => {
    const broken = join(env.dir, 'broken-kubeconfig');
    writeFileSync(broken, 'clusters: [ {');
    expect(() => loadConfig({ kubeconfig: broken })).toThrow(new RegExp(broken));
  });
});

describe('server certificate verification against a real kube-apiserver', () => {
  it('fails with a clear TLS error for a wrong CA, or none, and works with the right one', async () => {
    const config = loadConfig({ kubeconfig: env.kubeconfigPath });
    const host = config.host.replace(/\/$/, '');
    expect(host).toMatch(/^https:/);
    const wrongCA = makeCertChain('not the envtest CA').ca.certPem;
    for (const caData of [wrongCA, undefined]) {
      const client = new RESTClient({
        ...config,
        qps: -1,
        tls: { ...config.tls, caData },
      });
      const error = await rejectionOf(client.get().absPath('/version').do());
      expect(error).toBeInstanceOf(TransportError);
      const message = (error as Error).message;
      expect(message).toContain('TLS verification of the server certificate failed');
      expect(message).toContain(`${host}/version`);
      expect(message).toContain('certificate-authority');
      expect(message).toContain('insecure-skip-tls-verify');
    }
    const trusted = new RESTClient({ ...config, qps: -1 });
    await expect(trusted.get().absPath('/version').do()).resolves.toMatchObject({
      major: expect.any(String),
    });
  });
});
