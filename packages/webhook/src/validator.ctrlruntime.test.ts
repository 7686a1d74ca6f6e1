// controller-runtime pkg/webhook/admission: validator_custom_test.go and defaulter_custom_test.go,
// case by case. Go's fakeCustomValidator returns (warnings, err); a kubets validator returns its
// warnings or throws (the warnings travel on an AdmissionDenied).
import { StatusError } from '@kubets/apimachinery';
import { describe, expect, it } from 'vitest';
import type { AdmissionOperation, AdmissionRequest } from './admission-review.js';
import {
  AdmissionDenied,
  type Defaulter,
  defaultingHandler,
  handleAdmission,
  type Validator,
  validatingHandler,
} from './index.js';

const warningMessage = 'warning-message';
const anotherWarningMessage = 'another-warning-message';

function requestFor(operation: AdmissionOperation): AdmissionRequest {
  const base: AdmissionRequest = {
    uid: 'uid-1',
    kind: { group: 'foo.test.org', version: 'v1', kind: 'TestValidator' },
    resource: { group: 'foo.test.org', version: 'v1', resource: 'testvalidators' },
    operation,
    userInfo: { username: 'alice' },
  };
  if (operation === 'CREATE') return { ...base, object: {} };
  if (operation === 'UPDATE') return { ...base, object: {}, oldObject: {} };
  return { ...base, oldObject: {} };
}

/** Go's fakeCustomValidator: every method answers `warnings` and fails with `error` when set. */
function fakeCustomValidator(
  error: Error | undefined,
  warnings: string[] | undefined,
): Validator<object> {
  const answer = () => {
    if (error === undefined) return warnings;
    if (warnings === undefined) throw error;
    throw new AdmissionDenied(error.message, { warnings, cause: error });
  };
  return { validateCreate: answer, validateUpdate: answer, validateDelete: answer };
}

const operations = ['CREATE', 'UPDATE', 'DELETE'] as const;
const verb = { CREATE: 'create', UPDATE: 'update', DELETE: 'delete' } as const;
const method = {
  CREATE: 'ValidateCreate',
  UPDATE: 'ValidateUpdate',
  DELETE: 'ValidateDelete',
} as const;

async function handle(validator: Validator<object>, operation: AdmissionOperation) {
  return handleAdmission(validatingHandler(validator), requestFor(operation));
}

