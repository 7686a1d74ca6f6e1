import { newGenericServerResponse, type Status, StatusError } from '@kubets/apimachinery';
import type { HttpResponse } from './transport.js';

/**
 * The `Retry-After` seconds of an answer. Only a 429 or 5xx asks for a retry, as in
 * client-go, unless `anyCode` (the value an error reports).
 */
export function retryAfterSeconds(
  response: HttpResponse,
  options: { anyCode?: boolean } = {},
): number | undefined {
  const code = response.statusCode;
  if (!options.anyCode && code !== 429 && code < 500) return undefined;
  const header = response.headers['retry-after'];
  if (header === undefined || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Number.parseInt(header, 10);
}

export function isStatusObject(value: unknown): value is Status {
  return (
    typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status'
  );
}

/** What the failed request asked for, for the error's message and details. */
export interface FailedRequest {
  readonly method: string;
  readonly resource: string | undefined;
  readonly group: string;
  readonly name: string | undefined;
}

// client-go's bound on the body text quoted in an error for an answer that is not a Status.
const maxUnstructuredResponseTextBytes = 2048;

function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined || contentType.trim() === '') return '';
  const media = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  // Go's mime.ParseMediaType, which client-go uses, accepts a bare token ("foobar") as a
  // media type; only a malformed type/subtype pair does not parse.
  return /^[!#$%&'*+.^_`|~0-9a-z-]+(\/[!#$%&'*+.^_`|~0-9a-z-]+)?$/.test(media) ? media : undefined;
}

/**
 * The media type of a `Content-Type` header: `''` when there is none, `undefined` when it
 * does not parse.
 */
export function responseMediaType(response: HttpResponse): string | undefined {
  return mediaTypeOf(response.headers['content-type']);
}

/**
 * The error for a non-2xx answer, as client-go builds it: the body's Status when it is a
 * JSON Status reporting `Failure`; otherwise the generic error for the code, quoting the
 * body only when it is text (no `Content-Type`, or `text/*`).
 */
export function errorFromResponse(
  response: HttpResponse,
  body: Buffer,
  request: FailedRequest,
): StatusError {
  const statusCode = response.statusCode;
  const media = responseMediaType(response);
  if (media === '' || media === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    // A Status that does not say Failure (a Success on a 400, say) is no explanation.
    if (isStatusObject(parsed) && parsed.status === 'Failure') {
      const status: Status = { ...parsed, code: parsed.code || statusCode };
      const retryAfter = retryAfterSeconds(response);
      if (retryAfter !== undefined && status.details?.retryAfterSeconds === undefined) {
        status.details = { ...status.details, retryAfterSeconds: retryAfter };
      }
      return new StatusError(status);
    }
  }
  const isText = media === '' || media?.startsWith('text/') === true;
  const text = body.subarray(0, maxUnstructuredResponseTextBytes).toString('utf8').trim();
  return new StatusError(
    newGenericServerResponse({
      code: statusCode,
      verb: request.method,
      resource: request.resource,
      group: request.resource ? request.group : '',
      name: request.name,
      serverMessage: isText ? text : 'unknown',
      retryAfterSeconds: retryAfterSeconds(response, { anyCode: true }),
      isUnexpectedResponse: true,
    }),
  );
}

export async function readBody(response: HttpResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
  } catch (err) {
    // An HTTP/2 server may reset the stream (NO_ERROR) right after a complete answer when it
    // answered before the end of the request body arrived (Go's does, having read as many
    // bytes as Content-Length said); the stream then closes before its 'end' event. Every
    // byte of the answer arrived, so it stands.
    const prematureClose =
      (err as { code?: unknown } | null)?.code === 'ERR_STREAM_PREMATURE_CLOSE';
    if (!(prematureClose && response.body.readableEnded)) throw err;
  }
  return Buffer.concat(chunks);
}

export function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/**
 * The error a decoded 2xx body stands for, if any: a `Status` reporting `Failure` is an
 * error even inside a 2xx answer, as in client-go. A list's `items` are not part of it.
 */
export function failureInSuccess(decoded: unknown, statusCode: number): StatusError | undefined {
  if (!isStatusObject(decoded) || decoded.status !== 'Failure') return undefined;
  const { items: _items, ...status } = decoded as Status & { items?: unknown };
  return new StatusError({ ...status, code: status.code || statusCode });
}
