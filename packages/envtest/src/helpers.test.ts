import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { renderFlags } from './arguments.js';
import { generateEnvtestCertificates } from './certs.js';
import { renderKubeconfig } from './kubeconfig.js';
import { freeLoopbackPorts } from './ports.js';

describe('renderFlags', () => {
  it('merges overrides over defaults: replace, repeat, remove, add', () => {
    expect(
      renderFlags(
        { 'secure-port': '6443', 'authorization-mode': 'RBAC', 'allow-privileged': 'true' },
        {
          'authorization-mode': 'AlwaysAllow',
          '--allow-privileged': null,
          'runtime-config': ['api/all=true', 'batch/v2alpha1=true'],
        },
      ),
    ).toEqual([
      '--secure-port=6443',
      '--authorization-mode=AlwaysAllow',
      '--runtime-config=api/all=true',
      '--runtime-config=batch/v2alpha1=true',
    ]);
  });
});

describe('freeLoopbackPorts', () => {
  it('returns distinct ports that can be bound on 127.0.0.1', async () => {
    const ports = await freeLoopbackPorts(3);
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      const server = createServer();
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('renderKubeconfig', () => {
  it('embeds the CA and the client certificate under context envtest and user admin', async () => {
    const certs = await generateEnvtestCertificates();
    const yaml = renderKubeconfig({
      server: 'https://127.0.0.1:1234',
      caPem: certs.ca.certPem,
      certPem: certs.admin.certPem,
      keyPem: certs.admin.keyPem,
      context: 'envtest',
      user: 'admin',
    });
    const value = (key: string): string => {
      const match = yaml.match(new RegExp(`^\\s*${key}: "([^"]*)"$`, 'm'));
      if (!match?.[1]) throw new Error(`no ${key} in\n${yaml}`);
      return match[1];
    };
    const decode = (key: string) => Buffer.from(value(key), 'base64').toString('utf8');
    expect(value('server')).toBe('https://127.0.0.1:1234');
    expect(value('current-context')).toBe('envtest');
    expect(value('user')).toBe('admin');
    expect(value('cluster')).toBe('envtest');
    expect(decode('certificate-authority-data')).toBe(certs.ca.certPem);
    expect(decode('client-certificate-data')).toBe(certs.admin.certPem);
    expect(decode('client-key-data')).toBe(certs.admin.keyPem);
    expect(new X509Certificate(decode('client-certificate-data')).subject).toContain('CN=admin');
    expect(yaml).toMatch(/^apiVersion: v1\nkind: Config\nclusters:\n- name: "envtest"\n/);
  });
});
