// controller-runtime pkg/webhook/admission/http_test.go, case by case, on the endpoint (the
// server's transport cases, an infinite body among them, are in server.test.ts). kubets also
// answers these refusals with the HTTP status (Go writes 200 and the code in the review) and
// needs a request uid: see docs/fidelity.md.
import { describe, expect, it } from 'vitest';
import { type AdmissionHandler, admissionEndpoint, type WebhookRequest } from './index.js';

const signal = new AbortController().signal;
const fakeHandler: AdmissionHandler = () => ({ allowed: true });
const webhook = admissionEndpoint(fakeHandler);

function request(body: string | undefined, contentType?: string): WebhookRequest {
  return { body: body === undefined ? undefined : Buffer.from(body), contentType, signal };
}

const refusal = (code: number, message: string) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  response: { uid: '', allowed: false, status: { code, message } },
});

describe('Admission Webhooks', () => {
  describe('HTTP Handler', () => {
    it('should return bad-request when given an empty body', async () => {
      const reply = await webhook.handle(request(undefined));
      expect(reply).toEqual({ status: 400, body: refusal(400, 'request body is empty') });
    });

    it('should return bad-request when given the wrong content-type', async () => {
      const reply = await webhook.handle(request('', 'application/foo'));
      expect(reply).toEqual({
        status: 400,
        body: refusal(400, 'contentType=application/foo, expected application/json'),
      });
    });

    it('should return bad-request when given an undecodable body', async () => {
      const reply = await webhook.handle(request('{', 'application/json'));
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({
        response: {
          uid: '',
          allowed: false,
          status: {
            code: 400,
            message: expect.stringMatching(/^couldn't get version\/kind; json parse error: /),
          },
        },
      });
    });

    it('should error when given a NoBody', async () => {
      const reply = await webhook.handle(request(undefined, 'application/json'));
      expect(reply).toEqual({ status: 400, body: refusal(400, 'request body is empty') });
    });

    it('should return the response given by the handler with version defaulted to v1', async () => {
      const reply = await webhook.handle(request('{"request":{"uid":"u"}}', 'application/json'));
      expect(reply).toEqual({
        status: 200,
        body: {
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: 'u', allowed: true, status: { code: 200 } },
        },
      });
    });

    it('should return the v1 response given by the handler', async () => {
      const reply = await webhook.handle(
        request(
          '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u"}}',
          'application/json',
        ),
      );
      expect(reply.body).toEqual({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: 'u', allowed: true, status: { code: 200 } },
      });
    });

    it('should return the v1beta1 response given by the handler', async () => {
      const reply = await webhook.handle(
        request(
          '{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}}',
          'application/json',
        ),
      );
      expect(reply.body).toEqual({
        apiVersion: 'admission.k8s.io/v1beta1',
        kind: 'AdmissionReview',
        response: { uid: 'u', allowed: true, status: { code: 200 } },
      });
    });

    it('should present the Context from the HTTP request, if any', async () => {
      const seen: AbortSignal[] = [];
      const endpoint = admissionEndpoint(({ signal: given }) => {
        seen.push(given);
        return { allowed: true };
      });
      await endpoint.handle(request('{"request":{"uid":"u"}}', 'application/json'));
      expect(seen).toEqual([signal]);
    });
  });
});

describe('admission callbacks see the whole request', () => {
  it('passes dryRun, userInfo, oldObject, operation and subResource to the handler', async () => {
    const seen: unknown[] = [];
    const endpoint = admissionEndpoint(({ request: r }) => {
      seen.push({
        dryRun: r.dryRun,
        user: r.userInfo.username,
        old: r.oldObject,
        operation: r.operation,
        sub: r.subResource,
      });
      return { allowed: true };
    });
    await endpoint.handle(
      request(
        JSON.stringify({
          request: {
            uid: 'u',
            operation: 'UPDATE',
            subResource: 'status',
            dryRun: true,
            userInfo: { username: 'bob' },
            object: { a: 2 },
            oldObject: { a: 1 },
          },
        }),
        'application/json; charset=utf-8',
      ),
    );
    expect(seen).toEqual([
      { dryRun: true, user: 'bob', old: { a: 1 }, operation: 'UPDATE', sub: 'status' },
    ]);
  });
});
