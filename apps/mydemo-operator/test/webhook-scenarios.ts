// The webhook scenarios of issue 32, written once and run on every API server the operator
// meets: kube-apiserver 1.20 (envtest, src/webhooks.e2e.test.ts) and the in-memory server
// (src/webhooks.test.ts, and the e2e file with kubectl 1.34 as the client). Each server runs
// the operator's own webhooks (src/webhooks.ts) on a Manager's webhook server, reached by URL
// with a certificate from a test CA, and must give the same answers.

import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isNotFound } from '@kubets/apimachinery';
import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { type apiextensionsv1, Clientset } from '@kubets/clientset';
import { Manager } from '@kubets/controller';
import { generateEnvtestCertificates, startEnvtest } from '@kubets/envtest';
import { loadConfig, PatchType } from '@kubets/rest';
import { eventually, MemoryLogger } from '@kubets/test-utils';
import { type AdmissionRegistration, webhookConfigurations } from '@kubets/webhook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readManifest } from '../src/demo.ts';
import { crddemoV1, crddemoV1alpha1 } from '../src/generated/index.ts';
import { addMydemoWebhooks, installLocalWebhooks, webhookNames } from '../src/webhooks.ts';

/** The name of the configurations the scenarios install. */
export const configurationName = 'mydemo-operator';
const crdName = `${crddemoV1.mydemosResource.resource}.${crddemoV1.mydemosResource.group}`;

/** The admission registrations of the operator's webhooks (from a Manager that never starts). */
export function mydemoRegistrations(): AdmissionRegistration[] {
  const mgr = new Manager(
    { host: 'https://kubernetes.default.svc' },
    { webhookServer: {}, logger: new MemoryLogger() },
  );
  return addMydemoWebhooks(mgr);
}

/**
 * The configurations as the deploy manifests name them, with a Service that envtest points at
 * the local server (as controller-runtime's `WebhookInstallOptions` does).
 */
export function shippedConfigurations() {
  return webhookConfigurations(configurationName, mydemoRegistrations(), {
    service: { namespace: 'mydemo-system', name: 'mydemo-operator-webhook-service' },
  });
}

/** The operator's webhooks served by a Manager, as main.ts serves them. */
export interface RunningWebhooks {
  /** Stops the Manager (and its webhook server); resolves once it has stopped. */
  stop(): Promise<void>;
}

/** Starts a Manager serving the operator's webhooks at `host:port` from `certDir`. */
export async function serveWebhooks(
  kubeconfig: { host: string },
  serving: { host: string; port: number; certDir: string },
): Promise<RunningWebhooks & { port: number }> {
  const mgr = new Manager(kubeconfig, {
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: new MemoryLogger(),
    // The rotation scenario waits for the poll rather than for a file-system event. A stop
    // closes what kube-apiserver still holds open after 5 s, not the default 60 s: once in
    // six runs on envtest a connection outlived closeIdleConnections, and the manager's 30 s
    // grace period ran out before the server's.
    webhookServer: { ...serving, certPollIntervalMs: 200, shutdownTimeoutMs: 5_000 },
  });
  addMydemoWebhooks(mgr);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  const address = await Promise.race([mgr.webhooks.server.listening(), running]);
  if (address === undefined)
    throw new Error('the manager stopped before its webhook server listened');
  return {
    port: address.port,
    async stop() {
      stop.abort();
      await running;
    },
  };
}

/** How a scenario writes a Mydemo: kubectl apply, or the typed client. */
export interface MydemoWriter {
  /** Applies (creates) `object`; rejects with an error whose message has the server's words. */
  apply(object: crddemoV1.Mydemo | crddemoV1alpha1.Mydemo): Promise<void>;
}

/** What the scenarios run on. */
export interface WebhookScenarioEnv {
  /** An admin clientset of the server. */
  readonly clientset: Clientset;
  /** Where the webhook server reads its certificate. */
  readonly certDir: string;
  /** How Mydemos are written. */
  readonly writer: MydemoWriter;
  /** The webhook server's port (for kube-apiserver's message once it is stopped). */
  readonly webhookPort: number;
  /** Stops the webhook server. */
  stopWebhooks(): Promise<void>;
}

/** Writes Mydemos with kubectl 1.34 (`kubectl apply -f -`), as a user does. */
export function kubectlWriter(kubeconfigPath: string): MydemoWriter {
  const kubectl =
    process.env.KUBETS_KUBECTL ??
    join(process.env.KUBEBUILDER_ASSETS ?? join(homedir(), '.cache/kubets/assets'), 'kubectl-1.34');
  return {
    apply: (object) =>
      new Promise((resolve, reject) => {
        const child = execFile(
          kubectl,
          ['--kubeconfig', kubeconfigPath, 'apply', '-n', 'default', '-f', '-'],
          (error, _stdout, stderr) => {
            if (error) reject(new Error(stderr.trim() || error.message));
            else resolve();
          },
        );
        child.stdin?.end(stringify(object));
      }),
  };
}

