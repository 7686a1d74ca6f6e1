import type { Status, StatusCause } from '@kubets/apimachinery';

/**
 * An error that becomes a `Status` response. Request handlers throw it; the server turns it
 * into the HTTP answer with the same code.
 */
export class ApiError extends Error {
  readonly status: Status;

  constructor(status: Status) {
    super(status.message ?? status.reason ?? 'request failed');
    this.name = 'ApiError';
    this.status = status;
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code ?? 500;
  }
}

/** Builds a failure `Status` the way the API server renders it. */
export function failure(
  code: number,
  reason: string,
  message: string,
  details?: Status['details'],
): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

/** The successful-delete Status the server returns for resources that do not return the object. */
export function success(details: Status['details']): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

const err = (
  code: number,
  reason: string,
  message: string,
  details?: Status['details'],
): ApiError => new ApiError(failure(code, reason, message, details));

/**
 * An error about one object: `describe` gets the resource as the message names it
 * (`configmaps`, `deployments.apps`), and the details carry the name, group and resource.
 */
function objectError(
  code: number,
  reason: string,
  object: { resource: string; name: string; group: string },
  describe: (qualified: string) => string,
): ApiError {
  const { resource, name, group } = object;
  const qualified = group ? `${resource}.${group}` : resource;
  return err(code, reason, describe(qualified), {
    name,
    ...(group ? { group } : {}),
    kind: resource,
  });
}

/** `404 NotFound`: `configmaps "x" not found`. */
export function notFound(resource: string, name: string, group = ''): ApiError {
  return objectError(404, 'NotFound', { resource, name, group }, (q) => `${q} "${name}" not found`);
}

/** `404 NotFound` for a path the server does not serve. */
export function pathNotFound(): ApiError {
  return err(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** `409 AlreadyExists`. */
export function alreadyExists(resource: string, name: string, group = ''): ApiError {
  return objectError(
    409,
    'AlreadyExists',
    { resource, name, group },
    (q) => `${q} "${name}" already exists`,
  );
}

/** `403 Forbidden` of a create in a namespace being deleted (NamespaceLifecycle admission). */
export function namespaceTerminating(
  resource: string,
  name: string,
  namespace: string,
  group = '',
): ApiError {
  const error = objectError(
    403,
    'Forbidden',
    { resource, name, group },
    (q) =>
      `${q} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
  );
  error.status.details = {
    ...error.status.details,
    causes: [
      {
        reason: 'NamespaceTerminating',
        message: `namespace ${namespace} is being terminated`,
        field: 'metadata.namespace',
      },
    ],
  };
  return error;
}

/** `409 Conflict`: `Operation cannot be fulfilled on configmaps "x": <why>`. */
export function conflict(resource: string, name: string, why: string, group = ''): ApiError {
  return objectError(
    409,
    'Conflict',
    { resource, name, group },
    (q) => `Operation cannot be fulfilled on ${q} "${name}": ${why}`,
  );
}

/** The message of a stale-resourceVersion conflict. */
export const OBJECT_MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again';

/** `422 Invalid`: `ConfigMap "x" is invalid: <causes>`. */
export function invalid(
  kind: string,
  name: string,
  causes: readonly Required<StatusCause>[],
  group = '',
): ApiError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  // Go's ErrorList.ToAggregate drops repeated errors from the message, not from the causes.
  const lines = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const summary = lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
  return err(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    ...(name ? { name } : {}),
    ...(group ? { group } : {}),
    // A review's Status names no kind (its validation gives none).
    ...(kind ? { kind } : {}),
    causes: causes.map((c) => ({ ...c })),
  });
}

/** `400 BadRequest`. */
export function badRequest(message: string): ApiError {
  return err(400, 'BadRequest', message);
}

/** `405 MethodNotAllowed`. */
export function methodNotAllowed(verb: string, resource: string, custom = false): ApiError {
  // Built-in resources are routed by go-restful, whose 405 names nothing; the custom-resource
  // handler names the verb and the kind.
  if (!custom) {
    return err(405, 'MethodNotAllowed', METHOD_NOT_ALLOWED, {});
  }
  return err(
    405,
    'MethodNotAllowed',
    `${verb} is not supported on resources of kind "${resource}"`,
    {},
  );
}

const METHOD_NOT_ALLOWED = 'the server does not allow this method on the requested resource';

/** `415 UnsupportedMediaType`. */
export function unsupportedMediaType(contentType: string): ApiError {
  return err(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json (got ${contentType})`,
  );
}

/** `410 Expired` for a list at a compacted resourceVersion. */
export function resourceExpired(message: string, continueToken?: string): ApiError {
  const status = failure(410, 'Expired', message);
  if (continueToken !== undefined) status.metadata = { continue: continueToken };
  return new ApiError(status);
}

/** `500 InternalError`. */
export function internalError(message: string): ApiError {
  return err(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}
