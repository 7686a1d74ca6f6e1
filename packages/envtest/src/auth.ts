// Client-certificate authentication, as controller-runtime's CertAuthn sets it up: one CA
// signs kube-apiserver's serving certificate and the admin user's client certificate, and is
// kube-apiserver's --client-ca-file.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvtestCertificates } from './certs.js';
import { renderKubeconfig } from './kubeconfig.js';
import type { ProbeTls } from './probe.js';

/** Where the certificates and keys are written, for kube-apiserver's flags. */
export interface CertPaths {
  readonly certDir: string;
  readonly caCert: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly saPublic: string;
  readonly saPrivate: string;
}

/** The certificate files' paths under `dir/certs`. */
export function certPathsIn(dir: string): CertPaths {
  const certDir = join(dir, 'certs');
  return {
    certDir,
    caCert: join(certDir, 'ca.crt'),
    servingCert: join(certDir, 'apiserver.crt'),
    servingKey: join(certDir, 'apiserver.key'),
    adminCert: join(certDir, 'admin.crt'),
    adminKey: join(certDir, 'admin.key'),
    saPublic: join(certDir, 'sa.pub'),
    saPrivate: join(certDir, 'sa.key'),
  };
}

/** Writes `certs` to `paths`, private keys readable by the owner only. */
export async function writeCertificates(
  paths: CertPaths,
  certs: EnvtestCertificates,
): Promise<void> {
  await mkdir(paths.certDir, { mode: 0o700 });
  const secret = { mode: 0o600 } as const;
  await Promise.all([
    writeFile(paths.caCert, certs.ca.certPem),
    writeFile(paths.servingCert, certs.serving.certPem),
    writeFile(paths.servingKey, certs.serving.keyPem, secret),
    writeFile(paths.adminCert, certs.admin.certPem),
    writeFile(paths.adminKey, certs.admin.keyPem, secret),
    writeFile(paths.saPublic, certs.serviceAccount.publicKeyPem),
    writeFile(paths.saPrivate, certs.serviceAccount.privateKeyPem, secret),
  ]);
}

/** The admin user's identity and the CA, for talking to kube-apiserver. */
export function adminTls(certs: EnvtestCertificates): ProbeTls {
  return { ca: certs.ca.certPem, cert: certs.admin.certPem, key: certs.admin.keyPem };
}

/** A kubeconfig for the admin user of the API server at `host`: context `envtest`. */
export function adminKubeconfig(host: string, tls: ProbeTls): string {
  return renderKubeconfig({
    server: host,
    caPem: tls.ca,
    certPem: tls.cert,
    keyPem: tls.key,
    context: 'envtest',
    user: 'admin',
  });
}
