import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { generateEnvtestCertificates } from '@kubets/envtest';

/** The `request` of an AdmissionReview or ConversionReview, as the webhook got it. */
// biome-ignore lint/suspicious/noExplicitAny: test helper: reviews are inspected freely.
export type ReviewRequest = any;

/** What a test's handler answers; the server wraps it in the review (uid, apiVersion, kind). */
export interface HandlerAnswer {
  allowed?: boolean;
  status?: Record<string, unknown>;
  /** JSON Patch operations, sent base64-encoded with `patchType: JSONPatch`. */
  patch?: unknown[];
  warnings?: string[];
  /** Replaces the whole response body (for malformed answers). */
  raw?: unknown;
  /** Never answers (the connection stays open until the server stops). */
  hang?: boolean;
  /** Answers a body that never ends (whitespace, without a length) until the caller goes away. */
  endless?: boolean;
  /** Answered as-is in a ConversionReview's `response` (besides `uid`). */
  conversion?: Record<string, unknown>;
}

/** One received call: the path with its query, and the review it carried. */
export interface ReceivedCall {
  path: string;
  query: URLSearchParams;
  apiVersion: string;
  request: ReviewRequest;
}

/**
 * A small HTTPS webhook server for the contract suite, on 127.0.0.1 with a serving certificate
 * from its own CA: both the in-memory API server and kube-apiserver call it.
 */
export interface TestWebhookServer {
  /** `https://127.0.0.1:PORT<path>`. */
  url(path: string): string;
  /** The CA as a webhook's `caBundle` (base64 of the PEM). */
  readonly caBundle: string;
  /** Answers calls to `path` with `handler`. Unhandled paths allow everything. */
  handle(path: string, handler: (request: ReviewRequest) => HandlerAnswer): void;
  /** The calls received on `path` so far. */
  calls(path: string): ReceivedCall[];
  stop(): Promise<void>;
}

/** Starts a {@link TestWebhookServer}. */
export async function startTestWebhookServer(): Promise<TestWebhookServer> {
  const certs = await generateEnvtestCertificates();
  const handlers = new Map<string, (request: ReviewRequest) => HandlerAnswer>();
  const received = new Map<string, ReceivedCall[]>();
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    { cert: certs.serving.certPem, key: certs.serving.keyPem },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'https://127.0.0.1');
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const request = review.request;
        const list = received.get(url.pathname) ?? [];
        list.push({
          path: url.pathname,
          query: url.searchParams,
          apiVersion: review.apiVersion,
          request,
        });
        received.set(url.pathname, list);
        const answer = handlers.get(url.pathname)?.(request) ?? { allowed: true };
        if (answer.hang) return;
        if (answer.endless) {
          answerEndlessly(res);
          return;
        }
        const body =
          answer.raw !== undefined
            ? answer.raw
            : review.kind === 'ConversionReview'
              ? {
                  apiVersion: review.apiVersion,
                  kind: 'ConversionReview',
                  response: { uid: request.uid, ...answer.conversion },
                }
              : {
                  apiVersion: review.apiVersion,
                  kind: 'AdmissionReview',
                  response: {
                    uid: request.uid,
                    allowed: answer.allowed ?? true,
                    ...(answer.status ? { status: answer.status } : {}),
                    ...(answer.patch
                      ? {
                          patchType: 'JSONPatch',
                          patch: Buffer.from(JSON.stringify(answer.patch)).toString('base64'),
                        }
                      : {}),
                    ...(answer.warnings ? { warnings: answer.warnings } : {}),
                  },
                };
        const text = JSON.stringify(body);
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(text),
        });
        res.end(text);
      });
    },
  );
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    caBundle: Buffer.from(certs.ca.certPem).toString('base64'),
    handle: (path, handler) => {
      handlers.set(path, handler);
    },
    calls: (path) => received.get(path) ?? [],
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** Writes whitespace, as fast as the caller reads it, until a write fails (the caller went away). */
function answerEndlessly(res: ServerResponse): void {
  res.on('error', () => res.destroy());
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const spaces = Buffer.alloc(16 * 1024, ' ');
  const pump = (): void => {
    let room = true;
    while (room && !res.destroyed) room = res.write(spaces);
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

/**
 * A ValidatingWebhookConfiguration `name` whose one webhook, `<name>.example.com`, checks the
 * creates of ConfigMaps labelled `hook: <name>` (see {@link hookedConfigMap}) through
 * `clientConfig`.
 */
export function configMapCreateGuard(
  name: string,
  clientConfig: Record<string, unknown>,
  failurePolicy: 'Fail' | 'Ignore',
): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: `${name}.example.com`,
        clientConfig,
        rules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
            operations: ['CREATE'],
          },
        ],
        objectSelector: { matchLabels: { hook: name } },
        failurePolicy,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  };
}

/** A ConfigMap `name` the {@link configMapCreateGuard} named `hook` checks. */
export function hookedConfigMap(name: string, hook: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { hook } } };
}

/** A port on 127.0.0.1 where nothing listens (taken from the OS, then released). */
export async function closedPort(): Promise<number> {
  const { createServer: createTcpServer } = await import('node:net');
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