/** Writes Mydemos with the generated typed clients (a create at the object's version). */
export function clientWriter(clientset: Clientset): MydemoWriter {
  return {
    async apply(object) {
      if (object.apiVersion === 'crddemo.k8s.io/v1alpha1') {
        await crddemoV1alpha1
          .mydemosClient(clientset, 'default')
          .create(object as crddemoV1alpha1.Mydemo);
      } else {
        await crddemoV1.mydemosClient(clientset, 'default').create(object as crddemoV1.Mydemo);
      }
    },
  };
}

/**
 * Trusts `caPem` for the webhooks (what cert-manager's CA injector does after a rotation to a
 * new CA): the configurations' and the CRD conversion's `caBundle`.
 */
async function trustCa(clientset: Clientset, caPem: string): Promise<void> {
  const caBundle = Buffer.from(caPem).toString('base64');
  const trusting = <C extends { webhooks?: { clientConfig: object }[] }>(config: C): C => ({
    ...config,
    webhooks: config.webhooks?.map((w) => ({
      ...w,
      clientConfig: { ...w.clientConfig, caBundle },
    })),
  });
  const admission = clientset.admissionregistrationV1();
  const mutating = admission.mutatingWebhookConfigurations();
  await mutating.update(trusting(await mutating.get(configurationName)));
  const validating = admission.validatingWebhookConfigurations();
  await validating.update(trusting(await validating.get(configurationName)));
  await clientset
    .apiextensionsV1()
    .customResourceDefinitions()
    .patch(crdName, PatchType.MergePatch, {
      spec: { conversion: { webhook: { clientConfig: { caBundle } } } },
    });
}

const mydemo = (name: string, spec: crddemoV1.MydemoSpec): crddemoV1.Mydemo => ({
  apiVersion: 'crddemo.k8s.io/v1',
  kind: 'Mydemo',
  metadata: { name },
  spec,
});

/** The answers every server must give, worded as kube-apiserver 1.20 words them. */
export const expected = {
  refusal: `admission webhook "${webhookNames.validating}" denied the request: Mydemo.crddemo.k8s.io "invalid" is invalid: spec.port 70000 is outside 1-65535`,
  stopped: (port: number) =>
    `Internal error occurred: failed calling webhook "${webhookNames.defaulting}": Post "https://127.0.0.1:${port}/mutate-crddemo-k8s-io-v1-mydemo?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
};

/**
 * The scenarios, in order (the last stops the webhook server), on the server `env()` gives
 * once its `beforeAll` ran.
 */
export function webhookScenarios(server: string, env: () => WebhookScenarioEnv): void {
  describe(`the operator's webhooks on ${server}`, () => {
    const v1 = () => crddemoV1.mydemosClient(env().clientset, 'default');
    const v1alpha1 = () => crddemoV1alpha1.mydemosClient(env().clientset, 'default');

    it('defaults the image of a Mydemo created without one', async () => {
      // kube-apiserver picks up new configurations a moment after they are created.
      await eventually(
        async () => {
          await env().writer.apply(mydemo('defaulted', { ip: '10.0.0.7', port: 8080 }));
          expect((await v1().get('defaulted')).spec).toEqual({
            ip: '10.0.0.7',
            port: 8080,
            image: 'nginx:1.25',
          });
        },
        { what: 'the defaulting webhook called', intervalMs: 200 },
      );
    });

    it("refuses an invalid Mydemo with the webhook's message", async () => {
      await expect(
        env().writer.apply(mydemo('invalid', { ip: '10.0.0.7', port: 70_000 })),
      ).rejects.toThrow(expected.refusal);
      await expect(v1().get('invalid')).rejects.toSatisfy(isNotFound);
    });

    it('reads a v1alpha1 Mydemo at v1 and back through the conversion webhook', async () => {
      await env().writer.apply({
        apiVersion: 'crddemo.k8s.io/v1alpha1',
        kind: 'Mydemo',
        metadata: { name: 'alpha' },
        spec: { listen: { ip: '10.0.0.8', port: 8443 }, image: 'httpd:2.4' },
      });
      expect((await v1().get('alpha')).spec).toEqual({
        ip: '10.0.0.8',
        port: 8443,
        image: 'httpd:2.4',
      });
      await v1().patch('alpha', PatchType.MergePatch, { spec: { port: 9443 } });
      expect((await v1alpha1().get('alpha')).spec).toEqual({
        listen: { ip: '10.0.0.8', port: 9443 },
        image: 'httpd:2.4',
      });
      const listed = await v1alpha1().list();
      expect(listed.items.find((m) => m.metadata?.name === 'alpha')?.spec?.listen).toEqual({
        ip: '10.0.0.8',
        port: 9443,
      });
    });

    it('serves a certificate rotated on disk without a restart', async () => {
      const { certDir } = env();
      const rotated = await generateEnvtestCertificates();
      // Written aside, then copied over, as a Secret volume's update lands.
      await writeFile(join(certDir, 'tls.key.new'), rotated.serving.keyPem);
      await writeFile(join(certDir, 'tls.crt.new'), rotated.serving.certPem);
      await copyFile(join(certDir, 'tls.key.new'), join(certDir, 'tls.key'));
      await copyFile(join(certDir, 'tls.crt.new'), join(certDir, 'tls.crt'));
      // A new CA: the API server reaches the webhooks again only once it trusts it and the
      // server serves the new certificate.
      await trustCa(env().clientset, rotated.ca.certPem);
      await eventually(
        async () => {
          const name = `rotated-${Date.now()}`;
          await env().writer.apply(mydemo(name, { ip: '10.0.0.9', port: 8080 }));
          expect((await v1().get(name)).spec?.image).toBe('nginx:1.25');
        },
        { what: 'a write through the rotated certificate', intervalMs: 200 },
      );
    });

    it("fails a write with kube-apiserver's message once the webhook server is stopped (failurePolicy Fail)", async () => {
      await env().stopWebhooks();
      await expect(
        env().writer.apply(mydemo('unserved', { ip: '10.0.0.7', port: 8080 })),
      ).rejects.toThrow(expected.stopped(env().webhookPort));
      await expect(v1().get('unserved')).rejects.toSatisfy(isNotFound);
    });
  });
}

