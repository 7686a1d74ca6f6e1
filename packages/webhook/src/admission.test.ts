import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from './admission-review.js';
import {
  AdmissionDenied,
  decodePatch,
  defaultingHandler,
  handleAdmission,
  validatingHandler,
} from './index.js';

interface Mydemo {
  metadata: { name: string };
  spec: { image?: string; port?: number };
}

const create = (object: unknown, extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  uid: 'u',
  kind: { group: 'demo.example.com', version: 'v1', kind: 'Mydemo' },
  resource: { group: 'demo.example.com', version: 'v1', resource: 'mydemos' },
  operation: 'CREATE',
  userInfo: { username: 'alice' },
  object,
  ...extra,
});

describe('typed defaulters', () => {
  const defaulter = defaultingHandler<Mydemo>({
    default(object) {
      object.spec.image ??= 'nginx:1.27';
    },
  });

  it('answers the RFC 6902 patch from the object it got to the defaulted copy', async () => {
    const object = { metadata: { name: 'a' }, spec: { port: 8080 } };
    const response = await handleAdmission(defaulter, create(object));
    expect(response).toMatchObject({ uid: 'u', allowed: true, patchType: 'JSONPatch' });
    expect(decodePatch(response)).toEqual([
      { op: 'add', path: '/spec/image', value: 'nginx:1.27' },
    ]);
    expect(object).toEqual({ metadata: { name: 'a' }, spec: { port: 8080 } });
  });

  it('answers no patch when nothing changed', async () => {
    const response = await handleAdmission(
      defaulter,
      create({ metadata: { name: 'a' }, spec: { image: 'x:1' } }),
    );
    expect(response).toEqual({ uid: 'u', allowed: true, status: { code: 200 } });
  });

  it('may return a new object instead of changing the copy', async () => {
    const replacing = defaultingHandler<Mydemo>({
      default: (o) => ({ ...o, spec: { ...o.spec, port: 80 } }),
    });
    const response = await handleAdmission(
      replacing,
      create({ metadata: { name: 'a' }, spec: {} }),
    );
    expect(decodePatch(response)).toEqual([{ op: 'add', path: '/spec/port', value: 80 }]);
  });

  it('denies with the message of a defaulter that throws', async () => {
    const throwing = defaultingHandler<Mydemo>({
      default: () => {
        throw new Error('no default for this image registry');
      },
    });
    const response = await handleAdmission(throwing, create({ metadata: { name: 'a' }, spec: {} }));
    expect(response.status).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: 'no default for this image registry',
    });
  });

  it('answers 400 to a request without an object', async () => {
    const response = await handleAdmission(defaulter, create(undefined));
    expect(response.status).toEqual({ code: 400, message: 'request.object is missing' });
  });

  it('refuses to be built without a default method', () => {
    expect(() => defaultingHandler({} as never)).toThrow(
      'defaultingHandler needs an object with a default(object, context) method',
    );
  });
});

describe('typed validators', () => {
  const validator = validatingHandler<Mydemo>({
    validateCreate(object, { request }) {
      const port = object.spec.port ?? 0;
      if (port < 1024 || port > 65535) {
        throw new AdmissionDenied(`Mydemo ${object.metadata.name} is invalid`, {
          causes: [
            {
              reason: 'FieldValueInvalid',
              field: 'spec.port',
              message: `must be in [1024, 65535], got ${port}`,
            },
          ],
        });
      }
      return request.dryRun ? ['dry run: nothing stored'] : [];
    },
  });

  it('denies with field causes as kube-apiserver validation does (422 Invalid)', async () => {
    const response = await handleAdmission(
      validator,
      create({ metadata: { name: 'a' }, spec: { port: 80 } }),
    );
    expect(response).toEqual({
      uid: 'u',
      allowed: false,
      status: {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: 'Mydemo a is invalid',
        details: {
          causes: [
            {
              reason: 'FieldValueInvalid',
              field: 'spec.port',
              message: 'must be in [1024, 65535], got 80',
            },
          ],
        },
      },
    });
  });

  it('sees the request: warnings on a dry run', async () => {
    const response = await handleAdmission(
      validator,
      create({ metadata: { name: 'a' }, spec: { port: 8080 } }, { dryRun: true }),
    );
    expect(response).toEqual({
      uid: 'u',
      allowed: true,
      status: { code: 200 },
      warnings: ['dry run: nothing stored'],
    });
  });

  it('allows an operation whose method is left out, and CONNECT', async () => {
    const update = create(
      { metadata: { name: 'a' }, spec: {} },
      { operation: 'UPDATE', oldObject: { metadata: { name: 'a' }, spec: {} } },
    );
    expect((await handleAdmission(validator, update)).allowed).toBe(true);
    expect(
      (await handleAdmission(validator, create(undefined, { operation: 'CONNECT' }))).allowed,
    ).toBe(true);
  });

  it('answers 500 naming a validator that returns something other than warnings', async () => {
    const odd = validatingHandler<Mydemo>({ validateCreate: () => 'fine' as never });
    const response = await handleAdmission(odd, create({ metadata: { name: 'a' }, spec: {} }));
    expect(response.status).toEqual({
      code: 500,
      message: 'validator must return an array of warnings or nothing, got string',
    });
  });

  it('answers 400 to an unknown operation', async () => {
    const response = await handleAdmission(validator, create({}, { operation: 'PATCH' as never }));
    expect(response.status).toEqual({ code: 400, message: 'unknown operation "PATCH"' });
  });
});
