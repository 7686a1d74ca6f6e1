import type { ServerResponse } from 'node:http';
import { isNotFound, isStatusError, type StatusError } from '@kubets/apimachinery';
import {
  failureStatus,
  type StubHandler,
  type StubServer,
  sendJson,
  stubServerPool,
} from '@kubets/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingClock } from '../test/helpers.js';
import { RESTClient } from './client.js';
import { ResponseDecodeError, TransportError } from './errors.js';

interface Pod {
  metadata: { name: string; namespace: string };
  spec: { note: string };
}

const { serve, closeAll } = stubServerPool();
afterEach(closeAll);

/** What doList() of `resource` rejects with, from a server answering with `handler`. */
async function doListFailure(
  handler: StubHandler,
  resource = 'pods',
): Promise<{ err: unknown; server: StubServer }> {
  const server = await serve(handler);
  const { client } = clientFor(server);
  const err = await client
    .get()
    .resource(resource)
    .doList()
    .catch((e: unknown) => e);
  return { err, server };
}

function clientFor(server: StubServer) {
  const clock = recordingClock();
  return {
    clock,
    client: new RESTClient({ host: server.url, qps: -1 }, { groupVersion: 'v1', clock }),
  };
}

function pod(i: number): Pod {
  return {
    metadata: { name: `pod-${i}`, namespace: 'default' },
    spec: { note: `ünïcødé ${'日本'.repeat(i % 3)} "quoted" \\ {braces} [${i}]` },
  };
}

function listBody(count: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      kind: 'PodList',
      apiVersion: 'v1',
      items: Array.from({ length: count }, (_, i) => pod(i)),
      metadata: { resourceVersion: '42' },
    }),
  );
}

/** Writes `body` in pieces of `size` bytes, letting each go out before the next. */
async function writeInPieces(response: ServerResponse, body: Buffer, size: number): Promise<void> {
  for (let start = 0; start < body.length; start += size) {
    response.write(body.subarray(start, start + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * doList() of pods, handing each item to `onItem`, from a server answering 200 with the first
 * half of a 20-item list, in pieces of 64 bytes, then calling `after` (without it, the answer
 * never ends on its own).
 */
async function listHalfList(
  onItem: () => void,
  options: { after?: (response: ServerResponse) => void; signal?: AbortSignal } = {},
): Promise<{ server: StubServer; list: Promise<unknown> }> {
  const body = listBody(20);
  const server = await serve(async (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    await writeInPieces(response, body.subarray(0, body.length / 2), 64);
    options.after?.(response);
  });
  const request = clientFor(server).client.get().resource('pods');
  if (options.signal) request.signal(options.signal);
  return { server, list: request.doList({ onItem }) };
}

describe('Request.doList()', () => {
  it('decodes a list written in small chunks, handing out items before the body ends', async () => {
    const body = listBody(50);
    let release: () => void = () => {};
    const firstHalfRead = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await serve(async (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      const half = Math.floor(body.length / 2);
      await writeInPieces(response, body.subarray(0, half), 7);
      // The rest only goes out once the client has decoded items from the first half.
      await firstHalfRead;
      await writeInPieces(response, body.subarray(half), 7);
      response.end();
    });
    const { client } = clientFor(server);
    const seen: string[] = [];
    const list = await client
      .get()
      .namespace('default')
      .resource('pods')
      .param('resourceVersion', '0')
      .doList<Pod>({
        onItem: (item) => {
          seen.push(item.metadata.name);
          if (seen.length === 10) release();
        },
      });
    expect(server.requests[0]?.url).toBe('/api/v1/namespaces/default/pods?resourceVersion=0');
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => `pod-${i}`));
    expect(list.items).toEqual(Array.from({ length: 50 }, (_, i) => pod(i)));
    expect(list.kind).toBe('PodList');
    expect(list.metadata?.resourceVersion).toBe('42');
  });

  it('does not collect items with collectItems: false', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(listBody(3));
    });
    const { client } = clientFor(server);
    let count = 0;
    const list = await client
      .get()
      .resource('pods')
      .doList<Pod>({
        onItem: () => {
          count++;
        },
        collectItems: false,
      });
    expect(count).toBe(3);
    expect(list.items).toEqual([]);
  });

  it('retries after 429 + Retry-After like do()', async () => {
    let calls = 0;
    const server = await serve((_request, response) => {
      calls++;
      if (calls === 1) {
        response.writeHead(429, { 'Retry-After': '2', 'Content-Type': 'application/json' });
        response.end('{"kind":"Status","status":"Failure","code":429,"reason":"TooManyRequests"}');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(listBody(2));
    });
    const { client, clock } = clientFor(server);
    const list = await client.get().resource('pods').doList<Pod>();
    expect(list.items).toHaveLength(2);
    expect(calls).toBe(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(2000);
  });

  it('turns a non-2xx answer into the StatusError do() gives', async () => {
    const status = failureStatus(
      404,
      'NotFound',
      'the server could not find the requested resource',
    );
    const { err } = await doListFailure(
      (_request, response) => sendJson(response, 404, status),
      'widgets',
    );
    expect(isNotFound(err)).toBe(true);
  });

  it('raises a Failure Status inside a 2xx answer as a StatusError', async () => {
    const status = failureStatus(410, 'Expired', 'too old resource version');
    const { err } = await doListFailure((_request, response) => sendJson(response, 200, status));
    expect(isStatusError(err)).toBe(true);
    expect((err as StatusError).status).toMatchObject({ code: 410, reason: 'Expired' });
    expect((err as StatusError).status).not.toHaveProperty('items');
  });

  it('reports a malformed body as a ResponseDecodeError naming the request and the offset', async () => {
    const { err, server } = await doListFailure((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end('{"kind":"PodList","items":[{"a":1},{"a":]}');
    });
    expect(err).toBeInstanceOf(ResponseDecodeError);
    const decodeError = err as ResponseDecodeError;
    expect(decodeError.message).toMatch(
      new RegExp(
        `^GET ${server.url}/api/v1/pods: cannot decode the list body: invalid JSON in items\\[1\\] at bytes 35-`,
      ),
    );
    expect(decodeError.offset).toBe(35);
    expect(decodeError.statusCode).toBe(200);
    expect(decodeError.contentType).toBe('application/json');
  });

  it('reports an empty 2xx body', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Length': '0' });
      response.end();
    });
    const { client } = clientFor(server);
    await expect(client.get().resource('pods').doList()).rejects.toThrow(/the body is empty/);
  });

  it('reports a connection that breaks mid-body as a TransportError', async () => {
    let items = 0;
    const { list } = await listHalfList(
      () => {
        items++;
      },
      { after: (response) => response.socket?.destroy() },
    );
    const err = await list.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).message).toMatch(/reading the response failed/);
    expect(items).toBeGreaterThan(0);
  });

  it('passes on what onItem throws and closes the connection', async () => {
    // Never finishes on its own: only the client closing the connection ends it.
    const boom = new Error('handler failed');
    const { server, list } = await listHalfList(() => {
      throw boom;
    });
    await expect(list).rejects.toBe(boom);
    await server.requests[0]?.closed;
  });

  it('rejects with the signal reason when aborted mid-body', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const { list } = await listHalfList(() => controller.abort(reason), {
      signal: controller.signal,
    });
    await expect(list).rejects.toBe(reason);
  });
});
