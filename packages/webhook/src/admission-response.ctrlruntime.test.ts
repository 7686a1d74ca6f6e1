// controller-runtime pkg/webhook/admission: response_test.go, multi_test.go and webhook_test.go,
// case by case (Go's Response is AdmissionAnswer; Handle is handleAdmission).
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from './admission-review.js';
import {
  type AdmissionAnswer,
  allowed,
  decodePatch,
  denied,
  errored,
  handleAdmission,
  type JsonPatchOperation,
  multiMutatingHandler,
  multiValidatingHandler,
  patched,
  patchResponseFromRaw,
  validationResponse,
  withWarnings,
} from './index.js';

const request = (uid = ''): AdmissionRequest => ({
  uid,
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  operation: 'CREATE',
  userInfo: {},
});
const context = { request: request(), signal: new AbortController().signal };

describe('Admission Webhook Response Helpers', () => {
  describe('Allowed', () => {
    it("should return an 'allowed' response", () => {
      expect(allowed('')).toEqual({ allowed: true, status: { code: 200 } });
    });
    it('should populate a status with a reason when a reason is given', () => {
      expect(allowed('acceptable')).toEqual({
        allowed: true,
        status: { code: 200, message: 'acceptable' },
      });
    });
  });

  describe('Denied', () => {
    it("should return a 'not allowed' response", () => {
      expect(denied('')).toEqual({ allowed: false, status: { code: 403, reason: 'Forbidden' } });
    });
    it('should populate a status with a reason when a reason is given', () => {
      expect(denied('UNACCEPTABLE!')).toEqual({
        allowed: false,
        status: { code: 403, reason: 'Forbidden', message: 'UNACCEPTABLE!' },
      });
    });
  });

  describe('Patched', () => {
    const ops: JsonPatchOperation[] = [
      { op: 'replace', path: '/spec/selector/matchLabels', value: { foo: 'bar' } },
      { op: 'remove', path: '/spec/replicas' },
    ];
    it("should return an 'allowed' response with the given patches", () => {
      expect(patched('', ops)).toEqual({ allowed: true, status: { code: 200 }, patches: ops });
    });
    it('should populate a status with a reason when a reason is given', () => {
      expect(patched('some changes', ops)).toEqual({
        allowed: true,
        status: { code: 200, message: 'some changes' },
        patches: ops,
      });
    });
  });

  describe('Errored', () => {
    it('should return a denied response with an error', () => {
      expect(errored(400, new Error('this is an error'))).toEqual({
        allowed: false,
        status: { code: 400, message: 'this is an error' },
      });
    });
  });

  describe('ValidationResponse', () => {
    it('should populate a status with a message when a message is given', () => {
      expect(validationResponse(true, 'acceptable')).toEqual({
        allowed: true,
        status: { code: 200, message: 'acceptable' },
      });
      expect(validationResponse(false, 'UNACCEPTABLE!')).toEqual({
        allowed: false,
        status: { code: 403, reason: 'Forbidden', message: 'UNACCEPTABLE!' },
      });
    });
    it('should return an admission decision', () => {
      expect(validationResponse(true, '')).toEqual({ allowed: true, status: { code: 200 } });
      expect(validationResponse(false, '')).toEqual({
        allowed: false,
        status: { code: 403, reason: 'Forbidden' },
      });
    });
  });

  describe('PatchResponseFromRaw', () => {
    it("should return an 'allowed' response with a patch of the diff between two sets of serialized JSON", () => {
      expect(patchResponseFromRaw({ a: 'foo' }, { a: 'bar' })).toEqual({
        allowed: true,
        patches: [{ op: 'replace', path: '/a', value: 'bar' }],
      });
    });
  });

  describe('WithWarnings', () => {
    it('should add the warnings to the existing response without removing any existing warnings', () => {
      const initial: AdmissionAnswer = {
        allowed: true,
        status: { code: 200 },
        warnings: ['existing-warning'],
      };
      expect(withWarnings(initial, 'additional-warning-1', 'additional-warning-2')).toEqual({
        allowed: true,
        status: { code: 200 },
        warnings: ['existing-warning', 'additional-warning-1', 'additional-warning-2'],
      });
      expect(initial.warnings).toEqual(['existing-warning']);
    });
  });
});

