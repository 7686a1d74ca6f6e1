import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

const generateKeyPairAsync = promisify(generateKeyPair);

/** A PEM certificate and its PEM private key. */
export interface CertAndKey {
  /** The certificate, PEM. */
  certPem: string;
  /** Its private key, PEM. */
  keyPem: string;
}

/**
 * Everything envtest's secure serving and admin identity need (the in-memory API server of
 * `@kubets/apiserver` serves TLS with the same set).
 */
export interface EnvtestCertificates {
  /** The CA that signs the serving and client certificates (also `--client-ca-file`). */
  ca: CertAndKey;
  /** The API server's serving certificate, for 127.0.0.1 and localhost. */
  serving: CertAndKey;
  /** The admin client certificate: CN=admin, O=system:masters. */
  admin: CertAndKey;
  /** The service-account signing key (RSA, PKCS#1 PEM) and its public key (SPKI PEM). */
  serviceAccount: {
    /** The RSA private key, PKCS#1 PEM (`--service-account-signing-key-file`). */
    privateKeyPem: string;
    /** Its public key, SPKI PEM (`--service-account-key-file`). */
    publicKeyPem: string;
  };
}

interface RsaKeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
}

async function rsaKeyPair(): Promise<RsaKeyPair> {
  // Key generation runs on libuv's thread pool through node:crypto; node-forge only builds
  // and signs the certificates.
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  // A positive INTEGER: clear the top bit, and keep the first byte non-zero.
  bytes[0] = ((bytes[0] ?? 1) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

interface CertSpec {
  subject: forge.pki.CertificateField[];
  keys: RsaKeyPair;
  extensions: object[];
  issuer?: { cert: forge.pki.Certificate; keyPem: string };
  validForMs: number;
}

function buildCert(spec: CertSpec): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(spec.keys.publicKeyPem);
  cert.serialNumber = serialNumber();
  const now = Date.now();
  // Back-date a little so a slightly different clock in the server does not reject it.
  cert.validity.notBefore = new Date(now - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(now + spec.validForMs);
  cert.setSubject(spec.subject);
  cert.setIssuer(spec.issuer ? spec.issuer.cert.subject.attributes : spec.subject);
  const extensions: object[] = [
    ...spec.extensions,
    { name: 'subjectKeyIdentifier' },
    ...(spec.issuer
      ? [
          {
            name: 'authorityKeyIdentifier',
            keyIdentifier: spec.issuer.cert.generateSubjectKeyIdentifier().getBytes(),
          },
        ]
      : []),
  ];
  cert.setExtensions(extensions);
  const signingKey = forge.pki.privateKeyFromPem(
    spec.issuer ? spec.issuer.keyPem : spec.keys.privateKeyPem,
  );
  cert.sign(signingKey, forge.md.sha256.create());
  return cert;
}

function toPem(cert: forge.pki.Certificate): string {
  return forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
}

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * Generates a fresh CA, a serving certificate for 127.0.0.1/localhost and an admin client
 * certificate signed by it, plus an RSA service-account key. Nothing is shared between calls.
 */
export async function generateEnvtestCertificates(): Promise<EnvtestCertificates> {
  const [caKeys, servingKeys, adminKeys, serviceAccount] = await Promise.all([
    rsaKeyPair(),
    rsaKeyPair(),
    rsaKeyPair(),
    rsaKeyPair(),
  ]);

  const caCert = buildCert({
    subject: [
      { name: 'commonName', value: 'kubets-envtest-ca' },
      { name: 'organizationName', value: 'kubets envtest' },
    ],
    keys: caKeys,
    validForMs: YEAR_MS,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      {
        name: 'keyUsage',
        keyCertSign: true,
        cRLSign: true,
        digitalSignature: true,
        critical: true,
      },
    ],
  });
  const issuer = { cert: caCert, keyPem: caKeys.privateKeyPem };

  // The serving and the admin certificate are both end-entity certificates of the CA; they
  // differ only in subject, extended key usage and (for serving) the addresses it serves.
  const leafCert = (
    subject: forge.pki.CertificateField[],
    keys: RsaKeyPair,
    extKeyUsage: object,
    ...more: object[]
  ): forge.pki.Certificate =>
    buildCert({
      subject,
      keys,
      validForMs: YEAR_MS,
      issuer,
      extensions: [
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', ...extKeyUsage },
        ...more,
      ],
    });

  const servingCert = leafCert(
    [{ name: 'commonName', value: 'kube-apiserver' }],
    servingKeys,
    { serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
      ],
    },
  );

  const adminCert = leafCert(
    [
      { name: 'commonName', value: 'admin' },
      { name: 'organizationName', value: 'system:masters' },
    ],
    adminKeys,
    { clientAuth: true },
  );

  return {
    ca: { certPem: toPem(caCert), keyPem: caKeys.privateKeyPem },
    serving: {
      certPem: toPem(servingCert),
      keyPem: servingKeys.privateKeyPem,
    },
    admin: { certPem: toPem(adminCert), keyPem: adminKeys.privateKeyPem },
    serviceAccount,
  };
}
