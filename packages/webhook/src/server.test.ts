import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { connect } from 'node:tls';
import { FakeClock } from '@kubets/apimachinery/testing';
import { deferred, eventually, onDeno } from '@kubets/test-utils';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview, type CertDir, certDir, post } from '../test/tls.js';
import {
  admissionEndpoint,
  conversionEndpoint,
  defaultingHandler,
  hubSpokeConverter,
  validatingHandler,
  type WebhookMetricsProvider,
  WebhookServer,
  type WebhookServerOptions,
} from './index.js';

let certs: CertDir;
beforeAll(async () => {
  certs = await certDir();
  return () => certs.cleanup();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A started server on a free loopback port, stopped after the test. */
async function started(
  options: WebhookServerOptions = {},
  setup?: (server: WebhookServer) => void,
) {
  const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: certs.dir, ...options });
  setup?.(server);
  const stop = new AbortController();
  const running = server.start(stop.signal);
  const { port } = await Promise.race([server.listening(), running.then(() => ({ port: -1 }))]);
  const shutdown = async () => {
    stop.abort();
    await running;
  };
  cleanups.push(shutdown);
  return { server, port, running, stop, shutdown };
}

const allowAll = admissionEndpoint(() => ({ allowed: true }));

describe('WebhookServer (controller-runtime server_test.go)', () => {
  it('should panic if a duplicate path is registered', () => {
    const server = new WebhookServer();
    server.register('/somepath', allowAll);
    expect(() => server.register('/somepath', allowAll)).toThrow(
      "can't register duplicate path: /somepath",
    );
  });

  describe('when registering new webhooks before starting', () => {
    it('should serve a webhook on the requested path', async () => {
      const { port } = await started({}, (server) => server.register('/somepath', allowAll));
      const reply = await post(port, '/somepath', admissionReview({}), {
        ca: certs.caPem,
        contentType: 'application/json',
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: 'uid-1', allowed: true, status: { code: 200 } },
      });
    });
  });

  describe('when registering webhooks after starting', () => {
    it('should serve a webhook on the requested path', async () => {
      const { server, port } = await started();
      const before = await post(port, '/somepath', admissionReview({}), {
        ca: certs.caPem,
        contentType: 'application/json',
      });
      expect(before.status).toBe(404);
      server.register('/somepath', allowAll);
      const after = await post(port, '/somepath', admissionReview({}), {
        ca: certs.caPem,
        contentType: 'application/json',
      });
      expect(after.status).toBe(200);
    });
  });

  it('should respect passed in TLS configurations', async () => {
    const { port } = await started({ minTlsVersion: 'TLSv1.3' }, (server) =>
      server.register('/somepath', allowAll),
    );
    await expect(
      post(port, '/somepath', admissionReview({}), {
        ca: certs.caPem,
        contentType: 'application/json',
        maxVersion: 'TLSv1.2',
      }),
    ).rejects.toThrow();
    const reply = await post(port, '/somepath', admissionReview({}), {
      ca: certs.caPem,
      contentType: 'application/json',
    });
    expect(reply.status).toBe(200);
  });
});

