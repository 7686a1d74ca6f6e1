// Issue 32's "Must show" on kube-apiserver 1.20 (envtest): the API server calls a WebhookServer
// of this package through the configurations startEnvtest({ webhooks }) installs.
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound } from '@kubets/apimachinery';
import { DynamicClient, type Unstructured } from '@kubets/dynamic';
import { type Envtest, generateEnvtestCertificates, startEnvtest } from '@kubets/envtest';
import { loadConfig, PatchType } from '@kubets/rest';
import { eventually } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AdmissionDenied,
  admissionEndpoint,
  CONVERSION_PATH,
  conversionEndpoint,
  defaultingHandler,
  hubSpokeConverter,
  mutatingPath,
  rulesFor,
  validatingHandler,
  validatingPath,
  WebhookServer,
  webhookConfigurations,
} from './index.js';

interface MydemoV1 {
  metadata: { name: string };
  spec: { image?: string; port?: number };
}
interface MydemoV1alpha1 {
  metadata?: unknown;
  spec: { container: { image?: string; port?: number } };
}

const mydemos = { group: 'demo.example.com', version: 'v1', kind: 'Mydemo', resource: 'mydemos' };
const configurations = webhookConfigurations(
  'mydemo',
  [
    {
      type: 'mutating',
      name: 'mmydemo.demo.example.com',
      path: mutatingPath(mydemos),
      rules: rulesFor(mydemos),
    },
    {
      type: 'validating',
      name: 'vmydemo.demo.example.com',
      path: validatingPath(mydemos),
      rules: rulesFor(mydemos),
    },
  ],
  { service: { namespace: 'system', name: 'webhook-service' } },
);

/** A version of the CRD whose `spec` has `fields`. */
const version = (name: string, storage: boolean, fields: object) => ({
  name,
  served: true,
  storage,
  schema: {
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties: fields } },
    },
  },
});
const container = { image: { type: 'string' }, port: { type: 'integer' } };

// v1 keeps the image and port in spec; v1alpha1, the older layout, in spec.container.
const crd = (conversion: object) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'mydemos.demo.example.com' },
  spec: {
    group: 'demo.example.com',
    scope: 'Namespaced',
    names: { plural: 'mydemos', singular: 'mydemo', kind: 'Mydemo', listKind: 'MydemoList' },
    conversion,
    versions: [
      version('v1', true, container),
      version('v1alpha1', false, { container: { type: 'object', properties: container } }),
    ],
  },
});

let env: Envtest;
let dynamic: DynamicClient;
let server: WebhookServer;
const serverStop = new AbortController();
let serving: Promise<void>;
const namespace = 'default';

beforeAll(async () => {
  env = await startEnvtest({
    webhooks: {
      mutating: configurations.mutating ? [configurations.mutating] : [],
      validating: configurations.validating ? [configurations.validating] : [],
    },
  });
  const webhook = env.webhook;
  if (webhook === undefined) throw new Error('envtest installed no webhooks');
  server = new WebhookServer({
    host: webhook.host,
    port: webhook.port,
    certDir: webhook.certDir,
    certPollIntervalMs: 500,
  });
  server.register(
    mutatingPath(mydemos),
    admissionEndpoint(
      defaultingHandler<MydemoV1>({
        default(object) {
          object.spec.image ??= 'nginx:1.27';
        },
      }),
    ),
  );
  server.register(
    validatingPath(mydemos),
    admissionEndpoint(
      validatingHandler<MydemoV1>({
        validateCreate(object) {
          const port = object.spec.port ?? 8080;
          if (port < 1024 || port > 65535) {
            throw new AdmissionDenied(`spec.port ${port} is outside [1024, 65535]`);
          }
        },
      }),
    ),
  );
  server.register(
    CONVERSION_PATH,
    conversionEndpoint([
      hubSpokeConverter<MydemoV1>({
        group: 'demo.example.com',
        kind: 'Mydemo',
        hub: 'v1',
        spokes: {
          v1alpha1: {
            toHub: (old: MydemoV1alpha1) =>
              ({ metadata: old.metadata, spec: { ...old.spec.container } }) as MydemoV1,
            fromHub: (hub: MydemoV1): MydemoV1alpha1 => ({
              metadata: hub.metadata,
              spec: { container: { ...hub.spec } },
            }),
          },
        },
      }),
    ]),
  );
  serving = server.start(serverStop.signal);
  await server.listening();
  dynamic = new DynamicClient({
    ...loadConfig({ kubeconfig: env.kubeconfigPath }),
    qps: 50,
    burst: 100,
  });
  await dynamic
    .resource({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      resource: 'customresourcedefinitions',
    })
    .create(crd(webhook.conversion()));
  await eventually(
    async () => {
      await dynamic.resource(mydemos).namespace(namespace).list();
    },
    { what: 'the Mydemo resource served' },
  );
});

