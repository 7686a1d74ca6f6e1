import type { Agent, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { nodeCrypto, nodeHttp, nodeHttps } from './builtins.js';
import type { PemData } from './config.js';
import { isTransportError } from './errors.js';

/** The TLS settings a pooled connection is made with. */
export interface TransportTLS {
  ca?: PemData | undefined;
  cert?: PemData | undefined;
  key?: PemData | undefined;
  insecureSkipVerify?: boolean | undefined;
  serverName?: string | undefined;
}

function pemBuffer(data: PemData | undefined): Buffer | undefined {
  if (data === undefined) return undefined;
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
}

// Like client-go's TLS transport cache: clients with the same TLS settings share one
// keep-alive pool instead of each opening its own connections.
const agents = new Map<string, Agent>();

/** How long an idle TCP connection waits between keep-alive probes (client-go uses 30 s). */
const keepAliveMsecs = 30_000;

/** The pooled keep-alive agent for a protocol and TLS settings. */
export function agentFor(protocol: string, tls: TransportTLS): Agent {
  const ca = pemBuffer(tls.ca);
  const cert = pemBuffer(tls.cert);
  const key = pemBuffer(tls.key);
  const hash = nodeCrypto().createHash('sha256');
  hash.update(protocol);
  for (const part of [ca, cert, key]) {
    hash.update(part ? `${part.length}:` : '-:');
    if (part) hash.update(part);
  }
  hash.update(`${tls.insecureSkipVerify === true}|${tls.serverName ?? ''}`);
  const cacheKey = hash.digest('hex');
  const cached = agents.get(cacheKey);
  if (cached) return cached;
  const agent =
    protocol === 'https:'
      ? new (nodeHttps().Agent)({
          keepAlive: true,
          keepAliveMsecs,
          ...(ca ? { ca } : {}),
          ...(cert ? { cert } : {}),
          ...(key ? { key } : {}),
          rejectUnauthorized: tls.insecureSkipVerify !== true,
          ...(tls.serverName ? { servername: tls.serverName } : {}),
        })
      : new (nodeHttp().Agent)({ keepAlive: true, keepAliveMsecs });
  agents.set(cacheKey, agent);
  return agent;
}

/** One HTTP exchange's input. */
export interface HttpExchange {
  url: URL;
  method: string;
  headers: OutgoingHttpHeaders;
  body?: Buffer | undefined;
  agent: Agent;
  /** Aborting destroys the request, and the response if it has started. */
  signal: AbortSignal;
}

/**
 * A response whose headers have arrived, over HTTP/1.1 or HTTP/2 alike: what the request
 * path reads (status, lower-case headers, the body as a stream).
 */
export interface HttpResponse {
  readonly statusCode: number;
  /** Lower-case names; repeated headers joined as Node joins them (`set-cookie` an array). */
  readonly headers: IncomingHttpHeaders;
  /** Every header as the list of its values, one per header line. */
  readonly headersDistinct: Readonly<Record<string, string[] | undefined>>;
  /** The body, unread. Destroying it closes the response (HTTP/2: only its stream). */
  readonly body: Readable;
  /** `'1.1'` or `'2.0'`, as Node's `IncomingMessage.httpVersion`. */
  readonly httpVersion: string;
}

const ignoreLateError = (): void => {};

/**
 * Sends a request over HTTP/1.1 through the exchange's agent and resolves with the
 * response as soon as its headers arrive; the body is left unread for the caller to
 * consume (buffered or streamed).
 */
export async function sendHttpRequest(exchange: HttpExchange): Promise<HttpResponse> {
  const incoming = await sendHttp1Request(exchange);
  return {
    statusCode: incoming.statusCode ?? 0,
    headers: incoming.headers,
    // Node builds this object on each read; most responses carry no header it is read for.
    get headersDistinct() {
      return incoming.headersDistinct;
    },
    body: incoming,
    httpVersion: incoming.httpVersion,
  };
}

function sendHttp1Request(exchange: HttpExchange): Promise<IncomingMessage> {
  const { url, method, headers, body, agent, signal } = exchange;
  return new Promise<IncomingMessage>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const send = url.protocol === 'https:' ? nodeHttps().request : nodeHttp().request;
    const request = send(url, { method, headers, agent });
    let response: IncomingMessage | undefined;
    const onAbort = (): void => {
      if (response) response.destroy(signal.reason);
      request.destroy(signal.reason);
      // Node reports the destroyed request as an 'error'; Deno's node:https does not, and may
      // still deliver the response (refused below).
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    request.once('response', (incoming) => {
      if (signal.aborted) {
        incoming.destroy(signal.reason);
        return;
      }
      response = incoming;
      // Errors after this point surface on the response stream; keep the request from
      // raising them as uncaught.
      request.removeListener('error', onRequestError);
      request.on('error', ignoreLateError);
      incoming.once('close', () => signal.removeEventListener('abort', onAbort));
      resolve(incoming);
    });
    const onRequestError = (err: Error): void => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    };
    request.once('error', onRequestError);
    request.end(body);
  });
}

