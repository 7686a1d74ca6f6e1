import { describe, expect, it } from 'vitest';
import { renderKubeconfig } from './kubeconfig.js';
import { serviceAccountUser } from './service-account.js';

describe('serviceAccountUser without a server', () => {
  const env = {
    host: 'https://127.0.0.1:1',
    tls: { caData: '', certData: '', keyData: '' },
    dir: '/nonexistent',
  };
  it.each([
    [{ namespace: 'Team A', name: 'op' }, /namespace "Team A" is not a namespace name/],
    [{ namespace: 'team-a', name: '' }, /name "" is not a ServiceAccount name/],
  ])('refuses %j before any request', async (options, message) => {
    await expect(serviceAccountUser(env, options)).rejects.toThrow(message);
  });
});

describe('renderKubeconfig with a token', () => {
  it('writes the token as the user’s credential', () => {
    const yaml = renderKubeconfig({
      server: 'https://127.0.0.1:6443',
      caPem: 'CA',
      token: 'a.b.c',
      context: 'envtest',
      user: 'system:serviceaccount:ns:op',
    });
    expect(yaml).toContain('- name: "system:serviceaccount:ns:op"\n  user:\n    token: "a.b.c"\n');
    expect(yaml).not.toContain('client-certificate-data');
  });
});