describe('WebhookServer', () => {
  // Deno's TLS client cannot offer TLS 1.1: it fails by itself, without asking the server, and
  // leaves its connection open, which then holds the server's shutdown (README, Runtimes).
  it.skipIf(onDeno)('refuses TLS older than 1.2 by default', async () => {
    const { port } = await started({}, (server) => server.register('/somepath', allowAll));
    await expect(
      post(port, '/somepath', admissionReview({}), {
        ca: certs.caPem,
        contentType: 'application/json',
        maxVersion: 'TLSv1.1',
        minVersion: 'TLSv1',
      }),
    ).rejects.toThrow();
  });

  it('refuses bad options and paths with errors naming them', () => {
    expect(() => new WebhookServer({ port: 70000 })).toThrow(
      'webhook server port must be an integer in [0, 65535], got 70000',
    );
    expect(() => new WebhookServer({ minTlsVersion: 'TLSv1.1' as never })).toThrow(
      'minTlsVersion must be TLSv1.2 or TLSv1.3, got TLSv1.1',
    );
    expect(() => new WebhookServer().register('validate', allowAll)).toThrow(
      'webhook path must start with \'/\', got "validate"',
    );
  });

  it('rejects start when the certificate files are missing, naming them', async () => {
    const server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      certDir: '/nonexistent-kubets-dir',
    });
    await expect(server.start(new AbortController().signal)).rejects.toThrow(
      'cannot load certificate /nonexistent-kubets-dir/tls.crt with key /nonexistent-kubets-dir/tls.key',
    );
  });

  it('rejects start on a port in use with nothing left open, and starts once the port is free', async () => {
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const { port } = blocker.address() as AddressInfo;
    const server = new WebhookServer({ host: '127.0.0.1', port, certDir: certs.dir });
    server.register('/validate', allowAll);
    await expect(server.start(new AbortController().signal)).rejects.toThrow(
      new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
    );
    expect(server.serving).toBe(false);
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    const stop = new AbortController();
    const running = server.start(stop.signal);
    cleanups.push(async () => {
      stop.abort();
      await running;
    });
    await server.listening();
    const reply = await post(port, '/validate', admissionReview({}), {
      ca: certs.caPem,
      contentType: 'application/json',
    });
    expect(reply.status).toBe(200);
  });

  it('answers 405 to a method other than POST and 404 to an unknown path', async () => {
    const { port } = await started({}, (server) => server.register('/validate', allowAll));
    const get = await post(port, '/validate', undefined, { ca: certs.caPem, method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.body).toMatchObject({
      response: {
        allowed: false,
        status: { code: 405, message: 'method GET is not allowed, only POST' },
      },
    });
    const unknown = await post(port, '/other', admissionReview({}), {
      ca: certs.caPem,
      contentType: 'application/json',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('no webhook is registered on /other\n');
  });

  it('reports readiness: not started, serving, stopped', async () => {
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: certs.dir });
    const ready = server.startedChecker();
    await expect(ready()).rejects.toThrow('webhook server has not been started yet');
    const stop = new AbortController();
    const running = server.start(stop.signal);
    await server.listening();
    await expect(ready()).resolves.toBeUndefined();
    expect(server.serving).toBe(true);
    stop.abort();
    await running;
    expect(server.serving).toBe(false);
    await expect(ready()).rejects.toThrow('webhook server has not been started yet');
  });

  it('serves a certificate rotated on disk without a restart', async () => {
    const clock = new FakeClock();
    const { port } = await started({ clock, certPollIntervalMs: 10_000 }, (server) =>
      server.register('/validate', allowAll),
    );
    const oldCa = certs.caPem;
    const first = await post(port, '/validate', admissionReview({}), {
      ca: oldCa,
      contentType: 'application/json',
    });
    expect(first.status).toBe(200);
    const rotated = await certs.rotate();
    // The file-system event or the poll (moved on by the fake clock) reloads the pair.
    await eventually(
      async () => {
        await clock.advance(10_000);
        const reply = await post(port, '/validate', admissionReview({}), {
          ca: rotated.ca.certPem,
          contentType: 'application/json',
        });
        expect(reply.status).toBe(200);
      },
      { what: 'the rotated certificate served' },
    );
    await expect(
      post(port, '/validate', admissionReview({}), { ca: oldCa, contentType: 'application/json' }),
    ).rejects.toThrow();
  });

  it('stops gracefully: a request being served finishes, new connections are refused', async () => {
    const release = deferred();
    const entered = deferred();
    const { port, stop, running } = await started({}, (server) =>
      server.register(
        '/slow',
        admissionEndpoint(async () => {
          entered.resolve();
          await release.promise;
          return { allowed: true };
        }),
      ),
    );
    const inFlight = post(port, '/slow', admissionReview({}), {
      ca: certs.caPem,
      contentType: 'application/json',
    });
    await entered.promise;
    stop.abort();
    await eventually(() =>
      expect(
        post(port, '/slow', admissionReview({}), {
          ca: certs.caPem,
          contentType: 'application/json',
        }),
      ).rejects.toThrow(),
    );
    release.resolve();
    expect((await inFlight).status).toBe(200);
    await running;
  });

  it('closes the connections of requests still running when the shutdown timeout passes', async () => {
    const clock = new FakeClock();
    const entered = deferred();
    const { port, stop, running } = await started(
      { clock, shutdownTimeoutMs: 60_000, certPollIntervalMs: 3_600_000 },
      (server) =>
        server.register(
          '/stuck',
          admissionEndpoint(async ({ signal }) => {
            entered.resolve();
            await new Promise((resolve) => signal.addEventListener('abort', resolve));
            return { allowed: true };
          }),
        ),
    );
    let settled: unknown;
    const stuck = post(port, '/stuck', admissionReview({}), {
      ca: certs.caPem,
      contentType: 'application/json',
    }).then(
      () => 'answered',
      (error: unknown) => error,
    );
    void stuck.then((outcome) => {
      settled = outcome;
    });
    await entered.promise;
    stop.abort();
    // Once the server stops accepting, it polls for idle connections every 500 ms until the
    // shutdown deadline.
    await eventually(() => expect(clock.nextDue()).toBe(500));
    await clock.advance(59_999);
    expect(settled).toBeUndefined();
    await clock.advance(1);
    expect(await stuck).toBeInstanceOf(Error);
    await running;
  });

  it('records controller-runtime webhook metrics per path', async () => {
    const recorded = new Map<string, number>();
    const add = (key: string, delta: number) => recorded.set(key, (recorded.get(key) ?? 0) + delta);
    const provider: WebhookMetricsProvider = {
      newRequestsMetric: (webhook, code) => {
        add(`requests ${webhook} ${code}`, 0);
        return { inc: () => add(`requests ${webhook} ${code}`, 1) };
      },
      newLatencyMetric: (webhook) => ({ observe: () => add(`latency ${webhook}`, 1) }),
      newInFlightMetric: (webhook) => ({
        inc: () => add(`inflight ${webhook}`, 1),
        dec: () => add(`inflight ${webhook}`, -1),
      }),
    };
    const { port } = await started({ metricsProvider: provider }, (server) =>
      server.register('/validate', allowAll),
    );
    await post(port, '/validate', admissionReview({}), {
      ca: certs.caPem,
      contentType: 'application/json',
    });
    await post(port, '/validate', '{', { ca: certs.caPem, contentType: 'application/json' });
    await eventually(() =>
      expect(Object.fromEntries(recorded)).toEqual({
        'requests /validate 200': 1,
        'requests /validate 500': 0,
        'requests /validate 400': 1,
        'latency /validate': 2,
        'inflight /validate': 0,
      }),
    );
  });
});

