import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Clientset } from '@kubets/clientset';
import { generateEnvtestCertificates } from '@kubets/envtest';
import { eventually } from '@kubets/test-utils';
import { AdmissionDenied, hubSpokeConverter, WebhookServer } from '@kubets/webhook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSharedApiServer } from '../test/server.js';
import { Manager, type Runnable, registerConversion, webhookFor } from './index.js';

const shared = useSharedApiServer();

interface Website {
  metadata: { name: string };
  spec: { image?: string; port?: number };
}
const websites = {
  group: 'demo.example.com',
  version: 'v1',
  kind: 'Website',
  resource: 'websites',
};

let certDir: string;
let caPem: string;
beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'kubets-controller-webhook-'));
  const certs = await generateEnvtestCertificates();
  caPem = certs.ca.certPem;
  await writeFile(join(certDir, 'tls.crt'), certs.serving.certPem);
  await writeFile(join(certDir, 'tls.key'), certs.serving.keyPem);
});
afterAll(() => rm(certDir, { recursive: true, force: true }));

function review(object: unknown): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', operation: 'CREATE', userInfo: {}, object },
  });
}

function post(port: number, path: string, body: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca: caPem,
        servername: 'localhost',
        agent: false,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function managerWithWebhooks(
  namespace: string,
  options: ConstructorParameters<typeof Manager>[1] = {},
) {
  const mgr = new Manager(
    { host: shared.server.host, qps: -1 },
    {
      namespace,
      logger: silent,
      webhookServer: { host: '127.0.0.1', port: 0, certDir },
      ...options,
    },
  );
  const server = mgr.webhooks.server;
  const registrations = webhookFor<Website>(mgr, websites)
    .withDefaulter({
      default(site) {
        site.spec.image ??= 'nginx:1.27';
      },
    })
    .withValidator({
      validateCreate(site) {
        if ((site.spec.port ?? 0) < 1024)
          throw new AdmissionDenied(`port ${site.spec.port} is privileged`);
      },
    })
    .complete();
  return { mgr, server, registrations };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('webhooks of a Manager', () => {
  it('registers a defaulter and a validator at controller-runtime paths and names', () => {
    const { registrations, mgr } = managerWithWebhooks('wh-0');
    expect(registrations.map((r) => [r.type, r.name, r.path, r.rules[0]?.operations])).toEqual([
      [
        'mutating',
        'mwebsite.demo.example.com',
        '/mutate-demo-example-com-v1-website',
        ['CREATE', 'UPDATE'],
      ],
      [
        'validating',
        'vwebsite.demo.example.com',
        '/validate-demo-example-com-v1-website',
        ['CREATE', 'UPDATE'],
      ],
    ]);
    expect(mgr.webhooks.registrations).toEqual(registrations);
    expect(() => webhookFor(mgr, websites).complete()).toThrow(
      'webhookFor(Website.demo.example.com) needs withDefaulter or withValidator before complete()',
    );
    expect(() => webhookFor(mgr, { ...websites, resource: '' })).toThrow(
      'webhookFor needs a resource with a resource',
    );
  });

  it('serves the webhooks on a replica that is not the leader, with a readiness check', async () => {
    const namespace = 'wh-1';
    const clientset = new Clientset({ host: shared.server.host, qps: -1 });
    await clientset
      .coreV1()
      .namespaces()
      .create({ metadata: { name: namespace } });
    const now = new Date().toISOString().replace('Z', '000Z');
    await clientset
      .coordinationV1()
      .leases(namespace)
      .create({
        metadata: { name: 'wh-lease' },
        spec: {
          holderIdentity: 'someone-else',
          leaseDurationSeconds: 3600,
          acquireTime: now,
          renewTime: now,
        },
      });
    const { mgr, server } = managerWithWebhooks(namespace, {
      leaderElection: {
        namespace,
        name: 'wh-lease',
        identity: 'me',
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 200,
      },
    });
    let ran = false;
    const controllerStandIn: Runnable = {
      name: 'stand-in',
      run: async () => {
        ran = true;
      },
    };
    mgr.add(controllerStandIn);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    const { port } = await server.listening();
    await expect(
      post(
        port,
        '/mutate-demo-example-com-v1-website',
        review({ metadata: { name: 'a' }, spec: { port: 8080 } }),
      ),
    ).resolves.toMatchObject({
      response: { uid: 'u1', allowed: true, patchType: 'JSONPatch' },
    });
    await expect(
      post(
        port,
        '/validate-demo-example-com-v1-website',
        review({ metadata: { name: 'a' }, spec: { port: 80 } }),
      ),
    ).resolves.toMatchObject({
      response: { allowed: false, status: { code: 403, message: 'port 80 is privileged' } },
    });
    await eventually(() => expect(server.serving).toBe(true));
    await expect(server.startedChecker()()).resolves.toBeUndefined();
    expect(ran).toBe(false);
    stop.abort();
    await running;
    expect(server.serving).toBe(false);
  });

  it("counts requests in the manager's registry with controller-runtime's webhook metrics", async () => {
    const { mgr, server } = managerWithWebhooks('wh-2', { metricsBindAddress: '127.0.0.1:0' });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    const { port } = await server.listening();
    await post(
      port,
      '/validate-demo-example-com-v1-website',
      review({ metadata: { name: 'a' }, spec: { port: 8080 } }),
    );
    await eventually(async () =>
      expect(await mgr.metricsRegistry?.metrics()).toContain(
        'controller_runtime_webhook_requests_total{webhook="/validate-demo-example-com-v1-website",code="200"} 1',
      ),
    );
    stop.abort();
    await running;
  });

  it('makes a default webhook server with the manager metrics when none is given', () => {
    const mgr = new Manager(
      { host: shared.server.host, qps: -1 },
      { namespace: 'wh-3', logger: silent },
    );
    expect(mgr.webhooks.server).toBe(mgr.webhooks.server);
    expect(mgr.webhooks.server.certPath).toMatch(/k8s-webhook-server\/serving-certs\/tls\.crt$/);
  });

  it('serves the converters of several kinds on /convert and refuses a second converter of one kind', async () => {
    const { mgr, server } = managerWithWebhooks('wh-4');
    const converter = hubSpokeConverter<Website>({
      group: 'demo.example.com',
      kind: 'Website',
      hub: 'v1',
      spokes: {
        v1alpha1: {
          toHub: (old: { spec: { host: string } }) => ({
            metadata: { name: '' },
            spec: { image: old.spec.host },
          }),
          fromHub: (hub) => ({ spec: { host: hub.spec.image } }),
        },
      },
    });
    registerConversion(mgr, converter);
    expect(() => registerConversion(mgr, converter)).toThrow(
      'a converter for Website.demo.example.com was already registered',
    );
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    const { port } = await server.listening();
    const answer = await post(
      port,
      '/convert',
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: {
          uid: 'c',
          desiredAPIVersion: 'demo.example.com/v1',
          objects: [
            {
              apiVersion: 'demo.example.com/v1alpha1',
              kind: 'Website',
              metadata: { name: 'w' },
              spec: { host: 'nginx:1' },
            },
          ],
        },
      }),
    );
    expect(answer).toMatchObject({
      response: {
        uid: 'c',
        result: { status: 'Success' },
        convertedObjects: [
          {
            apiVersion: 'demo.example.com/v1',
            kind: 'Website',
            metadata: { name: '' },
            spec: { image: 'nginx:1' },
          },
        ],
      },
    });
    stop.abort();
    await running;
  });

  it('fails start naming the certificate when the server cannot load it', async () => {
    const server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      certDir: '/nonexistent-kubets',
    });
    const mgr = new Manager(
      { host: shared.server.host, qps: -1 },
      { namespace: 'wh-5', logger: silent, webhookServer: server },
    );
    await expect(mgr.start(new AbortController().signal)).rejects.toThrow(
      'cannot load certificate /nonexistent-kubets/tls.crt',
    );
  });
});
