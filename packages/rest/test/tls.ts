// Test fixtures: X.509 certificates made on the fly with node:crypto alone (a few lines
// of DER, ECDSA P-256), and loopback HTTPS servers using them. No openssl binary and no
// extra dependency, so the TLS tests never skip.
import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

function der(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else if (length < 0x100) header = Buffer.from([tag, 0x81, length]);
  else header = Buffer.from([tag, 0x82, length >> 8, length & 0xff]);
  return Buffer.concat([header, content]);
}

const sequence = (...parts: Buffer[]): Buffer => der(0x30, Buffer.concat(parts));
const explicit = (n: number, inner: Buffer): Buffer => der(0xa0 + n, inner);
const octets = (content: Buffer): Buffer => der(0x04, content);
const bits = (content: Buffer, unused = 0): Buffer =>
  der(0x03, Buffer.concat([Buffer.from([unused]), content]));
const boolTrue = der(0x01, Buffer.from([0xff]));

function integer(bytes: Buffer): Buffer {
  return der(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const out = [first * 40 + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) chunk.unshift((value & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return der(0x06, Buffer.from(out));
}

function name(commonName: string): Buffer {
  const attribute = sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(commonName, 'utf8')));
  return sequence(der(0x31, attribute));
}

function utcTime(date: Date): Buffer {
  const text = `${date.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`;
  return der(0x17, Buffer.from(text, 'ascii'));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(id), boolTrue, octets(value)) : sequence(oid(id), octets(value));
}

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));

/** A certificate and its key, PEM. */
export interface TestCert {
  certPem: string;
  keyPem: string;
  /** The private key, to sign other certificates with. */
  key: KeyObject;
  commonName: string;
}

function toPem(label: string, body: Buffer): string {
  const lines = body.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * Makes a certificate: a CA (`ca: true`) or a serving certificate for 127.0.0.1 and
 * localhost, signed by `issuer` or by itself.
 */
export function makeCert(options: {
  commonName: string;
  ca?: boolean;
  issuer?: TestCert;
}): TestCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 1) & 0x7f) | 0x01;
  const extensions = options.ca
    ? [
        extension('2.5.29.19', true, sequence(boolTrue)),
        // digitalSignature (to serve as a self-signed server too), keyCertSign, cRLSign.
        extension('2.5.29.15', true, bits(Buffer.from([0x86]), 1)),
      ]
    : [extension('2.5.29.19', true, sequence())];
  extensions.push(
    extension(
      '2.5.29.17',
      false,
      sequence(der(0x87, Buffer.from([127, 0, 0, 1])), der(0x82, Buffer.from('localhost'))),
    ),
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    name(options.issuer?.commonName ?? options.commonName),
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    name(options.commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, options.issuer?.key ?? privateKey);
  const cert = sequence(tbs, ecdsaWithSha256, bits(signature));
  return {
    certPem: toPem('CERTIFICATE', cert),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    key: privateKey,
    commonName: options.commonName,
  };
}

/** A CA and a serving certificate for 127.0.0.1 it signed. */
export function makeCertChain(caName: string): { ca: TestCert; serving: TestCert } {
  const ca = makeCert({ commonName: caName, ca: true });
  return { ca, serving: makeCert({ commonName: `${caName} server`, issuer: ca }) };
}

/** A loopback HTTPS server. */
export interface TlsServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** How many requests got through the handshake to the handler. */
  requests: number;
  close(): Promise<void>;
}

/** Starts an HTTPS server on 127.0.0.1 with `cert`, answering with `handler`. */
export async function startTlsServer(
  cert: TestCert,
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<TlsServer> {
  const server = createServer({ cert: cert.certPem, key: cert.keyPem }, (request, response) => {
    state.requests++;
    handler(request, response);
  });
  // Handshake failures are the point of these servers; keep them out of the test output.
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state: TlsServer = {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

/** A loopback HTTP/2 server over TLS. */
export interface Http2TlsServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** The sessions clients opened, oldest first. */
  sessions: ServerHttp2Session[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP/2 server on 127.0.0.1 with `cert` (ALPN `h2` only, unless `allowHTTP1`),
 * answering with `handler` (Node's HTTP/1-compatible request and response); with
 * `maxConcurrentStreams`, it allows clients that many streams per session.
 */
export async function startHttp2TlsServer(
  cert: TestCert,
  handler: (request: Http2ServerRequest, response: Http2ServerResponse) => void,
  options: { allowHTTP1?: boolean; maxConcurrentStreams?: number } = {},
): Promise<Http2TlsServer> {
  const server = createSecureServer(
    {
      cert: cert.certPem,
      key: cert.keyPem,
      allowHTTP1: options.allowHTTP1 === true,
      ...(options.maxConcurrentStreams === undefined
        ? {}
        : { settings: { maxConcurrentStreams: options.maxConcurrentStreams } }),
    },
    handler,
  );
  const sessions: ServerHttp2Session[] = [];
  server.on('session', (session) => {
    sessions.push(session);
    // A client resetting its session is part of what these tests do.
    session.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}
