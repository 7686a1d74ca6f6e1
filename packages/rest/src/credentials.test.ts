import { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@kubets/apimachinery/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CredentialSource,
  defaultTokenFileRecheckMs,
  impersonationHeaders,
  TokenFile,
} from './credentials.js';
import { CredentialsError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'kubets-credentials-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('TokenFile', () => {
  it('re-reads the token when the file changes, even to the same length', async () => {
    const path = join(dir, 'token-a');
    writeFileSync(path, 'aaaa\n');
    const file = new TokenFile(path, { recheckIntervalMs: 0 });
    expect(await file.token()).toBe('aaaa');
    writeFileSync(path, 'bbbb\n');
    // Same size: only the modification time tells the change.
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    expect(await file.token()).toBe('bbbb');
  });

  it('picks up a rotated token once the recheck interval has passed', async () => {
    const path = join(dir, 'token-rotating');
    writeFileSync(path, 'old-token\n');
    const clock = new FakeClock();
    const file = new TokenFile(path, { clock });
    expect(await file.token()).toBe('old-token');
    // The kubelet swaps the file (a rename, so a new inode).
    writeFileSync(`${path}.new`, 'new-token\n');
    renameSync(`${path}.new`, path);
    clock.step(defaultTokenFileRecheckMs - 1);
    expect(await file.token()).toBe('old-token');
    clock.step(1);
    expect(await file.token()).toBe('new-token');
  });

  it('looks at the file again right after invalidate() (a 401)', async () => {
    const path = join(dir, 'token-invalidated');
    writeFileSync(path, 'one\n');
    const file = new TokenFile(path, { clock: new FakeClock() });
    expect(await file.token()).toBe('one');
    writeFileSync(path, 'two-two\n');
    expect(await file.token()).toBe('one');
    file.invalidate();
    expect(await file.token()).toBe('two-two');
  });

  it('shares one read between concurrent callers', async () => {
    const path = join(dir, 'token-concurrent');
    writeFileSync(path, 'shared\n');
    const file = new TokenFile(path);
    const tokens = await Promise.all([file.token(), file.token(), file.token()]);
    expect(tokens).toEqual(['shared', 'shared', 'shared']);
  });

  it('falls back to the static token when the file is unreadable', async () => {
    const file = new TokenFile(join(dir, 'missing'));
    expect(await file.token('static')).toBe('static');
    await expect(file.token()).rejects.toBeInstanceOf(CredentialsError);
  });

  it('treats an empty file as unreadable', async () => {
    const path = join(dir, 'empty');
    writeFileSync(path, '\n');
    await expect(new TokenFile(path).token()).rejects.toThrow(/is empty/);
  });
});

describe('impersonationHeaders', () => {
  it('builds Impersonate-* headers, escaping extra keys', () => {
    expect(
      impersonationHeaders({
        user: 'u',
        groups: ['g1', 'g2'],
        extra: { 'acme.com/project': ['p'], ü: ['x'], empty: [] },
      }),
    ).toEqual({
      'Impersonate-User': 'u',
      'Impersonate-Group': ['g1', 'g2'],
      'Impersonate-Extra-acme.com%2Fproject': ['p'],
      'Impersonate-Extra-%C3%BC': ['x'],
    });
    expect(impersonationHeaders(undefined)).toEqual({});
  });
});

describe('CredentialSource', () => {
  it('prefers the auth provider, then the token, then basic auth', async () => {
    const provider = {
      credentials: async () => ({ headers: { Authorization: 'Bearer p' }, certData: 'CERT' }),
    };
    expect(
      await new CredentialSource({ host: 'h', authProvider: provider, bearerToken: 't' }).resolve(),
    ).toEqual({ headers: { Authorization: 'Bearer p' }, certData: 'CERT' });
    expect(
      await new CredentialSource({ host: 'h', bearerToken: 't', username: 'u' }).resolve(),
    ).toEqual({ headers: { Authorization: 'Bearer t' } });
    expect(
      await new CredentialSource({ host: 'h', username: 'u', password: 'p' }).resolve(),
    ).toEqual({
      headers: { Authorization: `Basic ${Buffer.from('u:p').toString('base64')}` },
    });
    expect(await new CredentialSource({ host: 'h' }).resolve()).toEqual({ headers: {} });
  });

  it('falls back to the token when the provider gives no Authorization (client certificates)', async () => {
    const provider = { credentials: async () => ({ certData: 'C', keyData: 'K' }) };
    expect(
      await new CredentialSource({ host: 'h', authProvider: provider, bearerToken: 't' }).resolve(),
    ).toEqual({ headers: { Authorization: 'Bearer t' }, certData: 'C', keyData: 'K' });
  });
});
