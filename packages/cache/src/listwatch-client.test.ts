import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  everythingFieldSelector,
  fieldSelectorFromSet,
  isNotFound,
  type WatchEvent,
} from '@kubets/apimachinery';
import { RESTClient } from '@kubets/rest';
import { failureStatus } from '@kubets/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  listWatchFromClient,
  metadataListWatchFromClient,
  metaNamespaceKeyFunc,
  newFilteredListWatchFromClient,
  partialObjectMetadataAccept,
  partialObjectMetadataListAccept,
  reusingCachedItems,
} from './index.js';
import { CacheIndexer } from './store.js';

interface Seen {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

type Respond = (seen: Seen, res: ServerResponse) => void;

/** A list whose item `a` a cache may already hold (at resourceVersion 3). */
const podsAandB = {
  kind: 'PodList',
  metadata: { resourceVersion: '9' },
  items: [
    { metadata: { name: 'a', resourceVersion: '3' } },
    { metadata: { name: 'b', resourceVersion: '9' } },
  ],
};

let server: Server;
let client: RESTClient;
let seen: Seen[];
let respond: Respond;

/** Answers every request with `body` as JSON. */
function answering(status: number, body: unknown): Respond {
  return (_seen, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
}

const emptyList = answering(200, { kind: 'List', metadata: { resourceVersion: '7' }, items: [] });

beforeEach(async () => {
  seen = [];
  respond = emptyList;
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const s = { path: url.pathname, query: url.searchParams, headers: req.headers };
    seen.push(s);
    respond(s, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  client = new RESTClient({ host: `http://127.0.0.1:${port}`, qps: -1 }, { groupVersion: 'v1' });
});

afterEach(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

function signal(): AbortSignal {
  return new AbortController().signal;
}

describe('listWatchFromClient', () => {
  it('lists with the reflector options as query parameters, leaving out empty ones', async () => {
    const lw = listWatchFromClient(client, 'pods', 'default', everythingFieldSelector());
    const list = await lw.list(
      { resourceVersion: '0', limit: 500, labelSelector: '', continue: '' },
      signal(),
    );
    expect(list.metadata?.resourceVersion).toBe('7');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe('/api/v1/namespaces/default/pods');
    expect(Object.fromEntries(seen[0]!.query)).toEqual({ resourceVersion: '0', limit: '500' });

    await lw.list(
      {
        resourceVersion: '42',
        resourceVersionMatch: 'NotOlderThan',
        limit: 0,
        continue: 'tok',
        labelSelector: 'app=web',
        timeoutSeconds: 30,
      },
      signal(),
    );
    expect(Object.fromEntries(seen[1]!.query)).toEqual({
      resourceVersion: '42',
      resourceVersionMatch: 'NotOlderThan',
      continue: 'tok',
      labelSelector: 'app=web',
      timeoutSeconds: '30',
    });
    expect(seen[1]!.headers.accept).toBe('application/json, */*');
  });

  it("lists all namespaces for '' and sets the field selector on every call", async () => {
    const lw = listWatchFromClient(
      client,
      'pods',
      '',
      fieldSelectorFromSet({ 'spec.nodeName': 'n1' }),
    );
    // The given selector replaces whatever the caller passed, as in client-go.
    await lw.list({ fieldSelector: 'metadata.name=x' }, signal());
    expect(seen[0]!.path).toBe('/api/v1/pods');
    expect(seen[0]!.query.get('fieldSelector')).toBe('spec.nodeName=n1');

    const byString = listWatchFromClient(client, 'pods', 'kube-system', 'metadata.name=a');
    await byString.list({}, signal());
    expect(seen[1]!.path).toBe('/api/v1/namespaces/kube-system/pods');
    expect(seen[1]!.query.get('fieldSelector')).toBe('metadata.name=a');
  });

  it('keeps the objects the reuseItem hint returns in place of decoded items', async () => {
    respond = answering(200, podsAandB);
    const held = { metadata: { name: 'a', resourceVersion: '3' } };
    const lw = listWatchFromClient<typeof held>(client, 'pods', 'default');
    const list = await lw.list({}, signal(), {
      reuseItem: (identity) => (identity.name === 'a' ? held : undefined),
    });
    expect(list.items[0]).toBe(held);
    expect(list.items[1]).toEqual({ kind: 'Pod', metadata: { name: 'b', resourceVersion: '9' } });
  });

  it('reuses a cached object only for the item that is it, however the others are crafted', async () => {
    const held = { metadata: { name: 'a', namespace: 'default', resourceVersion: '3' } };
    const cache = new CacheIndexer<typeof held>(metaNamespaceKeyFunc, {});
    cache.add(held);
    const a = '"name":"a","namespace":"default","resourceVersion":"3"';
    const crafted = [
      // Its identity in a label value, an annotation key, a pod template, a string.
      `{"metadata":{"name":"b","namespace":"default","resourceVersion":"3","labels":{"x":"\\",${JSON.stringify(a).slice(1, -1)}"}}}`,
      `{"metadata":{"annotations":{${a}},"name":"c","namespace":"default","resourceVersion":"3"}}`,
      `{"spec":{"template":{"metadata":{${a}}}},"metadata":{"name":"d","namespace":"default","resourceVersion":"3"}}`,
      `{"kind":${JSON.stringify(`","metadata":{${a}}`)},"metadata":{"name":"e","namespace":"default","resourceVersion":"3"}}`,
      // Its identity where JSON.parse reads another: an escaped key, a repeated metadata.
      `{"metadata":{${a},"na\\u006de":"f"}}`,
      `{"metadata":{${a}},"metadata":{"name":"g","namespace":"default","resourceVersion":"3"}}`,
      // Its identity, at another resourceVersion.
      `{"metadata":{"name":"a","namespace":"default","resourceVersion":"4"}}`,
    ];
    respond = (_seen, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        `{"metadata":{"resourceVersion":"9"},"items":[{"metadata":{${a}}},${crafted.join(',')}]}`,
      );
    };
    const lw = reusingCachedItems(
      listWatchFromClient<typeof held>(client, 'pods', 'default'),
      cache,
    );
    const list = await lw.list({}, signal());
    expect(list.items[0]).toBe(held);
    expect(list.items.slice(1)).toEqual(crafted.map((text) => JSON.parse(text)));
    for (const item of list.items.slice(1)) expect(item).not.toBe(held);
  });

  it("gives listed items without type meta the list's apiVersion and kind, as watch events carry", async () => {
    respond = answering(200, {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '9' },
      items: [
        { metadata: { name: 'bare' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' } },
      ],
    });
    const list = await listWatchFromClient(client, 'configmaps', 'default').list({}, signal());
    expect(list.items).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bare' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' } },
    ]);
  });

  it('hands each decoded item, not reused ones, to the prepareItem hint', async () => {
    respond = answering(200, podsAandB);
    const held = { metadata: { name: 'a', resourceVersion: '3' } };
    const prepared: string[] = [];
    const lw = listWatchFromClient<typeof held>(client, 'pods', 'default');
    const list = await lw.list({}, signal(), {
      reuseItem: (identity) => (identity.name === 'a' ? held : undefined),
      prepareItem: (item) => prepared.push(item.metadata.name),
    });
    expect(prepared).toEqual(['b']);
    expect(list.items[0]).toBe(held);
  });

  it('watches with watch=true and the watch options, and decodes events', async () => {
    respond = (_s, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
      res.end(
        `${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } })}\n`,
      );
    };
    const lw = listWatchFromClient<{ metadata: { name?: string } }>(client, 'pods', 'default');
    const stream = await lw.watch(
      {
        resourceVersion: '8',
        allowWatchBookmarks: true,
        timeoutSeconds: 333,
        sendInitialEvents: false,
      },
      signal(),
    );
    const events: WatchEvent<{ metadata: { name?: string } }>[] = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(seen[0]!.path).toBe('/api/v1/namespaces/default/pods');
    expect(Object.fromEntries(seen[0]!.query)).toEqual({
      resourceVersion: '8',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '333',
      sendInitialEvents: 'false',
      watch: 'true',
    });
  });

  it('rejects with the server Status', async () => {
    respond = answering(
      404,
      failureStatus(404, 'NotFound', 'the server could not find the requested resource'),
    );
    const lw = listWatchFromClient(client, 'widgets', 'default');
    await expect(lw.list({}, signal())).rejects.toSatisfy(isNotFound);
    await expect(lw.watch({}, signal())).rejects.toSatisfy(isNotFound);
  });

  it('stops a list when the signal aborts', async () => {
    respond = () => {
      // Never answers.
    };
    const ac = new AbortController();
    const lw = listWatchFromClient(client, 'pods', 'default');
    const pending = lw.list({}, ac.signal);
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    const reason = new Error('stop');
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('ends a watch when the signal aborts', async () => {
    respond = (_s, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
      // Keeps the stream open.
    };
    const ac = new AbortController();
    const lw = listWatchFromClient(client, 'pods', 'default');
    const stream = await lw.watch({}, ac.signal);
    const types: string[] = [];
    for await (const e of stream) {
      types.push(e.type);
      ac.abort();
    }
    expect(types).toEqual(['ADDED']);
  });
});

describe('newFilteredListWatchFromClient', () => {
  it('lets tweak change a copy of the options of every list and watch', async () => {
    respond = (s, res) => {
      if (s.query.get('watch') === 'true') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end();
        return;
      }
      emptyList(s, res);
    };
    const lw = newFilteredListWatchFromClient(client, 'configmaps', 'ns1', (o) => {
      o.labelSelector = 'team=a';
      o.limit = 7;
    });
    const options = { resourceVersion: '0' };
    await lw.list(options, signal());
    expect(options).toEqual({ resourceVersion: '0' });
    for await (const _ of await lw.watch({ resourceVersion: '3' }, signal())) {
      // no events
    }
    expect(seen[0]!.path).toBe('/api/v1/namespaces/ns1/configmaps');
    expect(Object.fromEntries(seen[0]!.query)).toEqual({
      resourceVersion: '0',
      labelSelector: 'team=a',
      limit: '7',
    });
    expect(seen[1]!.query.get('labelSelector')).toBe('team=a');
    expect(seen[1]!.query.get('watch')).toBe('true');
  });
});

describe('metadataListWatchFromClient', () => {
  it('asks for PartialObjectMetadataList on lists and PartialObjectMetadata on watches', async () => {
    respond = (s, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (s.query.get('watch') === 'true') {
        res.end(
          `${JSON.stringify({
            type: 'MODIFIED',
            object: {
              kind: 'PartialObjectMetadata',
              apiVersion: 'meta.k8s.io/v1',
              metadata: { name: 'x', resourceVersion: '5' },
            },
          })}\n`,
        );
        return;
      }
      res.end(
        JSON.stringify({
          kind: 'PartialObjectMetadataList',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { resourceVersion: '4' },
          items: [{ metadata: { name: 'x', resourceVersion: '4' } }],
        }),
      );
    };
    const lw = metadataListWatchFromClient(client, 'configmaps', '', 'metadata.name=x');
    const list = await lw.list({ resourceVersion: '0' }, signal());
    expect(list.items[0]?.metadata?.name).toBe('x');
    const events = [];
    for await (const e of await lw.watch({ resourceVersion: '4' }, signal())) events.push(e);
    expect(events).toHaveLength(1);
    expect(seen[0]!.path).toBe('/api/v1/configmaps');
    expect(seen[0]!.headers.accept).toBe(partialObjectMetadataListAccept);
    expect(seen[0]!.query.get('fieldSelector')).toBe('metadata.name=x');
    expect(seen[1]!.headers.accept).toBe(partialObjectMetadataAccept);
    expect(seen[1]!.query.get('fieldSelector')).toBe('metadata.name=x');
    expect(partialObjectMetadataListAccept).toBe(
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    );
    expect(partialObjectMetadataAccept).toBe(
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
    );
  });
});