describe('Multi-Handler Admission Webhooks', () => {
  const alwaysAllow = (): AdmissionAnswer => ({ allowed: true });
  const alwaysDeny = (): AdmissionAnswer => ({ allowed: false });
  const warning = (): AdmissionAnswer => ({ allowed: true, warnings: ['handler-warning'] });

  describe('with validating handlers', () => {
    it('should deny the request if any handler denies the request', async () => {
      const answer = await multiValidatingHandler(alwaysAllow, alwaysDeny)(context);
      expect(answer.allowed).toBe(false);
      expect(answer.warnings ?? []).toEqual([]);
    });
    it('should allow the request if all handlers allow the request', async () => {
      const answer = await multiValidatingHandler(alwaysAllow, alwaysAllow)(context);
      expect(answer.allowed).toBe(true);
      expect(answer.warnings).toEqual([]);
    });
    it('should show the warnings if all handlers allow the request', async () => {
      const answer = await multiValidatingHandler(alwaysAllow, warning)(context);
      expect(answer.allowed).toBe(true);
      expect(answer.warnings).toHaveLength(1);
    });
  });

  describe('with mutating handlers', () => {
    const patcher1 = (): AdmissionAnswer => ({
      allowed: true,
      patches: [
        { op: 'add', path: '/metadata/annotation/new-key', value: 'new-value' },
        { op: 'replace', path: '/spec/replicas', value: '2' },
      ],
    });
    const patcher2 = (): AdmissionAnswer => ({
      allowed: true,
      patches: [{ op: 'add', path: '/metadata/annotation/hello', value: 'world' }],
    });
    const patcher3 = (): AdmissionAnswer => ({
      allowed: true,
      warnings: ['annotation-warning'],
      patches: [{ op: 'add', path: '/metadata/annotation/newest-key', value: 'value' }],
    });
    it('should not return any patches if the request is denied', async () => {
      const answer = await multiMutatingHandler(patcher1, patcher2, alwaysDeny)(context);
      expect(answer.allowed).toBe(false);
      expect(answer.patches ?? []).toEqual([]);
    });
    it('should produce all patches if the requests are all allowed', async () => {
      const answer = await multiMutatingHandler(patcher1, patcher2)(context);
      expect(answer.allowed).toBe(true);
      const response = await handleAdmission(
        multiMutatingHandler(patcher1, patcher2),
        request('u'),
      );
      expect(response.patchType).toBe('JSONPatch');
      expect(decodePatch(response)).toEqual([
        { op: 'add', path: '/metadata/annotation/new-key', value: 'new-value' },
        { op: 'replace', path: '/spec/replicas', value: '2' },
        { op: 'add', path: '/metadata/annotation/hello', value: 'world' },
      ]);
      expect(answer.warnings).toEqual([]);
    });
    it('should produce all patches if the requests are all allowed and show warnings', async () => {
      const answer = await multiMutatingHandler(patcher1, patcher3)(context);
      expect(answer.allowed).toBe(true);
      expect(answer.patches).toHaveLength(3);
      expect(answer.warnings).toEqual(['annotation-warning']);
    });
  });
});

describe('Admission Webhooks', () => {
  it('should invoke the handler to get a response', async () => {
    const response = await handleAdmission(() => ({ allowed: true }), request());
    expect(response.allowed).toBe(true);
  });
  it("should ensure that the response's UID is set to the request's UID", async () => {
    const response = await handleAdmission(() => ({ allowed: true }), request('foobar'));
    expect(response.uid).toBe('foobar');
  });
  it('should populate the status on a response if one is not provided', async () => {
    const response = await handleAdmission(() => ({ allowed: true }), request());
    expect(response.status).toEqual({ code: 200 });
  });
  it("shouldn't overwrite the status on a response", async () => {
    const response = await handleAdmission(
      () => ({ allowed: true, status: { message: 'Ground Control to Major Tom' } }),
      request(),
    );
    expect(response.status).toEqual({ code: 200, message: 'Ground Control to Major Tom' });
  });
  it('should serialize patch operations into a single jsonpatch blob', async () => {
    const response = await handleAdmission(
      () =>
        patched('', [
          { op: 'add', path: '/a', value: 2 },
          { op: 'replace', path: '/b', value: 4 },
        ]),
      request(),
    );
    expect(response.patchType).toBe('JSONPatch');
    expect(Buffer.from(response.patch ?? '', 'base64').toString()).toBe(
      '[{"op":"add","path":"/a","value":2},{"op":"replace","path":"/b","value":4}]',
    );
  });
  describe('panic recovery', () => {
    it('should recover panic if RecoverPanic is true by default', async () => {
      const response = await handleAdmission(() => {
        throw new Error('fake panic test');
      }, request());
      expect(response.allowed).toBe(false);
      expect(response.status?.code).toBe(500);
      expect(response.status?.message).toBe('admission handler failed: fake panic test');
    });
  });
  it('logs one line per denial, naming the webhook, the object and the message', async () => {
    const lines: { message: string; fields: unknown }[] = [];
    const log = (message: string, fields?: unknown) => lines.push({ message, fields });
    const logger = { debug: log, info: log, warn: log, error: log };
    await handleAdmission(
      () => denied('no'),
      { ...request('u1'), name: 'x', namespace: 'ns' },
      {
        logger,
        path: '/validate',
      },
    );
    await handleAdmission(() => allowed(), request('u2'), { logger, path: '/validate' });
    expect(lines).toEqual([
      {
        message: 'admission denied',
        fields: expect.objectContaining({
          webhook: '/validate',
          uid: 'u1',
          name: 'x',
          namespace: 'ns',
          code: 403,
          message: 'no',
        }),
      },
    ]);
  });
});
