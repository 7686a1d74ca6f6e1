import { once } from 'node:events';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { connect as connectTcp, createServer as createNetServer } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { FakeClock } from '@kubets/apimachinery/testing';
import { generateEnvtestCertificates } from '@kubets/envtest';
import { deferred, eventually, onBun } from '@kubets/test-utils';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../test/tls.js';
import type { CertificatePair } from './certwatcher.js';
import { type CertificateReload, certificateReloadOf, SecureListener } from './secure-listener.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function pairSignedByNewCa(): Promise<{ pair: CertificatePair; ca: string }> {
  const certs = await generateEnvtestCertificates();
  return { pair: { cert: certs.serving.certPem, key: certs.serving.keyPem }, ca: certs.ca.certPem };
}

// Two pairs, each signed by a CA of its own: a client trusting one CA refuses the other pair.
let first: { pair: CertificatePair; ca: string };
let second: { pair: CertificatePair; ca: string };
beforeAll(async () => {
  [first, second] = await Promise.all([pairSignedByNewCa(), pairSignedByNewCa()]);
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A listener on a free loopback port whose servers answer 200 at once, or hold `/slow`
 * until `release` resolves (telling `entered`).
 */
async function listening(reload: CertificateReload, pair: CertificatePair) {
  const entered = deferred();
  const release = deferred();
  const created: Server[] = [];
  const create = (next: CertificatePair): Server => {
    const server = createHttpsServer(next, (req, res) => {
      req.resume();
      if (req.url !== '/slow') return void res.end('{}');
      entered.resolve();
      void release.promise.then(() => res.end('{}'));
    });
    created.push(server);
    return server;
  };
  const listener = await SecureListener.listen({
    create,
    pair,
    port: 0,
    host: '127.0.0.1',
    logger: silent,
    reload,
  });
  cleanups.push(async () => {
    release.resolve();
    await listener.close(new FakeClock(), 1);
  });
  return { listener, created, entered, release, port: listener.address.port };
}

describe('SecureListener', () => {
  it('reloads in place where node:https has setSecureContext, else with a new listener', () => {
    const server = createHttpsServer();
    const expected = typeof server.setSecureContext === 'function' ? 'in-place' : 'new-listener';
    expect(certificateReloadOf(server)).toBe(expected);
  });

  const canReloadInPlace = certificateReloadOf(createHttpsServer()) === 'in-place';
  for (const reload of ['in-place', 'new-listener'] as const) {
    // Bun cannot swap a listening server's certificate: the case above checks which it does.
    it.skipIf(reload === 'in-place' && !canReloadInPlace)(
      `${reload}: new connections get the new certificate on the same port; a request in flight finishes`,
      async () => {
        const { listener, created, entered, release, port } = await listening(reload, first.pair);
        const slow = post(port, '/slow', '', { ca: first.ca });
        await entered.promise;

        await listener.use(second.pair, 'TLSv1.2');
        expect(listener.address.port).toBe(port);
        expect(created).toHaveLength(reload === 'in-place' ? 1 : 2);
        expect((await post(port, '/', '', { ca: second.ca })).status).toBe(200);
        await expect(post(port, '/', '', { ca: first.ca })).rejects.toThrow();

        release.resolve();
        expect((await slow).status).toBe(200);
      },
    );
  }

  it('new-listener: close waits for the retired listener, whose request still runs', async () => {
    const { listener, created, entered, release, port } = await listening(
      'new-listener',
      first.pair,
    );
    const slow = post(port, '/slow', '', { ca: first.ca });
    await entered.promise;
    await listener.use(second.pair, 'TLSv1.2');
    let closed = false;
    const closing = listener.close(new FakeClock(), 60_000).then(() => {
      closed = true;
    });
    await expect(post(port, '/', '', { ca: second.ca })).rejects.toThrow();
    expect(closed).toBe(false);
    release.resolve();
    expect((await slow).status).toBe(200);
    await closing;
    expect(created.map((server) => server.listening)).toEqual([false, false]);
  });

  it('new-listener: rejects naming the address when the port was taken in between', async () => {
    const blocker = createNetServer();
    let listener: SecureListener | undefined;
    listener = await SecureListener.listen({
      create: (pair) => {
        const server = createHttpsServer(pair, (_req, res) => res.end());
        if (pair !== second.pair) return server;
        // Another process binds the port once the old listener let it go.
        const listen = server.listen.bind(server) as (...args: unknown[]) => Server;
        server.listen = ((...args: unknown[]) => {
          blocker.listen(listener?.address.port, '127.0.0.1', () => listen(...args));
          return server;
        }) as Server['listen'];
        return server;
      },
      pair: first.pair,
      port: 0,
      host: '127.0.0.1',
      logger: silent,
      reload: 'new-listener',
    });
    cleanups.push(async () => {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    });
    const { port } = listener.address;
    await expect(listener.use(second.pair, 'TLSv1.2')).rejects.toThrow(
      new RegExp(
        `^the webhook server could not take its new certificate: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`,
      ),
    );
    await listener.close(new FakeClock(), 1);
  });

  it('rejects listen on a port in use, leaving nothing open', async () => {
    const { pair } = first;
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(async () => {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    });
    const port = (blocker.address() as { port: number }).port;
    let made: Server | undefined;
    await expect(
      SecureListener.listen({
        create: (next) => {
          made = createHttpsServer(next);
          return made;
        },
        pair,
        port,
        host: '127.0.0.1',
        logger: silent,
      }),
    ).rejects.toThrow();
    expect(made?.listening).toBe(false);
  });
  it('closes a connection that sent no request within 5 s of the close, before the timeout', async () => {
    const { listener, created, port } = await listening(
      certificateReloadOf(createHttpsServer()),
      first.pair,
    );
    const server = created[0] as Server;
    // Accepted before the close, its TLS handshake not begun: node:https hands it to the HTTP
    // server only once the handshake ends, and Node keeps a connection without a request open.
    const accepted = once(server, 'connection');
    const raw = connectTcp(port, '127.0.0.1');
    await accepted;
    const clock = new FakeClock();
    const closing = listener.close(clock, 60_000);

    const handedToHttp = once(server, 'secureConnection');
    const client = connectTls({ socket: raw, ca: first.ca, servername: 'localhost' });
    cleanups.push(async () => void client.destroy());
    client.resume();
    const handshake = await once(client, 'secureConnect').then(
      () => 'done',
      (error: NodeJS.ErrnoException) => error.code,
    );
    if (handshake === 'ECONNRESET') {
      // Bun's node:https resets a connection still before its handshake when the server
      // closes: nothing is left for the close to wait for.
      await closing;
      expect(clock.now()).toBe(0);
      return;
    }
    await handedToHttp;
    const clientClosed = once(client, 'close');
    clock.step(4_500);
    expect(client.destroyed).toBe(false);
    clock.step(500);

    await clientClosed;
    await closing;
    expect(clock.now()).toBe(5_000);
  });

  // Bun's node:https resets a connection before its handshake when the server closes (see the
  // test above): the close has nothing to wait for there.
  it.skipIf(onBun)(
    'closes a connection whose TLS handshake never ends once the timeout is over',
    async () => {
      const { listener, created, port } = await listening(
        certificateReloadOf(createHttpsServer()),
        first.pair,
      );
      const server = created[0] as Server;
      // A client that connects and never speaks: its TLS handshake never ends, so it is never
      // handed to the HTTP server that closeAllConnections asks.
      const accepted = once(server, 'connection');
      const silentClient = connectTcp(port, '127.0.0.1');
      cleanups.push(async () => void silentClient.destroy());
      silentClient.on('error', () => {});
      await accepted;
      const clock = new FakeClock();
      const clientClosed = once(silentClient, 'close');
      const closing = listener.close(clock, 10_000);
      await eventually(() => expect(clock.pending).toBeGreaterThan(1));
      clock.step(9_500);
      expect(silentClient.destroyed).toBe(false);
      clock.step(500);

      await clientClosed;
      await closing;
      expect(clock.now()).toBe(10_000);
    },
  );
});
