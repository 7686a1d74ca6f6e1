// The in-memory API server has no authentication; what keeps web pages out is that it answers
// only requests addressed to a loopback name and not sent from another origin.
import { readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from './cli-main.js';
import { type InMemoryApiServer, startApiServer } from './server.js';

let server: InMemoryApiServer;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(async () => {
  await server.stop();
});

/** GET /api/v1/namespaces with the given headers; resolves with the status and parsed body. */
function get(headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path: '/api/v1/namespaces', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('Host and Origin checks', () => {
  it.each([
    ['127.0.0.1:PORT'],
    ['localhost:PORT'],
    ['LOCALHOST'],
    ['[::1]:PORT'],
    ['127.1.2.3:PORT'],
  ])('answers Host %s', async (host) => {
    const res = await get({ host: host.replace('PORT', String(server.port)) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'NamespaceList' });
  });

  it.each([
    ['evil.example'],
    ['evil.example:PORT'],
    ['127.0.0.1.evil.example'],
    ['localhost.evil.example:PORT'],
    ['128.0.0.1:PORT'],
  ])('refuses Host %s with a 403 Status naming it', async (host) => {
    const value = host.replace('PORT', String(server.port));
    const res = await get({ host: value });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden' });
    expect((res.body as { message: string }).message).toContain(`Host "${value}"`);
  });

  it('answers a loopback Origin and refuses another one, and "null"', async () => {
    const same = await get({
      host: `127.0.0.1:${server.port}`,
      origin: `http://localhost:${server.port}`,
    });
    expect(same.status).toBe(200);
    for (const origin of ['https://evil.example', 'http://evil.example:8080', 'null']) {
      const res = await get({ host: `127.0.0.1:${server.port}`, origin });
      expect(res.status, origin).toBe(403);
      expect((res.body as { message: string }).message).toContain(`Origin "${origin}"`);
    }
  });

  it('has the requests of an ordinary client answered (fetch to server.host)', async () => {
    const res = await fetch(`${server.host}/api/v1/namespaces/default`);
    expect(res.status).toBe(200);
  });
});

describe('kubets-apiserver CLI output', () => {
  it.each([[[] as string[]], [['--tls']]])(
    'prints the path of a 0600 kubeconfig, never key material (args %j)',
    async (args) => {
      const output = { stdout: '', stderr: '' };
      const append = (stream: keyof typeof output) => (text: string) => {
        output[stream] += text;
      };
      const cli = await startCli(args, { stdout: append('stdout'), stderr: append('stderr') });
      const { stdout, stderr } = output;
      expect(cli).toBeDefined();
      try {
        const path = stdout.trim();
        expect(stdout).toBe(`${cli?.kubeconfigPath}\n`);
        for (const text of [stdout, stderr]) {
          expect(text).not.toContain('client-key-data');
          expect(text).not.toContain('BEGIN');
          expect(text).not.toContain('current-context');
        }
        expect(statSync(path).mode & 0o777).toBe(0o600);
        const kubeconfig = readFileSync(path, 'utf8');
        expect(kubeconfig).toContain(`server: "${cli?.host}"`);
        if (args.includes('--tls')) expect(kubeconfig).toContain('client-key-data');
      } finally {
        await cli?.stop();
      }
    },
  );
});
