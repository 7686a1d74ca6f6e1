// A webhook's answer is read up to a bound (the server's request body limit per object the
// answer carries, and one more: see `webhookResponseLimit`), so a runaway or hostile webhook
// cannot make the test process buffer without end. Past it the call fails as an unusable
// answer does: `failurePolicy` decides for admission webhooks, a conversion fails with a bare
// 500. kube-apiserver 1.20 reads a webhook's answer whole (embedded only: docs/embedded-server.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configMapCreateGuard,
  hookedConfigMap,
  type ReviewRequest,
  startTestWebhookServer,
  type TestWebhookServer,
} from '../test/admission-webhook-server.js';
import { failedConversion, hostsCrd } from '../test/contract-conversion-webhooks.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

/** The request body limit the server is started with: webhook answers may be twice that. */
const MAX_REQUEST_BYTES = 64 * 1024;
const ANSWER_LIMIT = 2 * MAX_REQUEST_BYTES;

let server: InMemoryApiServer;
let webhooks: TestWebhookServer;

/**
 * A valid answer to `review` (allowing, or converting by changing only `apiVersion`), padded
 * with a field Go's decoding ignores to `size` bytes of JSON.
 */
function paddedAnswer(apiVersion: string, request: ReviewRequest, size: number): unknown {
  const response = request.desiredAPIVersion
    ? {
        uid: request.uid,
        result: { status: 'Success' },
        convertedObjects: request.objects.map((o: object) => ({
          ...o,
          apiVersion: request.desiredAPIVersion,
        })),
      }
    : { uid: request.uid, allowed: true };
  const kind = request.desiredAPIVersion ? 'ConversionReview' : 'AdmissionReview';
  const answer = { apiVersion, kind, response, padding: '' };
  answer.padding = 'x'.repeat(size - JSON.stringify(answer).length);
  return answer;
}

beforeAll(async () => {
  server = await startApiServer({ maxRequestBytes: MAX_REQUEST_BYTES });
  webhooks = await startTestWebhookServer();
  const admission = 'admission.k8s.io/v1';
  webhooks.handle('/fits', (request) => ({
    raw: paddedAnswer(admission, request, ANSWER_LIMIT - 1024),
  }));
  webhooks.handle('/big', (request) => ({
    raw: paddedAnswer(admission, request, ANSWER_LIMIT + 1024),
  }));
  webhooks.handle('/endless', () => ({ endless: true }));
  webhooks.handle('/big-conversion', (request) => ({
    raw: paddedAnswer('apiextensions.k8s.io/v1', request, ANSWER_LIMIT + 1024),
  }));
});
afterAll(async () => {
  await server.stop();
  await webhooks.stop();
});

async function send(
  method: string,
  path: string,
  body?: object,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.host}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A validating webhook `<name>.example.com` on ConfigMaps labelled `hook: <name>`, at `path`. */
async function installValidating(
  name: string,
  path: string,
  failurePolicy: 'Fail' | 'Ignore',
): Promise<void> {
  const clientConfig = { url: webhooks.url(path), caBundle: webhooks.caBundle };
  const stored = await send(
    'POST',
    '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    configMapCreateGuard(name, clientConfig, failurePolicy),
  );
  expect(stored.status).toBe(201);
}

const configMap = hookedConfigMap;

const tooLarge = (path: string, timeoutSeconds: number) =>
  `Post "${webhooks.url(path)}?timeout=${timeoutSeconds}s": the answer is larger than ${ANSWER_LIMIT} bytes, the in-memory API server's limit for a webhook's answer`;

describe("a webhook's answer over the limit", () => {
  it('reads an answer under the limit', async () => {
    await installValidating('fits', '/fits', 'Fail');
    const created = await send(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      configMap('a', 'fits'),
    );
    expect(created.status).toBe(201);
  });

  it('with failurePolicy Fail, refuses the write naming the webhook and the limit', async () => {
    await installValidating('big', '/big', 'Fail');
    const refused = await send(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      configMap('b', 'big'),
    );
    expect(refused.status).toBe(500);
    expect(refused.json).toMatchObject({
      reason: 'InternalError',
      code: 500,
      message: `Internal error occurred: failed calling webhook "big.example.com": ${tooLarge('/big', 10)}`,
    });
    expect((await send('GET', '/api/v1/namespaces/default/configmaps/b')).status).toBe(404);
  });

  it('stops reading an answer that never ends once it passes the limit', async () => {
    await installValidating('endless', '/endless', 'Fail');
    const refused = await send(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      configMap('c', 'endless'),
    );
    expect(refused.status).toBe(500);
    expect(refused.json.message).toBe(
      `Internal error occurred: failed calling webhook "endless.example.com": ${tooLarge('/endless', 10)}`,
    );
  });

  it('with failurePolicy Ignore, skips the webhook', async () => {
    await installValidating('lenient', '/big', 'Ignore');
    const created = await send(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      configMap('d', 'lenient'),
    );
    expect(created.status).toBe(201);
  });

  it('fails a conversion with the bare 500 of a failed conversion', async () => {
    const group = 'limits.kubets.io';
    const crd = await send(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      hostsCrd(group, webhooks.url('/big-conversion'), webhooks.caBundle),
    );
    expect(crd.status).toBe(201);
    const created = await send('POST', `/apis/${group}/v1/namespaces/default/hosts`, {
      apiVersion: `${group}/v1`,
      kind: 'Host',
      metadata: { name: 'web' },
      spec: { ip: '10.0.0.1', port: 80 },
    });
    expect(created.status).toBe(201);
    const read = await send('GET', `/apis/${group}/v1alpha1/namespaces/default/hosts/web`);
    expect(read.status).toBe(500);
    expect(read.json).toEqual(
      failedConversion(
        `conversion webhook for ${group}/v1, Kind=Host failed: ${tooLarge('/big-conversion', 30)}`,
      ),
    );
  });
});
