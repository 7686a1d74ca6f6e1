// HTTP/2, the default (Config.http2), against a real kube-apiserver (1.20 offers h2 by ALPN):
// requests, lists and watches go over one HTTP/2 session, and the protocol is the negotiated
// one, not assumed. The config is a spread copy of a loaded one, as users write it.
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { realClock, type WatchEvent } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { ChaosProxy, eventually, MemoryLogger, useEnvtest } from '@kubets/test-utils';
import { expect, it } from 'vitest';
import { RESTClient } from './client.js';
import { loadConfig } from './clientcmd.js';
import type { Config } from './config.js';
import {
  defaultPingTimeoutMs,
  defaultReadIdleTimeoutMs,
  http2TransportFor,
} from './http2-transport.js';
import { agentFor } from './transport.js';

interface ConfigMap {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

const logger = new MemoryLogger();

let config: Config;
let core: RESTClient;
const namespace = `rest-h2-e2e-${randomUUID().slice(0, 8)}`;

useEnvtest(
  async (env) => {
    config = { ...loadConfig({ kubeconfig: env.kubeconfigPath }), qps: -1, logger };
    core = new RESTClient(config, { groupVersion: 'v1' });
    await core
      .post()
      .resource('namespaces')
      .body({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
      .do();
  },
  async () => {
    await core.delete().resource('namespaces').name(namespace).do();
  },
);

// The transport the client uses for `baseUrl`: clients with the same TLS settings share it.
function transport(baseUrl = core.baseUrl) {
  const tls = config.tls ?? {};
  const agent = agentFor('https:', {
    ca: tls.caData,
    cert: tls.certData,
    key: tls.keyData,
    insecureSkipVerify: tls.insecureSkipVerify,
    serverName: tls.serverName,
  });
  return http2TransportFor(agent, new URL(baseUrl), { clock: realClock, logger });
}

/** The first event about the ConfigMap `name`; earlier events are skipped. */
async function eventFor(
  events: AsyncIterator<WatchEvent<ConfigMap>, void>,
  name: string,
): Promise<WatchEvent<ConfigMap>> {
  for (;;) {
    const next = await events.next();
    if (next.done) throw new Error(`the watch ended before ConfigMap ${name} was seen`);
    if (next.value.type !== 'ERROR' && next.value.object.metadata?.name === name) return next.value;
  }
}

const configMap = (name: string, value: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { value },
});

it('a spread copy of a loaded config authenticates with its client key and prints none', async () => {
  const key = String(config.tls?.keyData);
  expect(key).toContain('PRIVATE KEY');
  const copy = { ...config, burst: 1 };
  const printed = [inspect(copy), JSON.stringify(copy), inspect(new RESTClient(copy))];
  for (const text of printed) expect(text).not.toContain(key.split('\n')[1]);
  const client = new RESTClient(copy, { groupVersion: 'v1' });
  const namespaces = await client.get().resource('namespaces').name(namespace).do();
  expect(namespaces).toMatchObject({ metadata: { name: namespace } });
});

it('gets, lists, creates and watches over one HTTP/2 session', async () => {
  const configMaps = () => core.get().namespace(namespace).resource('configmaps');
  await core.post().namespace(namespace).resource('configmaps').body(configMap('first', '1')).do();

  const raw = await configMaps().name('first').doRaw();
  expect(raw.statusCode).toBe(200);
  expect(raw.httpVersion).toBe('2.0');
  expect(JSON.parse(raw.body.toString('utf8'))).toMatchObject({ data: { value: '1' } });

  const names: string[] = [];
  const list = await configMaps().doList<ConfigMap>({
    onItem: (item) => names.push(item.metadata.name),
  });
  expect(names).toContain('first');

  const watch = await configMaps()
    .param('resourceVersion', list.metadata?.resourceVersion ?? '')
    .watch<ConfigMap>();
  const events = watch[Symbol.asyncIterator]();
  expect(transport().session?.activeStreams).toBe(1);

  await core.post().namespace(namespace).resource('configmaps').body(configMap('second', '2')).do();
  expect(await eventFor(events, 'second')).toMatchObject({ type: 'ADDED' });
  watch.stop();

  expect(transport().protocol).toBe('h2');
  expect(transport().sessionsOpened).toBe(1);
  expect(logger.lines).toContainEqual({
    level: 'debug',
    message: 'HTTP/2 session opened',
    fields: expect.objectContaining({ protocol: 'h2' }),
  });
  await eventually(() => expect(transport().session?.activeStreams).toBe(0));
});

it('ends a watch the server times out cleanly, and lists then watches again on the session', async () => {
  const configMaps = () => core.get().namespace(namespace).resource('configmaps');
  const list = await configMaps().doList<ConfigMap>();
  const watch = await configMaps()
    .param('resourceVersion', list.metadata?.resourceVersion ?? '')
    .param('timeoutSeconds', 1)
    .watch<ConfigMap>();
  const seen: WatchEvent<ConfigMap>[] = [];
  for await (const event of watch) seen.push(event);
  expect(seen.filter((event) => event.type === 'ERROR')).toEqual([]);

  const again = await configMaps()
    .param('resourceVersion', list.metadata?.resourceVersion ?? '')
    .watch<ConfigMap>();
  await core.post().namespace(namespace).resource('configmaps').body(configMap('third', '3')).do();
  expect(await eventFor(again[Symbol.asyncIterator](), 'third')).toMatchObject({
    type: 'ADDED',
  });
  again.stop();
  expect(transport().sessionsOpened).toBe(1);
});

it('closes a session whose connection went silent, ending its watch with an ERROR event', async () => {
  const proxy = await ChaosProxy.start(core.baseUrl);
  try {
    const clock = new FakeClock();
    const viaProxy = new RESTClient(
      { ...config, host: proxy.url() },
      { groupVersion: 'v1', clock },
    );
    const watch = await viaProxy
      .get()
      .namespace(namespace)
      .resource('configmaps')
      .watch<ConfigMap>();
    const session = transport(proxy.url()).session;
    if (!session) throw new Error('no HTTP/2 session through the proxy');
    const events = watch[Symbol.asyncIterator]();
    proxy.blackhole();
    // Bytes already on their way when the proxy went silent still arrive, so the silence
    // starts at some sample; 30 s after it comes a PING that kube-apiserver never gets.
    const sampleMs = defaultReadIdleTimeoutMs / 6;
    for (let waitedMs = 0; session.pingsSent === 0; waitedMs += sampleMs) {
      if (waitedMs > 2 * defaultReadIdleTimeoutMs) throw new Error('no PING after 60 s of silence');
      await clock.advance(sampleMs);
    }
    expect(session.closed).toBe(false);
    await clock.advance(defaultPingTimeoutMs);
    // The watch started without a resourceVersion: its first events are the existing objects.
    let last = await events.next();
    while (!last.done && last.value.type !== 'ERROR') last = await events.next();
    expect(last.value).toMatchObject({
      type: 'ERROR',
      object: { message: expect.stringContaining('no answer to a PING') },
    });
    expect(session.closed).toBe(true);
  } finally {
    await proxy.close();
  }
});