afterAll(async () => {
  serverStop.abort();
  await serving;
  await env?.stop();
});

const v1 = () => dynamic.resource(mydemos).namespace(namespace);
const v1alpha1 = () => dynamic.resource({ ...mydemos, version: 'v1alpha1' }).namespace(namespace);
const mydemo = (name: string, spec: object): Unstructured => ({
  apiVersion: 'demo.example.com/v1',
  kind: 'Mydemo',
  metadata: { name },
  spec,
});

/** Creates a Mydemo without an image until the defaulting webhook has given it one. */
function createDefaulted(prefix: string, what: string): Promise<void> {
  return eventually(
    async () => {
      const created = await v1().create(mydemo(`${prefix}-${Date.now()}`, { port: 8080 }));
      expect(created.spec).toEqual({ image: 'nginx:1.27', port: 8080 });
    },
    { what },
  );
}

describe('webhooks on kube-apiserver 1.20', () => {
  it('defaults a field on create', async () => {
    // The API server picks up new configurations a moment after they are created.
    await createDefaulted('defaulted', 'the defaulting webhook called');
  });

  it("refuses an invalid object with the webhook's message", async () => {
    await expect(v1().create(mydemo('invalid', { image: 'nginx:1', port: 80 }))).rejects.toThrow(
      'admission webhook "vmydemo.demo.example.com" denied the request: spec.port 80 is outside [1024, 65535]',
    );
    await expect(v1().get('invalid')).rejects.toSatisfy(isNotFound);
  });

  it('reads a v1alpha1 object at v1 and back through the conversion webhook', async () => {
    await v1alpha1().create({
      apiVersion: 'demo.example.com/v1alpha1',
      kind: 'Mydemo',
      metadata: { name: 'converted' },
      spec: { container: { image: 'httpd:2.4', port: 8443 } },
    });
    expect((await v1().get('converted')).spec).toEqual({ image: 'httpd:2.4', port: 8443 });
    await v1().patch('converted', PatchType.MergePatch, { spec: { port: 9443 } });
    expect((await v1alpha1().get('converted')).spec).toEqual({
      container: { image: 'httpd:2.4', port: 9443 },
    });
  });

  it('serves a certificate rotated on disk without a restart', async () => {
    const webhook = env.webhook;
    if (webhook === undefined) throw new Error('no webhook serving');
    const rotated = await generateEnvtestCertificates();
    await writeFile(join(webhook.certDir, 'tls.key.new'), rotated.serving.keyPem);
    await writeFile(join(webhook.certDir, 'tls.crt.new'), rotated.serving.certPem);
    await copyFile(join(webhook.certDir, 'tls.key.new'), webhook.keyPath);
    await copyFile(join(webhook.certDir, 'tls.crt.new'), webhook.certPath);
    // The new certificate has a new CA: the API server trusts it only once the configuration
    // says so (what cert-manager's CA injector does), and reaches the webhook only if the
    // server now serves it.
    const caBundle = Buffer.from(rotated.ca.certPem).toString('base64');
    const configs = dynamic.resource({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      resource: 'mutatingwebhookconfigurations',
    });
    const current = await configs.get('mydemo');
    const webhooks = (current.webhooks as { clientConfig: object }[]).map((w) => ({
      ...w,
      clientConfig: { ...w.clientConfig, caBundle },
    }));
    await configs.patch('mydemo', PatchType.MergePatch, { webhooks });
    await createDefaulted('rotated', 'a write through the rotated certificate');
  });

  it("fails a write with kube-apiserver's message once the webhook is stopped (failurePolicy Fail)", async () => {
    serverStop.abort();
    await serving;
    await expect(v1().create(mydemo('unserved', { port: 8080 }))).rejects.toThrow(
      /failed calling webhook "mmydemo\.demo\.example\.com"/,
    );
  });
});
