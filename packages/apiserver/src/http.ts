import type { IncomingMessage, ServerResponse } from 'node:http';
import type { View } from './render.js';
import { ApiError, failure } from './status.js';

/** One API request: the raw request and response, its parsed URL and its whole body. */
export class RequestContext {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly url: URL,
    readonly body: Buffer,
  ) {}

  get query(): URLSearchParams {
    return this.url.searchParams;
  }

  get view(): View {
    const accept = this.req.headers.accept ?? '';
    if (!/as=PartialObjectMetadata/.test(accept)) return 'full';
    // The version of the first media type asking for PartialObjectMetadata(List).
    const range = accept.split(',').find((r) => /as=PartialObjectMetadata/.test(r)) ?? '';
    return /;\s*v=v1beta1\b/.test(range) ? 'meta.k8s.io/v1beta1' : 'meta.k8s.io/v1';
  }
}

/** Writes a JSON response with kube-apiserver's headers. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** The plain-text 404 kube-apiserver answers for paths it does not serve at all. */
export function sendText404(res: ServerResponse): void {
  const body = '404 page not found\n';
  res.writeHead(404, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Writes an {@link ApiError} as its `Status`. */
export function sendError(
  res: ServerResponse,
  error: ApiError,
  headers: Record<string, string> = {},
): void {
  sendJson(res, error.code, JSON.stringify(error.status), headers);
}

/** Reads the whole body, failing with 413 beyond `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(
          new ApiError(
            failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),
          ),
        );
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Whether the query asks for a watch (`watch=true` or `watch=1`). */
export function isWatchQuery(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value === 'true' || value === '1';
}
