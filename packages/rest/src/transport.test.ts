import { type StubServer, sendJson, startStubServer } from '@kubets/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';
import { agentFor, isRetryableConnectionError } from './transport.js';

describe('connection pooling', () => {
  let server: StubServer;
  const clientPorts: number[] = [];
  beforeAll(async () => {
    server = await startStubServer((_request, response, raw) => {
      clientPorts.push(raw.socket.remotePort ?? 0);
      sendJson(response, 200, {});
    });
  });
  afterAll(() => server.close());

  it('shares one keep-alive agent between clients with the same TLS settings', () => {
    expect(agentFor('https:', { ca: 'A' })).toBe(agentFor('https:', { ca: Buffer.from('A') }));
    expect(agentFor('https:', { ca: 'A' })).not.toBe(agentFor('https:', { ca: 'B' }));
    expect(agentFor('https:', { ca: 'A' })).not.toBe(
      agentFor('https:', { ca: 'A', insecureSkipVerify: true }),
    );
    expect(agentFor('http:', {})).toBe(agentFor('http:', {}));
  });

  it('reuses the connection for consecutive requests', async () => {
    const first = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
    const second = new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1' });
    await first.get().resource('pods').do();
    await second.get().resource('pods').do();
    await first.get().resource('pods').do();
    expect(new Set(clientPorts).size).toBe(1);
  });
});

describe('isRetryableConnectionError', () => {
  it('accepts resets and refusals only', () => {
    expect(isRetryableConnectionError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(
      true,
    );
    expect(
      isRetryableConnectionError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(isRetryableConnectionError(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toBe(
      false,
    );
    expect(isRetryableConnectionError(new Error('x'))).toBe(false);
  });
});
