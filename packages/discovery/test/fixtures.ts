// Shared by the unit tests: a loopback stub API server serving canned discovery documents.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGroup, APIResource, APIResourceList } from '../src/types.js';

function resource(
  name: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<APIResource> = {},
): APIResource {
  return {
    name,
    singularName: '',
    namespaced,
    kind,
    verbs: name.includes('/')
      ? ['get']
      : ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    ...extra,
  };
}

function group(name: string, versions: string[], preferred: string): APIGroup {
  const gvs = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return {
    name,
    versions: gvs,
    preferredVersion: { groupVersion: `${name}/${preferred}`, version: preferred },
  };
}

/** The canned server: mutate `groups`/`resources`/`failing` between calls to change what it serves. */
export interface CannedDiscovery {
  coreVersions: string[];
  groups: APIGroup[];
  resources: Map<string, APIResource[]>;
  /** group-versions answered with 503. */
  failing: Set<string>;
}

export function cannedDiscovery(): CannedDiscovery {
  return {
    coreVersions: ['v1'],
    groups: [
      group('apps', ['v1'], 'v1'),
      group('events.k8s.io', ['v1'], 'v1'),
      group('autoscaling', ['v2beta1', 'v1'], 'v1'),
      group('batch', ['v1', 'v1beta1'], 'v1'),
      group('broken.example.com', ['v1'], 'v1'),
    ],
    resources: new Map([
      [
        'v1',
        [
          resource('pods', 'Pod', true, { shortNames: ['po'], categories: ['all'] }),
          resource('pods/log', 'Pod', true),
          resource('pods/status', 'Pod', true),
          resource('namespaces', 'Namespace', false, { shortNames: ['ns'] }),
          resource('nodes', 'Node', false, { shortNames: ['no'] }),
          resource('events', 'Event', true, { shortNames: ['ev'] }),
          resource('configmaps', 'ConfigMap', true, { shortNames: ['cm'] }),
        ],
      ],
      [
        'apps/v1',
        [
          resource('deployments', 'Deployment', true, { shortNames: ['deploy'] }),
          resource('deployments/scale', 'Scale', true, { group: 'autoscaling', version: 'v1' }),
          resource('replicasets', 'ReplicaSet', true, { shortNames: ['rs'] }),
        ],
      ],
      ['events.k8s.io/v1', [resource('events', 'Event', true, { shortNames: ['ev'] })]],
      [
        'autoscaling/v2beta1',
        [
          resource('horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, {
            shortNames: ['hpa'],
          }),
        ],
      ],
      [
        'autoscaling/v1',
        [
          resource('horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, {
            shortNames: ['hpa'],
          }),
        ],
      ],
      ['batch/v1', [resource('jobs', 'Job', true), resource('jobs/status', 'Job', true)]],
      [
        'batch/v1beta1',
        [
          resource('jobs', 'Job', true),
          resource('cronjobs', 'CronJob', true, { shortNames: ['cj'] }),
        ],
      ],
      ['broken.example.com/v1', [resource('gadgets', 'Gadget', true)]],
    ]),
    failing: new Set(['broken.example.com/v1']),
  };
}

/** Adds a namespaced custom resource group (as installing a CRD does). */
export function addWidgets(canned: CannedDiscovery): void {
  canned.groups.push(group('e2e.kubets.dev', ['v1'], 'v1'));
  canned.resources.set('e2e.kubets.dev/v1', [
    resource('widgets', 'Widget', true, { singularName: 'widget', shortNames: ['wg'] }),
  ]);
}

export interface StubDiscoveryServer {
  url: string;
  /** Request paths in arrival order. */
  paths: string[];
  /** The most requests that were in flight at once. */
  maxInFlight: number;
  close(): Promise<void>;
}

function send(response: http.ServerResponse, code: number, body: unknown): void {
  response.writeHead(code, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

/** Serves `canned` on 127.0.0.1; resource lists wait `delayMs` (to observe concurrency). */
export async function startDiscoveryServer(
  canned: CannedDiscovery,
  options: { delayMs?: number; coreMissing?: boolean } = {},
): Promise<StubDiscoveryServer> {
  let inFlight = 0;
  const state: StubDiscoveryServer = {
    url: '',
    paths: [],
    maxInFlight: 0,
    close: async () => undefined,
  };
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    state.paths.push(path);
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    const respond = () => {
      inFlight--;
      if (path === '/version') {
        return send(response, 200, {
          major: '1',
          minor: '20',
          gitVersion: 'v1.20.2',
          gitCommit: 'abc',
          gitTreeState: 'clean',
          buildDate: '2021-01-13T13:20:00Z',
          goVersion: 'go1.15.5',
          compiler: 'gc',
          platform: 'linux/amd64',
        });
      }
      if (path === '/api') {
        if (options.coreMissing) return send(response, 404, status(404, 'NotFound', 'not found'));
        return send(response, 200, {
          kind: 'APIVersions',
          versions: canned.coreVersions,
          serverAddressByClientCIDRs: [],
        });
      }
      if (path === '/apis') {
        return send(response, 200, {
          kind: 'APIGroupList',
          apiVersion: 'v1',
          groups: canned.groups,
        });
      }
      const match = /^\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(path);
      const gv = match ? (match[1] ?? `${match[2]}/${match[3]}`) : undefined;
      if (gv && canned.failing.has(gv)) {
        return send(
          response,
          503,
          status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'),
        );
      }
      const list = gv ? canned.resources.get(gv) : undefined;
      if (!gv || !list)
        return send(
          response,
          404,
          status(404, 'NotFound', `the server could not find the requested resource (${path})`),
        );
      const body: APIResourceList = {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: gv,
        resources: list,
      };
      return send(response, 200, body);
    };
    const isResources = path.startsWith('/api/') || path.startsWith('/apis/');
    if (isResources && options.delayMs) setTimeout(respond, options.delayMs);
    else respond();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** Discovery servers started by `start`, closed together by `closeAll`. */
export interface DiscoveryServerPool {
  start: typeof startDiscoveryServer;
  /** Closes every server started so far: register it with `afterEach`. */
  closeAll(): Promise<void>;
}

/** A pool of discovery servers, for a test file whose tests each start one. */
export function discoveryServerPool(): DiscoveryServerPool {
  const servers: StubDiscoveryServer[] = [];
  return {
    async start(canned, options) {
      const server = await startDiscoveryServer(canned, options);
      servers.push(server);
      return server;
    },
    async closeAll() {
      await Promise.all(servers.splice(0).map((server) => server.close()));
    },
  };
}
