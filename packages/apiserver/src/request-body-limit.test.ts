// kube-apiserver refuses a request body over its limit (3 MiB, `--max-request-bytes`'s
// default) with a 413 Status before decoding it, so a hostile or runaway body never reaches
// the decoders, validation or Table printers.
import { afterEach, describe, expect, it } from 'vitest';
import { type InMemoryApiServer, startApiServer } from './server.js';

let server: InMemoryApiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function postConfigMap(
  target: InMemoryApiServer,
  name: string,
  dataBytes: number,
): Promise<{ status: number; body: { reason?: string; message?: string; code?: number } }> {
  const body = JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    data: { big: 'x'.repeat(dataBytes) },
  });
  const res = await fetch(`http://127.0.0.1:${target.port}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: (await res.json()) as { reason?: string } };
}

async function statusOfGet(target: InMemoryApiServer, name: string): Promise<number> {
  const res = await fetch(
    `http://127.0.0.1:${target.port}/api/v1/namespaces/default/configmaps/${name}`,
  );
  await res.arrayBuffer();
  return res.status;
}

describe('request body limit', () => {
  it('refuses a body over the default 3 MiB with 413 and stores nothing', async () => {
    server = await startApiServer();
    const { status, body } = await postConfigMap(server, 'huge', 4 * 1024 * 1024);
    expect(status).toBe(413);
    expect(body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'RequestEntityTooLarge',
      code: 413,
      message: 'Request entity too large: limit is 3145728',
    });
    expect(await statusOfGet(server, 'huge')).toBe(404);
  });

  it('names the configured limit and still serves the next request', async () => {
    server = await startApiServer({ maxRequestBytes: 64 * 1024 });
    const refused = await postConfigMap(server, 'over', 100 * 1024);
    expect(refused.status).toBe(413);
    expect(refused.body.message).toBe('Request entity too large: limit is 65536');
    const accepted = await postConfigMap(server, 'under', 1024);
    expect(accepted.status).toBe(201);
    expect(await statusOfGet(server, 'under')).toBe(200);
  });
});
