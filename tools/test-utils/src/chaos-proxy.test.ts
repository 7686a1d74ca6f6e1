// The proxy's faults are what other suites' verdicts rest on, so each one is checked here
// against a plain TCP server that answers every chunk with a fixed reply: the bytes that get
// through, and what the client sees.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ChaosProxy } from './chaos-proxy.ts';
import { eventually } from './wait.ts';

const reply = Buffer.from('0123456789abcdefghij');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server that answers each chunk with {@link reply}; counts its connections. */
async function startServer(): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', () => socket.write(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections: () => connections };
}

async function startProxy(target: string): Promise<ChaosProxy> {
  const proxy = await ChaosProxy.start(target);
  cleanups.push(() => proxy.close());
  return proxy;
}

interface Client {
  readonly socket: net.Socket;
  received: Buffer;
  ended: 'no' | 'closed' | 'error';
}

async function connect(proxy: ChaosProxy): Promise<Client> {
  const socket = net.connect(proxy.port, '127.0.0.1');
  const client: Client = { socket, received: Buffer.alloc(0), ended: 'no' };
  socket.on('data', (chunk: Buffer) => {
    client.received = Buffer.concat([client.received, chunk]);
  });
  socket.on('error', () => {
    client.ended = 'error';
  });
  socket.on('close', () => {
    if (client.ended === 'no') client.ended = 'closed';
  });
  cleanups.push(() => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return client;
}

/** Sends a byte and waits until `bytes` have come back in all. */
async function roundTrip(client: Client, bytes = reply.length): Promise<void> {
  client.socket.write('x');
  await eventually(() => client.received.length >= bytes, { what: `${bytes} bytes back` });
}

describe('ChaosProxy', () => {
  it('forwards both ways', async () => {
    const server = await startServer();
    const client = await connect(await startProxy(server.url));
    await roundTrip(client);
    expect(client.received).toEqual(reply);
  });

  it('hold: accepts new connections and never forwards, never even connects upstream', async () => {
    const server = await startServer();
    const proxy = await startProxy(server.url);
    proxy.hold(true);
    const client = await connect(proxy);
    client.socket.write('x');
    await eventually(() => proxy.held === 1, { what: 'the connection held' });
    expect(proxy.connections).toBe(1);
    expect(server.connections()).toBe(0);
    expect(client.received.length).toBe(0);
    expect(client.ended).toBe('no');

    // Turned off, new connections are forwarded again; the held one stays held.
    proxy.hold(false);
    const next = await connect(proxy);
    await roundTrip(next);
    expect(client.received.length).toBe(0);
  });

  it('blackhole: open connections stop forwarding and stay open', async () => {
    const server = await startServer();
    const proxy = await startProxy(server.url);
    const client = await connect(proxy);
    await roundTrip(client);
    expect(proxy.blackhole()).toBe(1);
    client.socket.write('x');
    // A second, new connection answers: so the old one had every chance to get its reply.
    const fresh = await connect(proxy);
    await roundTrip(fresh);
    expect(client.received.length).toBe(reply.length);
    expect(client.ended).toBe('no');
  });

  it('refuse: new connections are closed at once; reset closes the open ones', async () => {
    const server = await startServer();
    const proxy = await startProxy(server.url);
    const open = await connect(proxy);
    await roundTrip(open);
    proxy.refuse(true);
    // Closed as soon as accepted: possibly before this side has even seen 'connect'.
    const refused = net.connect(proxy.port, '127.0.0.1');
    refused.on('error', () => {});
    await new Promise((resolve) => refused.once('close', resolve));
    expect(proxy.refused).toBe(1);
    expect(open.ended).toBe('no');
    proxy.reset();
    await eventually(() => open.ended !== 'no', { what: 'the open connection reset' });
  });

  it.each([
    ['reset', 'error'],
    ['hold', 'no'],
  ] as const)(
    'cutAt(7, %s): exactly 7 bytes of the answer get through, then %s',
    async (action, ended) => {
      const server = await startServer();
      const proxy = await startProxy(server.url);
      const before = await connect(proxy);
      proxy.cutAt(7, action);
      const cut = await connect(proxy);
      cut.socket.write('x');
      await eventually(() => proxy.cuts === 1, { what: 'the cut' });
      await eventually(() => cut.received.length === 7, { what: 'the bytes before the cut' });
      if (ended === 'error') await eventually(() => cut.ended !== 'no', { what: 'the reset' });
      expect(cut.received).toEqual(reply.subarray(0, 7));
      expect(cut.ended).toBe(ended);
      // Connections made before the rule are not cut, and neither are those after it is off.
      await roundTrip(before);
      proxy.cutAt(undefined);
      const after = await connect(proxy);
      await roundTrip(after);
      expect(proxy.cuts).toBe(1);
    },
  );
});
