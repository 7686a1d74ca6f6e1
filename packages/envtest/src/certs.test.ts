import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { type EnvtestCertificates, generateEnvtestCertificates } from './certs.js';

let certs: EnvtestCertificates;
beforeAll(async () => {
  certs = await generateEnvtestCertificates();
});

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
// Where node:crypto and node:tls differ (README, Runtimes). @kubets/test-utils' onDeno and
// onBun tell the same, but test-utils depends on envtest.
const versions: Record<string, string | undefined> = process.versions;
const onDeno = versions.deno !== undefined;
const onBun = versions.bun !== undefined;

describe('generateEnvtestCertificates', () => {
  it('makes a self-signed CA that signs a serving cert for 127.0.0.1 and localhost', () => {
    const ca = new X509Certificate(certs.ca.certPem);
    const serving = new X509Certificate(certs.serving.certPem);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(serving.ca).toBe(false);
    expect(serving.checkIssued(ca)).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkHost('localhost')).toBe('localhost');
    expect(serving.checkHost('example.com')).toBeUndefined();
    expect(serving.checkPrivateKey(createPrivateKey(certs.serving.keyPem))).toBe(true);
  });

  it('makes an admin client cert in system:masters signed by the same CA', () => {
    const ca = new X509Certificate(certs.ca.certPem);
    const admin = new X509Certificate(certs.admin.certPem);
    expect(admin.subject.split('\n').sort()).toEqual(['CN=admin', 'O=system:masters']);
    expect(admin.checkIssued(ca)).toBe(true);
    expect(admin.verify(ca.publicKey)).toBe(true);
    expect(admin.checkPrivateKey(createPrivateKey(certs.admin.keyPem))).toBe(true);
  });

  // Deno's X509Certificate#keyUsage lists the key usages (DigitalSignature, ...), not the
  // extended ones.
  it.skipIf(onDeno)('gives the serving cert serverAuth and the admin cert clientAuth', () => {
    expect(new X509Certificate(certs.serving.certPem).keyUsage).toContain(SERVER_AUTH);
    expect(new X509Certificate(certs.admin.certPem).keyUsage).toContain(CLIENT_AUTH);
  });

  it('makes a matching RSA service-account key pair', () => {
    const fromPrivate = createPublicKey(certs.serviceAccount.privateKeyPem);
    expect(fromPrivate.asymmetricKeyType).toBe('rsa');
    expect(fromPrivate.export({ type: 'spki', format: 'pem' })).toBe(
      certs.serviceAccount.publicKeyPem,
    );
  });

  it('is fresh on every call', async () => {
    const other = await generateEnvtestCertificates();
    expect(other.ca.certPem).not.toBe(certs.ca.certPem);
    expect(other.serviceAccount.privateKeyPem).not.toBe(certs.serviceAccount.privateKeyPem);
  });

  // Bun's TLS sockets have no getPeerCertificate() on the server side.
  it.skipIf(onBun)(
    'works for mutual TLS over loopback: server verified by the CA, admin by the server',
    async () => {
      const server = createServer(
        {
          cert: certs.serving.certPem,
          key: certs.serving.keyPem,
          ca: certs.ca.certPem,
          requestCert: true,
          rejectUnauthorized: false,
        },
        (req, res) => {
          const socket = req.socket as TLSSocket;
          const peer = socket.getPeerCertificate();
          res.end(JSON.stringify({ authorized: socket.authorized, cn: peer.subject?.CN ?? null }));
        },
      );
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      const get = (withClientCert: boolean) =>
        new Promise<string>((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/',
              agent: false,
              ca: certs.ca.certPem,
              ...(withClientCert ? { cert: certs.admin.certPem, key: certs.admin.keyPem } : {}),
            },
            (res) => {
              let body = '';
              res.on('data', (chunk: Buffer) => {
                body += chunk.toString();
              });
              res.on('end', () => resolve(body));
            },
          );
          req.on('error', reject);
          req.end();
        });
      try {
        expect(JSON.parse(await get(true))).toEqual({ authorized: true, cn: 'admin' });
        expect(JSON.parse(await get(false))).toEqual({ authorized: false, cn: null });
      } finally {
        server.close();
      }
    },
  );
});
