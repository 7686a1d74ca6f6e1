import { isStatusError, jsonEqual, type Logger, silentLogger } from '@kubets/apimachinery';
import {
  type AdmissionAnswer,
  AdmissionDenied,
  allowed,
  completeAnswer,
  denied,
  errored,
  messageOf,
  patchResponseFromRaw,
  responseFromStatus,
  withWarnings,
} from './admission-response.js';
import type { AdmissionRequest, AdmissionResponse } from './admission-review.js';

/** What every admission callback gets besides the object: the request and its cancellation. */
export interface AdmissionContext {
  /** The whole request: `operation`, `subResource`, `dryRun`, `userInfo`, `oldObject`, ... */
  readonly request: AdmissionRequest;
  /** Aborts when the client goes away or the server stops. */
  readonly signal: AbortSignal;
}

/** An admission handler (controller-runtime's `admission.Handler`). */
export type AdmissionHandler = (
  context: AdmissionContext,
) => AdmissionAnswer | Promise<AdmissionAnswer>;

/** Warnings a validator returns to the client (`admission.Warnings`). */
export type Warnings = readonly string[];

/** What a validator method returns: warnings, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: a validator with nothing to say returns nothing
export type ValidationResult = Warnings | undefined | void;

/**
 * Validates objects of type `T` (controller-runtime's `admission.Validator[T]`). Returns
 * warnings (or nothing) to allow; throws to deny: an {@link AdmissionDenied} (message, field
 * causes, warnings), a `StatusError` (its Status is the answer), or any error (its message,
 * 403 Forbidden). A method left out allows that operation.
 */
export interface Validator<T> {
  /** Validates an object being created. */
  validateCreate?(
    object: T,
    context: AdmissionContext,
  ): ValidationResult | Promise<ValidationResult>;
  /** Validates an update of `oldObject` to `object`. */
  validateUpdate?(
    oldObject: T,
    object: T,
    context: AdmissionContext,
  ): ValidationResult | Promise<ValidationResult>;
  /** Validates the deletion of an object. */
  validateDelete?(
    object: T,
    context: AdmissionContext,
  ): ValidationResult | Promise<ValidationResult>;
}

/**
 * Sets defaults on objects of type `T` (controller-runtime's `admission.Defaulter[T]`). Gets
 * a copy of the object: change it in place, or return a new object. The webhook answers with
 * the JSON Patch between the object it got and the result. Throwing denies, as for a
 * {@link Validator}.
 */
