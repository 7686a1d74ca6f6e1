import {
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

/** TLS material for probing the API server as the admin user. */
export interface ProbeTls {
  ca: string;
  cert: string;
  key: string;
}

/**
 * Opens a request to `url` over HTTP or HTTPS (with the client identity and CA of `tls`),
 * whichever its protocol says.
 */
function openRequest(
  url: URL,
  options: RequestOptions,
  tls: ProbeTls | undefined,
  onResponse: (res: IncomingMessage) => void,
): ClientRequest {
  if (url.protocol !== 'https:') return httpRequest(url, options, onResponse);
  const identity = tls ? { ca: tls.ca, cert: tls.cert, key: tls.key } : {};
  return httpsRequest(url, { ...options, ...identity }, onResponse);
}

/** Status and body of a probe. */
export interface ProbeResponse {
  status: number;
  body: string;
}

/**
 * One GET over a fresh connection (no agent, so nothing lingers after a test), with a
 * per-request timeout. Rejects on connection errors, timeouts and abort.
 */
export function probeGet(
  url: string,
  options: { tls?: ProbeTls; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<ProbeResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const common = {
      method: 'GET',
      agent: false as const,
      headers: { accept: 'application/json' },
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const onResponse = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    };
    const req = openRequest(target, common, options.tls, onResponse);
    req.setTimeout(options.timeoutMs ?? 5_000, () => {
      req.destroy(new Error(`GET ${url} timed out`));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Calls `check` every `intervalMs` until it returns true. Errors from `check` count as "not
 * yet" and the last one is kept for the caller's message. Stops with the signal's reason.
 */
export async function pollUntil(
  check: () => Promise<boolean>,
  signal: AbortSignal,
  intervalMs: number,
  onError?: (error: unknown) => void,
): Promise<void> {
  for (;;) {
    signal.throwIfAborted();
    try {
      if (await check()) return;
    } catch (error) {
      signal.throwIfAborted();
      onError?.(error);
    }
    await sleep(intervalMs, undefined, { signal });
  }
}
