import { request } from 'node:https';

/** Who a request is made as: a client certificate, a bearer token, or no one. */
export interface HttpsIdentity {
  /** The CA that signed the server's certificate (PEM). */
  readonly ca: string;
  /** A client certificate and key (PEM). */
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  /** A bearer token. */
  readonly token?: string | undefined;
}

/** Status and body of a {@link requestJson}. */
export interface JsonAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * One request with a JSON body (if any) over a fresh connection (no agent: nothing lingers),
 * with a 10 s timeout. Rejects on connection errors, the timeout and abort.
 */
export function requestJson(
  method: string,
  url: string,
  identity: HttpsIdentity,
  options: { body?: unknown; signal?: AbortSignal | undefined } = {},
): Promise<JsonAnswer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent: false,
        ca: identity.ca,
        ...(identity.cert && identity.key ? { cert: identity.cert, key: identity.key } : {}),
        headers: {
          accept: 'application/json',
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...(identity.token ? { authorization: `Bearer ${identity.token}` } : {}),
        },
        timeout: 10_000,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out after 10 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}
