import type { ServerResponse } from 'node:http';
import { sendJson, sendText404 } from './http.js';
import { apiGroupDocument, apiResourceList, type ResourceRegistry } from './resources.js';

const VERSION = {
  major: '1',
  minor: '20',
  gitVersion: 'v1.20.2+kubets',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'kubets',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

/**
 * Answers the fixed-path endpoints: `/version`, the health checks, `/api`, `/apis`,
 * `/api/v1` (OpenAPI is `routes-openapi.ts`). Returns false when `path` is none of them.
 */
export function serveDiscovery(
  res: ServerResponse,
  registry: ResourceRegistry,
  port: number,
  path: string,
): boolean {
  switch (path) {
    case '/version':
      sendJson(res, 200, JSON.stringify(VERSION, null, 2));
      return true;
    case '/healthz':
    case '/readyz':
    case '/livez':
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return true;
    case '/api':
      sendJson(
        res,
        200,
        JSON.stringify({
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [
            { clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` },
          ],
        }),
      );
      return true;
    case '/apis':
      sendJson(
        res,
        200,
        JSON.stringify({
          kind: 'APIGroupList',
          apiVersion: 'v1',
          groups: registry.groups().map((g) => apiGroupDocument(registry, g)),
        }),
      );
      return true;
    case '/api/v1':
      sendApiResourceList(res, registry, '', 'v1');
      return true;
  }
  return false;
}

/** `/apis/{group}`: the group's versions, or a plain 404 for a group nothing serves. */
export function sendApiGroup(res: ServerResponse, registry: ResourceRegistry, group: string): void {
  if (registry.versionsOf(group).length === 0) {
    sendText404(res);
    return;
  }
  sendJson(
    res,
    200,
    JSON.stringify({
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...apiGroupDocument(registry, group),
    }),
  );
}

/** `/api/v1`, `/apis/{group}/{version}`: the APIResourceList of one group version. */
export function sendApiResourceList(
  res: ServerResponse,
  registry: ResourceRegistry,
  group: string,
  version: string,
): void {
  sendJson(res, 200, JSON.stringify(apiResourceList(registry, group, version)));
}
