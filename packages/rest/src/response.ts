import type { IncomingMessage } from 'node:http';
import { type Status, StatusError, statusFromHttp } from '@kubets/apimachinery';

const maxErrorBodyLength = 1024;

export function retryAfterSeconds(response: IncomingMessage): number | undefined {
  const code = response.statusCode ?? 0;
  // Only throttling and server-side errors carry a usable Retry-After, as in client-go.
  if (code !== 429 && code < 500) return undefined;
  const header = response.headers['retry-after'];
  if (header === undefined || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Number.parseInt(header, 10);
}

export function isStatusObject(value: unknown): value is Status {
  return (
    typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status'
  );
}

export function errorFromResponse(response: IncomingMessage, body: Buffer): StatusError {
  const statusCode = response.statusCode ?? 0;
  const retryAfter = retryAfterSeconds(response);
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isStatusObject(parsed)) {
    const status: Status = { ...parsed, code: parsed.code || statusCode };
    if (retryAfter !== undefined && status.details?.retryAfterSeconds === undefined) {
      status.details = { ...status.details, retryAfterSeconds: retryAfter };
    }
    return new StatusError(status);
  }
  const trimmed = text.trim();
  const message =
    trimmed.length > maxErrorBodyLength ? `${trimmed.slice(0, maxErrorBodyLength)}...` : trimmed;
  return new StatusError(statusFromHttp(statusCode, message, retryAfter));
}

export async function readBody(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
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