describe('customValidatingHandler', () => {
  describe('when dealing with successful results without warning', () => {
    const validator = fakeCustomValidator(undefined, undefined);
    for (const operation of operations) {
      it(`should return 200 in response when ${verb[operation]} succeeds`, async () => {
        const response = await handle(validator, operation);
        expect(response.allowed).toBe(true);
        expect(response.status?.code).toBe(200);
      });
    }
  });

  describe('when dealing with successful results with warning', () => {
    const validator = fakeCustomValidator(undefined, [warningMessage]);
    for (const operation of operations) {
      it(`should return 200 in response when ${verb[operation]} succeeds, with warning messages`, async () => {
        const response = await handle(validator, operation);
        expect(response.allowed).toBe(true);
        expect(response.status?.code).toBe(200);
        expect(response.warnings).toContain(warningMessage);
      });
    }
  });

  describe('when dealing with Status errors, with warning messages', () => {
    const expectedError = new StatusError({ message: 'some message', code: 422 });
    const validator = fakeCustomValidator(expectedError, [warningMessage, anotherWarningMessage]);
    for (const operation of operations) {
      it(`should propagate the Status from ${method[operation]}'s return value to the HTTP response`, async () => {
        const response = await handle(validator, operation);
        expect(response.allowed).toBe(false);
        expect(response.status?.code).toBe(422);
        expect(response.status).toEqual(expectedError.status);
        expect(response.warnings).toEqual(
          expect.arrayContaining([warningMessage, anotherWarningMessage]),
        );
      });
    }
  });

  describe('when dealing with Status errors, without warning messages', () => {
    const expectedError = new StatusError({ message: 'some message', code: 422 });
    for (const operation of operations) {
      it(`should propagate the Status from ${method[operation]}'s return value to the HTTP response`, async () => {
        const response = await handle(fakeCustomValidator(expectedError, undefined), operation);
        expect(response.allowed).toBe(false);
        expect(response.status).toEqual(expectedError.status);
        expect(response.warnings).toBeUndefined();
      });
    }
  });

  describe('when dealing with non-status errors, without warning messages', () => {
    const expectedError = new Error('some error');
    for (const operation of operations) {
      it(`should return 403 response when ${method[operation]} returns non-APIStatus error`, async () => {
        const response = await handle(fakeCustomValidator(expectedError, undefined), operation);
        expect(response.allowed).toBe(false);
        expect(response.status).toEqual({ code: 403, reason: 'Forbidden', message: 'some error' });
      });
    }
  });

  describe('when dealing with non-status errors, with warning messages', () => {
    const expectedError = new Error('some error');
    for (const operation of operations) {
      it(`should return 403 response when ${method[operation]} returns non-APIStatus error`, async () => {
        const response = await handle(
          fakeCustomValidator(expectedError, [warningMessage, anotherWarningMessage]),
          operation,
        );
        expect(response.allowed).toBe(false);
        expect(response.status).toEqual({ code: 403, reason: 'Forbidden', message: 'some error' });
        expect(response.warnings).toEqual([warningMessage, anotherWarningMessage]);
      });
    }
  });

  // Go's pending PIt cases, written.
  it('should return 400 in response when update fails on decoding new object', async () => {
    const response = await handleAdmission(
      validatingHandler(fakeCustomValidator(undefined, undefined)),
      {
        ...requestFor('UPDATE'),
        object: 'not an object',
      },
    );
    expect(response.status).toEqual({
      code: 400,
      message: 'request.object must be a JSON object, got string',
    });
  });
  it('should return 400 in response when update fails on decoding old object', async () => {
    const request = requestFor('UPDATE');
    delete request.oldObject;
    const response = await handleAdmission(
      validatingHandler(fakeCustomValidator(undefined, undefined)),
      request,
    );
    expect(response.status).toEqual({ code: 400, message: 'request.oldObject is missing' });
  });
  it('should return 400 in response when delete fails on decode', async () => {
    const response = await handleAdmission(
      validatingHandler(fakeCustomValidator(undefined, undefined)),
      {
        ...requestFor('DELETE'),
        oldObject: [1],
      },
    );
    expect(response.status).toEqual({
      code: 400,
      message: 'request.oldObject must be a JSON object, got an array',
    });
  });
});

interface TestDefaulter {
  labels?: Record<string, string>;
  replica?: number;
  totalReplicas?: number;
  [unknown: string]: unknown;
}

/** Go's TestCustomDefaulter; `totalReplicas = 0` is removed, as Go's `omitempty` drops a zero. */
const testCustomDefaulter: Defaulter<TestDefaulter> = {
  default(o) {
    o.labels = { ...(o.labels ?? {}), foo: 'bar' };
    if ((o.replica ?? 0) < 2) o.replica = 2;
    delete o.totalReplicas;
  },
};

function createRequest(
  object: unknown,
  operation: AdmissionOperation = 'CREATE',
): AdmissionRequest {
  return {
    uid: 'uid-2',
    kind: { group: 'foo.test.org', version: 'v1', kind: 'TestDefaulter' },
    resource: { group: 'foo.test.org', version: 'v1', resource: 'testdefaulters' },
    operation,
    userInfo: {},
    ...(operation === 'DELETE' ? { oldObject: object } : { object }),
  };
}

describe('Defaulter Handler', () => {
  it('should preserve unknown fields by default', async () => {
    const answer = await defaultingHandler(testCustomDefaulter)({
      request: createRequest({ newField: 'foo', totalReplicas: 5 }),
      signal: new AbortController().signal,
    });
    expect(answer.allowed).toBe(true);
    expect(answer.patches).toHaveLength(3);
    expect(answer.patches).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/labels', value: { foo: 'bar' } },
        { op: 'add', path: '/replica', value: 2 },
        { op: 'remove', path: '/totalReplicas' },
      ]),
    );
    const response = await handleAdmission(
      defaultingHandler(testCustomDefaulter),
      createRequest({ newField: 'foo', totalReplicas: 5 }),
    );
    expect(response.status?.code).toBe(200);
  });

  it('should return ok if received delete verb in defaulter handler', async () => {
    const response = await handleAdmission(
      defaultingHandler(testCustomDefaulter),
      createRequest({}, 'DELETE'),
    );
    expect(response.allowed).toBe(true);
    expect(response.status?.code).toBe(200);
  });
});
