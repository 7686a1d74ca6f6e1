// What the server tests share: serving certificates on disk (signed by a fresh CA, for
// 127.0.0.1 and localhost) and an HTTPS client trusting that CA.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerCertificate, SecureVersion } from 'node:tls';
import { type EnvtestCertificates, generateEnvtestCertificates } from '@kubets/envtest';

/** A certificate directory holding `tls.crt` and `tls.key`. */
export interface CertDir {
  readonly dir: string;
  /** The CA of the pair on disk now. */
  caPem: string;
  /** Replaces the pair on disk (written beside, then renamed into place, as a Secret volume does). */
  rotate(): Promise<EnvtestCertificates>;
  readonly cleanup: () => Promise<void>;
}

export async function certDir(): Promise<CertDir> {
  const dir = await mkdtemp(join(tmpdir(), 'kubets-webhook-'));
  const write = async (): Promise<EnvtestCertificates> => {
    const certs = await generateEnvtestCertificates();
    await writeFile(join(dir, 'tls.crt.new'), certs.serving.certPem);
    await writeFile(join(dir, 'tls.key.new'), certs.serving.keyPem);
    await rename(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
    await rename(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
    return certs;
  };
  const first = await write();
  const result: CertDir = {
    dir,
    caPem: first.ca.certPem,
    async rotate() {
      const certs = await write();
      result.caPem = certs.ca.certPem;
      return certs;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
  return result;
}

export interface PostOptions {
  readonly ca: string;
  readonly contentType?: string | undefined;
  readonly method?: string;
  readonly maxVersion?: SecureVersion;
  readonly minVersion?: SecureVersion;
}

export interface Posted {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
  readonly peerCertificate: PeerCertificate;
}

/** Sends `body` to `https://127.0.0.1:<port><path>` and reads the whole answer. */
export function post(
  port: number,
  path: string,
  body: string | Buffer | undefined,
  options: PostOptions,
): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        ca: options.ca,
        servername: 'localhost',
        agent: false,
        ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
        ...(options.minVersion ? { minVersion: options.minVersion } : {}),
        headers: {
          ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }),
          ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({
            status: res.statusCode ?? 0,
            body: parsed,
            text,
            peerCertificate: (res.socket as import('node:tls').TLSSocket).getPeerCertificate(),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** An AdmissionReview request body for a CREATE of `object`. */
export function admissionReview(object: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'demo.example.com', version: 'v1', kind: 'Mydemo' },
      resource: { group: 'demo.example.com', version: 'v1', resource: 'mydemos' },
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object,
      ...extra,
    },
  });
}
