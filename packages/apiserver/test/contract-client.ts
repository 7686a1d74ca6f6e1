import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Where the contract suite sends its requests. */
export interface ContractEndpoint {
  /** `http(s)://127.0.0.1:PORT`. */
  host: string;
  /** PEM CA and client identity, for HTTPS servers. */
  tls?: { ca: string; cert: string; key: string } | undefined;
}

/** An HTTP answer: status, headers and the body as text and (when it is JSON) parsed. */
export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
  /** The body as received (for binary answers such as protobuf). */
  bytes: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: test helper: bodies are inspected freely.
  json: any;
}

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

function send(
  endpoint: ContractEndpoint,
  method: string,
  path: string,
  options: RawRequestOptions,
  onResponse: (res: IncomingMessage) => void,
): ClientRequest {
  const url = new URL(path, endpoint.host);
  const payload =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string' || Buffer.isBuffer(options.body)
        ? options.body
        : JSON.stringify(options.body);
  const common = {
    method,
    agent: false as const,
    headers: {
      accept: 'application/json',
      ...(payload !== undefined
        ? {
            'content-type': options.contentType ?? 'application/json',
            'content-length': String(Buffer.byteLength(payload)),
          }
        : {}),
      ...options.headers,
    },
  };
  const req =
    url.protocol === 'https:'
      ? httpsRequest(url, { ...common, ...endpoint.tls }, onResponse)
      : httpRequest(url, common, onResponse);
  req.end(payload);
  return req;
}

/** One request over a fresh connection; resolves with the whole body. */
export function rawRequest(
  endpoint: ContractEndpoint,
  method: string,
  path: string,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = send(endpoint, method, path, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** A watch event as decoded from one line. */
export interface RawWatchEvent {
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: test helper: objects are inspected freely.
  object: any;
}

/** An open watch: events in arrival order, then `'closed'` once the server ended the stream. */
export interface RawWatch {
  status: number;
  headers: IncomingMessage['headers'];
  /** The next event, `'closed'` when the stream ended, or `'timeout'` after `timeoutMs`. */
  next(timeoutMs?: number): Promise<RawWatchEvent | 'closed' | 'timeout'>;
  /** Collects events until `count` arrived, the stream ended or `timeoutMs` passed. */
  take(count: number, timeoutMs?: number): Promise<RawWatchEvent[]>;
  /** Collects events up to and including the first that `last` accepts (or the end/timeout). */
  takeUntil(last: (event: RawWatchEvent) => boolean, timeoutMs?: number): Promise<RawWatchEvent[]>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** Lines that were not JSON. */
  readonly garbage: string[];
  close(): void;
}

/** Opens a watch (the path should carry `watch=true`); resolves once headers arrived. */
export function rawWatch(
  endpoint: ContractEndpoint,
  path: string,
  options: RawRequestOptions = {},
): Promise<RawWatch> {
  return new Promise((resolve, reject) => {
    const queue: (RawWatchEvent | 'closed')[] = [];
    const waiters: ((value: RawWatchEvent | 'closed') => void)[] = [];
    const garbage: string[] = [];
    let endedResolve: () => void = () => {};
    const ended = new Promise<void>((r) => {
      endedResolve = r;
    });
    const push = (value: RawWatchEvent | 'closed'): void => {
      const waiter = waiters.shift();
      if (waiter) waiter(value);
      else queue.push(value);
    };
    const req = send(endpoint, 'GET', path, options, (res) => {
      let buffer = '';
      let closed = false;
      const finish = (): void => {
        if (closed) return;
        closed = true;
        push('closed');
        endedResolve();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let at = buffer.indexOf('\n');
        while (at >= 0) {
          const line = buffer.slice(0, at).trim();
          buffer = buffer.slice(at + 1);
          if (line) {
            try {
              push(JSON.parse(line) as RawWatchEvent);
            } catch {
              garbage.push(line);
            }
          }
          at = buffer.indexOf('\n');
        }
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      const next = (timeoutMs = 10_000): Promise<RawWatchEvent | 'closed' | 'timeout'> => {
        const queued = queue.shift();
        if (queued !== undefined) return Promise.resolve(queued);
        if (closed) return Promise.resolve('closed');
        return new Promise((resolveNext) => {
          const timer = setTimeout(() => {
            const i = waiters.indexOf(waiter);
            if (i >= 0) waiters.splice(i, 1);
            resolveNext('timeout');
          }, timeoutMs);
          const waiter = (value: RawWatchEvent | 'closed'): void => {
            clearTimeout(timer);
            resolveNext(value);
          };
          waiters.push(waiter);
        });
      };
      const collect = async (
        timeoutMs: number,
        done: (out: RawWatchEvent[]) => boolean,
      ): Promise<RawWatchEvent[]> => {
        const deadline = Date.now() + timeoutMs;
        const out: RawWatchEvent[] = [];
        while (!done(out)) {
          const event = await next(Math.max(1, deadline - Date.now()));
          if (event === 'closed' || event === 'timeout') break;
          out.push(event);
        }
        return out;
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        next,
        take(count, timeoutMs = 10_000) {
          return collect(timeoutMs, (out) => out.length >= count);
        },
        takeUntil(last, timeoutMs = 30_000) {
          return collect(
            timeoutMs,
            (out) => out.length > 0 && last(out[out.length - 1] as RawWatchEvent),
          );
        },
        ended,
        garbage,
        close() {
          req.destroy();
          finish();
        },
      });
    });
    req.on('error', (error) => {
      reject(error);
    });
  });
}