/** The Node error code of a network failure, when it has one. */
export function networkErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The message of a network failure for an error report: Node's HTTP/2 errors do not name
 * their code in the message ("Stream closed with error code NGHTTP2_REFUSED_STREAM"), so
 * it is added.
 */
export function networkErrorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = networkErrorCode(err);
  if (code?.startsWith('ERR_HTTP2_') && !message.includes(code)) return `${message} (${code})`;
  return message;
}

/** True when `err` has a Node error code and it is one of `codes`. */
function hasNetworkErrorCodeIn(err: unknown, codes: ReadonlySet<string>): boolean {
  const code = networkErrorCode(err);
  return code !== undefined && codes.has(code);
}

// Node's codes for what Go's net.IsProbableEOF and net.IsConnectionReset recognise: the
// connection closed or was reset before an answer (often a pooled keep-alive connection the
// server had just closed). A refused connection is not among them: nothing is listening, so
// client-go reports it at once.
// Over HTTP/2 the same loss shows as the session or stream going away: a GOAWAY, a session
// error, a stream reset (REFUSED_STREAM: the server did not act on it) or cancelled with its
// session, a session closed for an unanswered PING (see http2-transport.ts).
const connectionLostCodes: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_INVALID_SESSION',
  'ERR_HTTP2_PING_CANCEL',
  'ERR_HTTP2_PING_TIMEOUT',
]);

/**
 * Errors after which a GET may safely be sent again (client-go's `request` retry rule): the
 * connection was reset or closed before an answer.
 */
export function isRetryableConnectionError(err: unknown): boolean {
  return hasNetworkErrorCodeIn(err, connectionLostCodes);
}

/**
 * True when the connection to the server was refused (`ECONNREFUSED`, on the error or, for a
 * `TransportError`, on its Node cause): nothing listens there, the server is down or
 * restarting. A reflector resumes its watch once it is back instead of relisting.
 */
export function isConnectionRefused(err: unknown): boolean {
  if (networkErrorCode(err) === refusedCode) return true;
  return isTransportError(err) && networkErrorCode(err.cause) === refusedCode;
}

const refusedCode = 'ECONNREFUSED';

/**
 * Errors client-go's `Watch` retries, and after the last retry answers with an empty watch
 * rather than an error: the connection was lost (as {@link isRetryableConnectionError}) or
 * timed out at the socket.
 */
export function isRetryableWatchError(err: unknown): boolean {
  return isRetryableConnectionError(err) || networkErrorCode(err) === 'ETIMEDOUT';
}

// OpenSSL verification results and Node's host-name check: the server's certificate was
// presented but not trusted. A failed handshake for other reasons (protocol mismatch, a
// rejected client certificate) has other codes.
const tlsVerificationCodes: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** True when the server's TLS certificate failed verification (untrusted, expired, wrong name). */
export function isTLSVerificationError(err: unknown): boolean {
  return hasNetworkErrorCodeIn(err, tlsVerificationCodes);
}

/**
 * Explains a failed server-certificate verification and what to configure: which CA was
 * trusted, and the kubeconfig fields (and `Config` fields) that change it. Never includes
 * credentials.
 */
export function describeTLSVerificationError(
  err: unknown,
  tls: { caConfigured: boolean; serverName?: string | undefined },
): string {
  const code = networkErrorCode(err) ?? 'unknown';
  const detail = err instanceof Error ? err.message.split(';', 1)[0]?.trim() : undefined;
  const what = `TLS verification of the server certificate failed (${detail || code}, ${code})`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    return `${what}: the certificate is not valid for this host name; connect to a name it lists, or set tls-server-name (Config.tls.serverName${tls.serverName ? `, now "${tls.serverName}"` : ''}) to one`;
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return `${what}: the server's certificate is outside its validity period (check the server's certificate and this machine's clock)`;
  }
  const trusted = tls.caConfigured
    ? "the server's certificate is not signed by the configured certificate-authority (Config.tls.caData)"
    : "no certificate-authority is configured, and Node.js's default CAs do not trust the server's certificate";
  return `${what}: ${trusted}; set certificate-authority / certificate-authority-data (Config.tls.caData) to the CA that signed the server's certificate, or, for a test cluster only, insecure-skip-tls-verify: true (Config.tls.insecureSkipVerify)`;
}
