import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

/** TLS material for probing the API server as the admin user. */
export interface ProbeTls {
  ca: string;
  cert: string;
  key: string;
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
    const req =
      target.protocol === 'https:'
        ? httpsRequest(
            target,
            {
              ...common,
              ...(options.tls
                ? { ca: options.tls.ca, cert: options.tls.cert, key: options.tls.key }
                : {}),
            },
            onResponse,
          )
        : httpRequest(target, common, onResponse);
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