export interface Defaulter<T> {
  /** Defaults `object` (a copy of the request's). */
  // biome-ignore lint/suspicious/noConfusingVoidType: changing the copy in place returns nothing
  default(object: T, context: AdmissionContext): T | void | Promise<T | void>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class DecodeError extends Error {}

function decoded<T>(value: unknown, field: 'object' | 'oldObject'): T {
  if (!isObject(value)) {
    throw new DecodeError(
      value === undefined
        ? `request.${field} is missing`
        : `request.${field} must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  // The callback gets its own copy: it may change it, and the original is what a patch starts from.
  return structuredClone(value) as T;
}

/** The answer to a callback that threw: a denial naming the cause, as controller-runtime's. */
function denialOf(error: unknown, warnings: Warnings = []): AdmissionAnswer {
  if (error instanceof AdmissionDenied) {
    return withWarnings(
      responseFromStatus(false, error.toStatus()),
      ...warnings,
      ...error.warnings,
    );
  }
  if (isStatusError(error))
    return withWarnings(responseFromStatus(false, error.status), ...warnings);
  return withWarnings(denied(messageOf(error)), ...warnings);
}

function warned(result: unknown): AdmissionAnswer {
  if (result === undefined) return allowed();
  if (!Array.isArray(result) || !result.every((w) => typeof w === 'string')) {
    return errored(
      500,
      new TypeError(`validator must return an array of warnings or nothing, got ${typeof result}`),
    );
  }
  return withWarnings(allowed(), ...result);
}

/**
 * The admission handler of a {@link Validator} (controller-runtime's `WithValidator`):
 * CREATE validates `object`, UPDATE `oldObject` → `object`, DELETE `oldObject`; CONNECT is
 * allowed. A missing or non-object object is a 400; a thrown error a denial naming it.
 */
export function validatingHandler<T>(validator: Validator<T>): AdmissionHandler {
  if (validator === null || typeof validator !== 'object') {
    throw new TypeError('validatingHandler needs a validator object');
  }
  return async (context) => {
    const { request } = context;
    try {
      switch (request.operation) {
        case 'CONNECT':
          return allowed();
        case 'CREATE': {
          const object = decoded<T>(request.object, 'object');
          return warned(await validator.validateCreate?.(object, context));
        }
        case 'UPDATE': {
          const object = decoded<T>(request.object, 'object');
          const oldObject = decoded<T>(request.oldObject, 'oldObject');
          return warned(await validator.validateUpdate?.(oldObject, object, context));
        }
        case 'DELETE': {
          const object = decoded<T>(request.oldObject, 'oldObject');
          return warned(await validator.validateDelete?.(object, context));
        }
        default:
          return errored(400, new Error(`unknown operation ${JSON.stringify(request.operation)}`));
      }
    } catch (error) {
      if (error instanceof DecodeError) return errored(400, error);
      return denialOf(error);
    }
  };
}

/**
 * The admission handler of a {@link Defaulter} (controller-runtime's `WithDefaulter`): DELETE
 * is allowed untouched; otherwise the defaulter gets a copy of `object` and the answer is the
 * JSON Patch from the request's object to the defaulted one (none when nothing changed).
 */
export function defaultingHandler<T>(defaulter: Defaulter<T>): AdmissionHandler {
  if (
    defaulter === null ||
    typeof defaulter !== 'object' ||
    typeof defaulter.default !== 'function'
  ) {
    throw new TypeError('defaultingHandler needs an object with a default(object, context) method');
  }
  return async (context) => {
    const { request } = context;
    if (request.operation === 'DELETE') return allowed();
    let copy: T;
    try {
      copy = decoded<T>(request.object, 'object');
    } catch (error) {
      return errored(400, error);
    }
    let result: unknown;
    try {
      result = await defaulter.default(copy, context);
    } catch (error) {
      return denialOf(error);
    }
    const defaultedObject = result === undefined ? copy : result;
    if (!isObject(defaultedObject)) {
      return errored(
        500,
        new TypeError(
          `defaulter must change the object in place or return an object, got ${defaultedObject === null ? 'null' : Array.isArray(defaultedObject) ? 'an array' : typeof defaultedObject}`,
        ),
      );
    }
    if (jsonEqual(request.object, defaultedObject)) return { allowed: true };
    // A round trip through JSON drops what JSON cannot carry (undefined, functions), as the
    // API server would when it applies the patch.
    return patchResponseFromRaw(request.object, JSON.parse(JSON.stringify(defaultedObject)));
  };
}

/**
 * Runs validating handlers in order (controller-runtime's `MultiValidatingHandler`): the first
 * denial is the answer; otherwise allowed with every handler's warnings.
 */
export function multiValidatingHandler(...handlers: AdmissionHandler[]): AdmissionHandler {
  return async (context) => {
    const warnings: string[] = [];
    for (const handler of handlers) {
      const answer = await handler(context);
      if (!answer.allowed) return answer;
      warnings.push(...(answer.warnings ?? []));
    }
    return { allowed: true, status: { code: 200 }, warnings };
  };
}

/**
 * Runs mutating handlers in order (controller-runtime's `MultiMutatingHandler`): the first
 * denial is the answer; otherwise allowed with every handler's patches and warnings.
 */
export function multiMutatingHandler(...handlers: AdmissionHandler[]): AdmissionHandler {
  return async (context) => {
    const warnings: string[] = [];
    const patches: NonNullable<AdmissionAnswer['patches']> = [];
    for (const handler of handlers) {
      const answer = await handler(context);
      if (!answer.allowed) return answer;
      patches.push(...(answer.patches ?? []));
      warnings.push(...(answer.warnings ?? []));
    }
    return { allowed: true, status: { code: 200 }, patches, warnings };
  };
}

/** Options of {@link handleAdmission}. */
export interface HandleAdmissionOptions {
  /** Where denials and handler failures are logged (default: silent). */
  logger?: Logger | undefined;
  /** The webhook's path, named in log lines. */
  path?: string | undefined;
  /** Aborted when the request is abandoned. */
  signal?: AbortSignal | undefined;
}

/**
 * Runs `handler` on `request` and completes its answer (controller-runtime's
 * `Webhook.Handle`): the request's uid, a default Status; a handler that throws answers
 * 500 naming the error (as a recovered panic). Every denial is logged once.
 */
export async function handleAdmission(
  handler: AdmissionHandler,
  request: AdmissionRequest,
  options: HandleAdmissionOptions = {},
): Promise<AdmissionResponse> {
  const logger = options.logger ?? silentLogger;
  const signal = options.signal ?? new AbortController().signal;
  let answer: AdmissionAnswer;
  try {
    answer = await handler({ request, signal });
    if (answer === null || typeof answer !== 'object' || typeof answer.allowed !== 'boolean') {
      throw new TypeError('admission handler must return an answer with a boolean allowed');
    }
  } catch (error) {
    logger.error('admission handler failed', {
      webhook: options.path,
      uid: request.uid,
      error: messageOf(error),
    });
    answer = errored(500, new Error(`admission handler failed: ${messageOf(error)}`));
  }
  const response = completeAnswer(answer, request);
  if (!response.allowed) {
    logger.info('admission denied', {
      webhook: options.path,
      uid: request.uid,
      operation: request.operation,
      resource: request.resource,
      namespace: request.namespace,
      name: request.name,
      user: request.userInfo?.username,
      code: response.status?.code,
      reason: response.status?.reason,
      message: response.status?.message,
    });
  }
  return response;
}