interface Mydemo {
  spec?: { image?: string; port?: number };
}

describe('hostile input: each gets a clear answer and the server keeps serving', () => {
  const validator = validatingHandler<Mydemo>({
    validateCreate: (object) => {
      if (object.spec?.image === 'throw') throw new Error('validator exploded on image "throw"');
    },
  });
  const defaulter = defaultingHandler<Mydemo>({
    default: (object) => (object.spec?.image === 'non-object' ? (42 as never) : undefined),
  });
  const converter = hubSpokeConverter<Mydemo>({
    group: 'demo.example.com',
    kind: 'Mydemo',
    hub: 'v1',
    spokes: {
      v1alpha1: {
        toHub: () => {
          throw new Error('converter exploded');
        },
        fromHub: (hub) => hub,
      },
    },
  });
  const conversionBody = JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: {
      uid: 'c1',
      desiredAPIVersion: 'demo.example.com/v1',
      objects: [
        { apiVersion: 'demo.example.com/v1alpha1', kind: 'Mydemo', metadata: { name: 'a' } },
      ],
    },
  });
  const json = 'application/json';
  const table: {
    name: string;
    path: string;
    body: string | Buffer;
    contentType?: string;
    status: number;
    answer: unknown;
    /** The row checks what Deno's node:https client cannot show (README, Runtimes). */
    notOnDeno?: true;
  }[] = [
    {
      name: 'malformed JSON',
      path: '/validate',
      body: '{"apiVersion": ',
      status: 400,
      answer: {
        response: {
          uid: '',
          allowed: false,
          status: {
            code: 400,
            message: expect.stringMatching(/^couldn't get version\/kind; json parse error: /),
          },
        },
      },
    },
    {
      name: 'a body that is not an AdmissionReview',
      path: '/validate',
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod' }),
      status: 400,
      answer: {
        response: {
          status: {
            code: 400,
            message:
              'the body is not an AdmissionReview of admission.k8s.io/v1 or v1beta1: apiVersion "v1", kind "Pod"',
          },
        },
      },
    },
    {
      name: 'a JSON array',
      path: '/validate',
      body: '[]',
      status: 400,
      answer: {
        response: {
          status: { code: 400, message: 'the body is not an AdmissionReview: a JSON array' },
        },
      },
    },
    {
      name: 'a review without a request',
      path: '/validate',
      body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
      status: 400,
      answer: {
        response: { status: { code: 400, message: 'the AdmissionReview has no request' } },
      },
    },
    {
      name: 'a missing uid',
      path: '/validate',
      body: admissionReview({}, { uid: undefined }),
      status: 400,
      answer: {
        response: { status: { code: 400, message: 'the AdmissionReview request has no uid' } },
      },
    },
    {
      name: 'the wrong content type',
      path: '/validate',
      body: admissionReview({}),
      contentType: 'text/plain',
      status: 400,
      answer: {
        response: {
          status: { code: 400, message: 'contentType=text/plain, expected application/json' },
        },
      },
    },
    {
      name: 'a multi-MB body',
      path: '/validate',
      body: Buffer.alloc(8 * 1024 * 1024, 0x20),
      // On Deno a client in the server's own process, still writing the body when the 413
      // comes and the connection closes, gets EPIPE instead of the answer.
      notOnDeno: true,
      status: 413,
      answer: {
        response: {
          status: { code: 413, message: 'request entity is too large; limit is 7340032 bytes' },
        },
      },
    },
    {
      name: 'a validator that throws',
      path: '/validate',
      body: admissionReview({ spec: { image: 'throw' } }),
      status: 200,
      answer: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: {
            code: 403,
            reason: 'Forbidden',
            message: 'validator exploded on image "throw"',
          },
        },
      },
    },
    {
      name: 'a defaulter that returns something that is not an object',
      path: '/mutate',
      body: admissionReview({ spec: { image: 'non-object' } }),
      status: 200,
      answer: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: {
            code: 500,
            message: 'defaulter must change the object in place or return an object, got number',
          },
        },
      },
    },
    {
      name: 'a converter that throws',
      path: '/convert',
      body: conversionBody,
      status: 200,
      answer: {
        response: {
          uid: 'c1',
          convertedObjects: [],
          result: { status: 'Failure', message: 'converter exploded' },
        },
      },
    },
    {
      name: 'a conversion body that is not JSON',
      path: '/convert',
      body: 'not json',
      status: 400,
      answer: {
        status: 'Failure',
        code: 400,
        message: expect.stringMatching(/^unable to decode the conversion request: malformed JSON/),
      },
    },
  ];

  for (const entry of table) {
    it.skipIf(onDeno && entry.notOnDeno)(entry.name, async () => {
      const { port } = await started({}, (server) => {
        server.register('/validate', admissionEndpoint(validator));
        server.register('/mutate', admissionEndpoint(defaulter));
        server.register('/convert', conversionEndpoint([converter]));
      });
      const reply = await post(port, entry.path, entry.body, {
        ca: certs.caPem,
        contentType: entry.contentType ?? json,
      });
      expect(reply.status).toBe(entry.status);
      expect(reply.body).toMatchObject(entry.answer as object);
      const next = await post(port, '/validate', admissionReview({ spec: { image: 'nginx:1' } }), {
        ca: certs.caPem,
        contentType: json,
      });
      expect(next.body).toMatchObject({ response: { allowed: true } });
    });
  }

  it('a client that sends a byte a minute gets 408 when the body deadline passes (fake clock)', async () => {
    const clock = new FakeClock();
    const { port } = await started(
      { clock, bodyTimeoutMs: 10_000, certPollIntervalMs: 3_600_000 },
      (server) => server.register('/validate', admissionEndpoint(validator)),
    );
    const timersIdle = clock.pending;
    const answer = new Promise<string>((resolve, reject) => {
      const socket = connect(
        { host: '127.0.0.1', port, ca: certs.caPem, servername: 'localhost' },
        () => {
          socket.write(
            'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
          );
        },
      );
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    // The server is waiting for the body once its deadline timer is set.
    await eventually(() => expect(clock.pending).toBe(timersIdle + 1));
    await clock.advance(9_999);
    expect(clock.pending).toBe(timersIdle + 1);
    await clock.advance(1);
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('request body was not received within 10000 ms');
    const next = await post(port, '/validate', admissionReview({}), {
      ca: certs.caPem,
      contentType: json,
    });
    expect(next.status).toBe(200);
  });
});