/** Certificates for a webhook server in a new temporary directory. */
async function servingCertificates(): Promise<{ certDir: string; caPem: string }> {
  const certs = await generateEnvtestCertificates();
  const certDir = await mkdtemp(join(tmpdir(), 'mydemo-webhook-certs-'));
  await writeFile(join(certDir, 'tls.crt'), certs.serving.certPem);
  await writeFile(join(certDir, 'tls.key'), certs.serving.keyPem, { mode: 0o600 });
  return { certDir, caPem: certs.ca.certPem };
}

/** The scenarios' environment on a fresh in-memory API server, made before all tests of a file. */
export function useInMemoryWebhookEnv(
  writerFor: (server: InMemoryApiServer, clientset: Clientset) => MydemoWriter,
): () => WebhookScenarioEnv {
  let env: WebhookScenarioEnv | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const server = await startApiServer();
    const clientset = new Clientset(loadConfig({ kubeconfig: server.kubeconfigPath }));
    const { certDir, caPem } = await servingCertificates();
    const webhooks = await serveWebhooks(
      { host: server.host },
      { host: '127.0.0.1', port: 0, certDir },
    );
    await clientset
      .apiextensionsV1()
      .customResourceDefinitions()
      .create(readManifest<apiextensionsv1.CustomResourceDefinition>('crd/mydemo.yaml'));
    await installLocalWebhooks(clientset, mydemoRegistrations(), {
      url: `https://127.0.0.1:${webhooks.port}`,
      caPem,
    });
    env = {
      clientset,
      certDir,
      writer: writerFor(server, clientset),
      webhookPort: webhooks.port,
      stopWebhooks: () => webhooks.stop(),
    };
    cleanup = async () => {
      await webhooks.stop();
      await server.stop();
      await rm(certDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    await cleanup?.();
  });
  return () => {
    if (env === undefined) throw new Error('the in-memory webhook environment is not running');
    return env;
  };
}

/** The scenarios' environment on envtest (kube-apiserver 1.20), made before all tests of a file. */
export function useEnvtestWebhookEnv(
  writerFor: (kubeconfigPath: string, clientset: Clientset) => MydemoWriter,
): () => WebhookScenarioEnv {
  let env: WebhookScenarioEnv | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const { mutating, validating } = shippedConfigurations();
    // Installed as shipped: envtest points each webhook's Service at the local server.
    const envtest = await startEnvtest({
      webhooks: {
        mutating: mutating ? [mutating] : [],
        validating: validating ? [validating] : [],
      },
    });
    const serving = envtest.webhook;
    if (serving === undefined) throw new Error('envtest installed no webhooks');
    const clientset = new Clientset({
      ...loadConfig({ kubeconfig: envtest.kubeconfigPath }),
      qps: -1,
    });
    const webhooks = await serveWebhooks(
      { host: clientset.config.host },
      { host: serving.host, port: serving.port, certDir: serving.certDir },
    );
    const crd = readManifest<apiextensionsv1.CustomResourceDefinition>('crd/mydemo.yaml');
    await clientset
      .apiextensionsV1()
      .customResourceDefinitions()
      .create({
        ...crd,
        spec: {
          ...crd.spec,
          conversion: serving.conversion() as apiextensionsv1.CustomResourceConversion,
        },
      });
    await eventually(() => crddemoV1.mydemosClient(clientset, 'default').list(), {
      what: 'the Mydemo resource served',
      intervalMs: 200,
    });
    env = {
      clientset,
      certDir: serving.certDir,
      writer: writerFor(envtest.kubeconfigPath, clientset),
      webhookPort: serving.port,
      stopWebhooks: () => webhooks.stop(),
    };
    cleanup = async () => {
      await webhooks.stop();
      await envtest.stop();
    };
  }, 120_000);
  afterAll(async () => {
    await cleanup?.();
  }, 60_000);
  return () => {
    if (env === undefined) throw new Error('envtest is not running');
    return env;
  };
}
