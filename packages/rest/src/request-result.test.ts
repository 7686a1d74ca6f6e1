import { sendJson, startStubServer } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { RESTClient, type RequestResult } from './index.js';

describe('Config.onRequestResult', () => {
  it('is told the code, verb and host of every request once it ended (client-go RequestResult)', async () => {
    const server = await startStubServer((request, response) => {
      if (request.url.includes('/missing')) sendJson(response, 404, { kind: 'Status', code: 404 });
      else sendJson(response, 200, { kind: 'ConfigMap' });
    });
    const results: RequestResult[] = [];
    try {
      const client = new RESTClient(
        {
          host: server.url,
          qps: -1,
          onRequestResult: (result) => {
            results.push(result);
            throw new Error('a failing hook fails no request');
          },
        },
        { groupVersion: { group: '', version: 'v1' } },
      );
      await client.get().resource('configmaps').name('here').do();
      await client
        .delete()
        .resource('configmaps')
        .name('missing')
        .do()
        .catch(() => {});
      const host = `127.0.0.1:${server.port}`;
      expect(results).toEqual([
        { code: '200', method: 'GET', host },
        { code: '404', method: 'DELETE', host },
      ]);
    } finally {
      await server.close();
    }
    const unreachable = new RESTClient(
      { host: server.url, qps: -1, maxRetries: 0, onRequestResult: (r) => results.push(r) },
      { groupVersion: { group: '', version: 'v1' } },
    );
    await unreachable
      .get()
      .resource('pods')
      .do()
      .catch(() => {});
    expect(results.at(-1)).toEqual({
      code: '<error>',
      method: 'GET',
      host: `127.0.0.1:${server.port}`,
    });
  });
});
