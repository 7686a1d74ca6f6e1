import { isStatusError, type Status, type StatusCause } from '@kubets/apimachinery';
import { createPatch } from 'rfc6902';
import type { AdmissionResponse } from './admission-review.js';

/** One RFC 6902 JSON Patch operation. */
export interface JsonPatchOperation {
  /** `add`, `remove`, `replace`, `move`, `copy` or `test`. */
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  /** The JSON Pointer the operation applies to. */
  path: string;
  /** The value of `add`, `replace` and `test`. */
  value?: unknown;
  /** The source pointer of `move` and `copy`. */
  from?: string;
}

/**
 * What an admission handler answers (controller-runtime's `admission.Response`): the
 * decision, its Status, patches (still as operations) and warnings. The webhook completes
 * it into an {@link AdmissionResponse} (uid, a default Status, the patch encoded).
 */
export interface AdmissionAnswer
  extends Pick<AdmissionResponse, 'allowed' | 'status' | 'warnings' | 'auditAnnotations'> {
  /** The changes to the object (mutating webhooks), encoded into the response's `patch`. */
  patches?: JsonPatchOperation[];
}

/** The answer allowing the request, with an optional message. */
export function allowed(message = ''): AdmissionAnswer {
  return validationResponse(true, message);
}

/** The answer denying the request (403 Forbidden) with `message`. */
export function denied(message = ''): AdmissionAnswer {
  return validationResponse(false, message);
}

/** The answer allowing the request with `patches` applied to the object. */
export function patched(message: string, patches: JsonPatchOperation[]): AdmissionAnswer {
  return { ...allowed(message), patches };
}

/** The answer denying the request because handling it failed with `error` (HTTP `code`). */
export function errored(code: number, error: unknown): AdmissionAnswer {
  return { allowed: false, status: { code, message: messageOf(error) } };
}

/** An allowing (200) or denying (403 Forbidden) answer with `message` when non-empty. */
export function validationResponse(isAllowed: boolean, message = ''): AdmissionAnswer {
  const result: Status = isAllowed ? { code: 200 } : { code: 403, reason: 'Forbidden' };
  if (message.length > 0) result.message = message;
  return { allowed: isAllowed, status: result };
}

/** The answer carrying `status` as it is (a `StatusError` a callback threw). */
export function responseFromStatus(isAllowed: boolean, status: Status): AdmissionAnswer {
  return { allowed: isAllowed, status };
}

/**
 * The answer allowing the request with the RFC 6902 patch that turns `original` into
 * `current` (computed by `rfc6902`'s `createPatch`); no patch when they are equal.
 */
export function patchResponseFromRaw(original: unknown, current: unknown): AdmissionAnswer {
  const patches = createPatch(original, current) as JsonPatchOperation[];
  return patches.length === 0 ? { allowed: true } : { allowed: true, patches };
}

/** `answer` with `warnings` added after the ones it has. */
export function withWarnings(answer: AdmissionAnswer, ...warnings: string[]): AdmissionAnswer {
  return { ...answer, warnings: [...(answer.warnings ?? []), ...warnings] };
}

/**
 * Thrown by a validator or defaulter to deny a request with `message` (403 Forbidden), or,
 * with field `causes`, as kube-apiserver's validation does (422 Invalid, the causes in
 * `details`). Warnings given here reach the client with the denial; a `StatusError` given as
 * `cause` is the answer's Status.
 */
export class AdmissionDenied extends Error {
  /** The fields that are wrong. */
  readonly causes: readonly StatusCause[];
  /** Warnings returned with the denial. */
  readonly warnings: readonly string[];

  constructor(
    message: string,
    options: {
      causes?: readonly StatusCause[];
      warnings?: readonly string[];
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AdmissionDenied';
    this.causes = options.causes ?? [];
    this.warnings = options.warnings ?? [];
  }

  /** The Status of the denial: the one of a `StatusError` it was given as `cause`, else its own. */
  toStatus(): Status {
    if (isStatusError(this.cause)) return this.cause.status;
    if (this.causes.length === 0) return denied(this.message).status as Status;
    return {
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: this.message,
      details: { causes: [...this.causes] },
    };
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * `answer` completed for `request` (controller-runtime's `Response.Complete`): the request's
 * uid, a Status with code 200 when it has none, and the patches as a base64 JSON Patch.
 */
export function completeAnswer(
  answer: AdmissionAnswer,
  request: { uid: string },
): AdmissionResponse {
  const result: Status = { ...(answer.status ?? {}) };
  if (result.code === undefined || result.code === 0) result.code = 200;
  const response: AdmissionResponse = { uid: request.uid, allowed: answer.allowed, status: result };
  if (answer.warnings !== undefined && answer.warnings.length > 0) {
    response.warnings = [...answer.warnings];
  }
  if (answer.auditAnnotations !== undefined) response.auditAnnotations = answer.auditAnnotations;
  if (answer.patches !== undefined && answer.patches.length > 0) {
    response.patch = Buffer.from(JSON.stringify(answer.patches)).toString('base64');
    response.patchType = 'JSONPatch';
  }
  return response;
}

/** Decodes the base64 JSON Patch of a completed response (for tests and the in-memory server). */
export function decodePatch(response: AdmissionResponse): JsonPatchOperation[] {
  if (response.patch === undefined) return [];
  return JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as JsonPatchOperation[];
}
