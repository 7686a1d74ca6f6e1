import { mkdir, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { generateEnvtestCertificates } from './certs.js';
import { freeLoopbackPorts } from './ports.js';

/** A webhook's Service reference; envtest keeps its `path`. */
export interface EnvtestWebhookService {
  /** The Service's namespace. */
  namespace?: string;
  /** The Service's name. */
  name?: string;
  /** The webhook's path on the server. */
  path?: string;
  /** The Service's port. */
  port?: number;
}

/** How the API server reaches one webhook: what envtest rewrites. */
export interface EnvtestWebhookClientConfig {
  /** A Service reference; its `path` is kept. */
  service?: EnvtestWebhookService;
  /** A URL; its path is kept. */
  url?: string;
  /** The CA bundle (base64 PEM), replaced by envtest's. */
  caBundle?: string;
}

/** The metadata envtest reads from a configuration. */
export interface EnvtestWebhookMetadata {
  /** The configuration's name (required). */
  name?: string;
}

/** One webhook of a configuration, as envtest reads it. */
export interface EnvtestWebhook {
  /** The webhook's name. */
  name?: string;
  /** Where it is called; pointed at the local server. */
  clientConfig?: EnvtestWebhookClientConfig;
}

/** A `ValidatingWebhookConfiguration` or `MutatingWebhookConfiguration`, as JSON. */
export interface EnvtestWebhookConfiguration {
  /** `admissionregistration.k8s.io/v1` (set when missing). */
  apiVersion?: string;
  /** `ValidatingWebhookConfiguration` or `MutatingWebhookConfiguration` (set when missing). */
  kind?: string;
  /** Its metadata; `name` is required. */
  metadata?: EnvtestWebhookMetadata;
  /** Its webhooks: each `clientConfig` is pointed at the local server. */
  webhooks?: EnvtestWebhook[];
}

/**
 * What {@link startEnvtest} installs for webhooks (controller-runtime's
 * `WebhookInstallOptions`): the configurations, as a kubebuilder project ships them; envtest
 * points every webhook at `https://<localServingHost>:<port><path>` and trusts its own CA.
 */
export interface EnvtestWebhookOptions {
  /** The mutating configurations. */
  mutating?: readonly EnvtestWebhookConfiguration[];
  /** The validating configurations. */
  validating?: readonly EnvtestWebhookConfiguration[];
  /** Where the test's webhook server listens (default `127.0.0.1`; loopback only). */
  localServingHost?: '127.0.0.1' | 'localhost';
  /** Its port (default: a free one). */
  localServingPort?: number;
}

/** Where the test serves its webhooks: envtest starts nothing, the test's server listens here. */
export interface EnvtestWebhookServing {
  /** The host to listen on. */
  readonly host: string;
  /** The port to listen on. */
  readonly port: number;
  /** `https://host:port`. */
  readonly url: string;
  /** Holds `tls.crt` and `tls.key` (a serving certificate for 127.0.0.1 and localhost). */
  readonly certDir: string;
  /** The serving certificate's file. */
  readonly certPath: string;
  /** Its key's file. */
  readonly keyPath: string;
  /** The CA that signed it (PEM): what the API server trusts for the webhooks. */
  readonly caPem: string;
  /** The configurations installed, as sent. */
  readonly installed: readonly EnvtestWebhookConfiguration[];
  /**
   * A CRD's `spec.conversion` calling the local server's conversion webhook at `path`
   * (default `/convert`, controller-runtime's).
   */
  conversion(path?: string): object;
}

interface Admin {
  host: string;
  ca: string;
  cert: string;
  key: string;
}

function pathOf(
  config: EnvtestWebhookClientConfig | undefined,
  webhook: string | undefined,
): string {
  if (config?.service?.path !== undefined) return config.service.path;
  if (config?.url !== undefined) return new URL(config.url).pathname;
  throw new TypeError(
    `envtest: webhook ${webhook} has neither clientConfig.service.path nor clientConfig.url`,
  );
}

function pointed(
  configuration: EnvtestWebhookConfiguration,
  kind: string,
  url: string,
  caBundle: string,
): EnvtestWebhookConfiguration {
  if (typeof configuration?.metadata?.name !== 'string') {
    throw new TypeError(`envtest: a ${kind} needs metadata.name`);
  }
  if (configuration.kind !== undefined && configuration.kind !== kind) {
    throw new TypeError(
      `envtest: ${configuration.metadata.name} is a ${configuration.kind}, listed as a ${kind}`,
    );
  }
  return {
    ...structuredClone(configuration),
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    webhooks: (configuration.webhooks ?? []).map((webhook) => ({
      ...structuredClone(webhook),
      clientConfig: { url: `${url}${pathOf(webhook.clientConfig, webhook.name)}`, caBundle },
    })),
  };
}

function create(admin: Admin, path: string, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      new URL(path, admin.host),
      {
        method: 'POST',
        agent: false,
        ca: admin.ca,
        cert: admin.cert,
        key: admin.key,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          if (res.statusCode === 201) resolve();
          else
            reject(
              new Error(
                `envtest: POST ${path} answered ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8')}`,
              ),
            );
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * @internal Generates the webhook serving certificate in `dir`, picks the port and installs
 * the configurations pointing at it (controller-runtime's `WebhookInstallOptions.Install`).
 */
export async function installWebhooks(
  options: EnvtestWebhookOptions,
  dir: string,
  admin: Admin,
): Promise<EnvtestWebhookServing> {
  const host = options.localServingHost ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== 'localhost') {
    throw new TypeError(
      `envtest: localServingHost must be 127.0.0.1 or localhost, got ${String(host)}`,
    );
  }
  const port = options.localServingPort ?? (await freeLoopbackPorts(1))[0];
  if (port === undefined || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new RangeError(`envtest: localServingPort must be a port number, got ${String(port)}`);
  }
  const certs = await generateEnvtestCertificates();
  const certDir = join(dir, 'webhook-serving-certs');
  await mkdir(certDir, { recursive: true });
  const certPath = join(certDir, 'tls.crt');
  const keyPath = join(certDir, 'tls.key');
  await writeFile(certPath, certs.serving.certPem);
  await writeFile(keyPath, certs.serving.keyPem, { mode: 0o600 });
  const url = `https://${host}:${port}`;
  const caBundle = Buffer.from(certs.ca.certPem).toString('base64');
  const installed = [
    ...(options.mutating ?? []).map((c) =>
      pointed(c, 'MutatingWebhookConfiguration', url, caBundle),
    ),
    ...(options.validating ?? []).map((c) =>
      pointed(c, 'ValidatingWebhookConfiguration', url, caBundle),
    ),
  ];
  for (const configuration of installed) {
    const plural =
      configuration.kind === 'MutatingWebhookConfiguration'
        ? 'mutatingwebhookconfigurations'
        : 'validatingwebhookconfigurations';
    await create(admin, `/apis/admissionregistration.k8s.io/v1/${plural}`, configuration);
  }
  return {
    host,
    port,
    url,
    certDir,
    certPath,
    keyPath,
    caPem: certs.ca.certPem,
    installed,
    conversion: (path = '/convert') => ({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { url: `${url}${path}`, caBundle },
        conversionReviewVersions: ['v1', 'v1beta1'],
      },
    }),
  };
}
