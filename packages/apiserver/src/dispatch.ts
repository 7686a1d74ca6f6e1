import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveAdmittedWrite } from './admission-writes.js';
import { serveConvertedRequest, serveConvertedWatch } from './conversion-routes.js';
import { sendApiGroup, sendApiResourceList, serveDiscovery } from './discovery.js';
import { defaultFaultMessage, type FaultState } from './faults.js';
import {
  isWatchQuery,
  RequestContext,
  readBody,
  sendError,
  sendJson,
  sendText404,
} from './http.js';
import { waitForFreshRead } from './read-wait.js';
import type { ResourceDefinition } from './resources.js';
import { serveWatch } from './routes-list-watch.js';
import { serveCollection, serveObject, type WriteParams } from './routes-objects.js';
import { serveOpenApi } from './routes-openapi.js';
import { POD_ACTIONS, servePodAction } from './routes-pods.js';
import { serveReview } from './routes-reviews.js';
import { serveScale } from './routes-scale.js';
import { serveTable } from './routes-table.js';
import { serveServiceAccountToken } from './routes-token.js';
import type { ServerState } from './server-state.js';
import { ApiError, failure, internalError, methodNotAllowed, pathNotFound } from './status.js';
import { negotiateTable } from './table.js';
import type { Target } from './target.js';

interface Route {
  definition: ResourceDefinition;
  version: string;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  watchPath: boolean;
}

/**
 * The request pipeline of the in-memory API server: reads the body, applies the injected
 * latency, stalls and fault rules, then routes the path to discovery or to a resource's
 * handlers, and turns what they throw into a `Status` response.
 */
export class ApiHandler {
  readonly #state: ServerState;
  /**
   * The API priority and fairness headers kube-apiserver sends on every request it classifies:
   * the uids of the FlowSchema and PriorityLevelConfiguration that matched (one pair here, as
   * every client of this server is a cluster admin, which 1.20 classifies as `exempt`).
   */
  readonly #flowControlHeaders: Readonly<Record<string, string>> = {
    'X-Kubernetes-Pf-Flowschema-Uid': randomUUID(),
    'X-Kubernetes-Pf-Prioritylevel-Uid': randomUUID(),
  };

  constructor(state: ServerState) {
    this.#state = state;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const faults = this.#state.faults;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const isApi =
      path === '/api' || path.startsWith('/api/') || path === '/apis' || path.startsWith('/apis/');
    if (!isLongRunning(path, url.searchParams)) {
      for (const [header, value] of Object.entries(this.#flowControlHeaders)) {
        res.setHeader(header, value);
      }
    }
    try {
      const body =
        req.method === 'GET' || req.method === 'HEAD'
          ? Buffer.alloc(0)
          : await readBody(req, this.#state.maxRequestBytes);
      if (faults.latencyMs > 0) await sleep(faults.latencyMs);
      if (faults.stalled) await faults.waitUntilResumed();
      if (res.destroyed) return;
      if (isApi && sendFaultRule(faults, req, res, path, url.searchParams)) return;
      if (isApi) await waitForFreshRead(this.#state, req.method, path, url.searchParams);
      if (res.destroyed) return;
      await this.#route(new RequestContext(req, res, url, body), path);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof ApiError) sendError(res, error);
      else sendError(res, internalError(error instanceof Error ? error.message : String(error)));
    }
  }

  #route(ctx: RequestContext, path: string): void | Promise<void> {
    const { res } = ctx;
    const registry = this.#state.storage.registry;
    if (serveOpenApi(this.#state, res, path, ctx.req.headers.accept)) return;
    if (serveDiscovery(res, registry, this.#state.port, path)) return;
    const segments = path.split('/').slice(1);
    if (segments[0] === 'api' && segments[1] === 'v1' && segments.length > 2) {
      return this.#resource(ctx, '', 'v1', segments.slice(2));
    }
    if (segments[0] === 'apis' && segments.length >= 2) {
      const group = segments[1] as string;
      if (segments.length === 2) {
        sendApiGroup(res, registry, group);
        return;
      }
      const version = segments[2] as string;
      if (!registry.hasGroupVersion(group, version)) {
        sendText404(res);
        return;
      }
      if (segments.length === 3) {
        sendApiResourceList(res, registry, group, version);
        return;
      }
      return this.#resource(ctx, group, version, segments.slice(3));
    }
    sendText404(res);
  }

  #parseRoute(group: string, version: string, input: string[]): Route | undefined {
    let segments = input.map((s) => decodeURIComponent(s));
    let watchPath = false;
    if (segments[0] === 'watch') {
      watchPath = true;
      segments = segments.slice(1);
    }
    let namespace: string | undefined;
    if (
      segments[0] === 'namespaces' &&
      segments.length >= 3 &&
      !(segments.length === 3 && (segments[2] === 'status' || segments[2] === 'finalize'))
    ) {
      namespace = segments[1];
      segments = segments.slice(2);
    }
    if (segments.length === 0 || segments.length > 3) throw pathNotFound();
    const [resource, name, subresource] = segments as [
      string,
      string | undefined,
      string | undefined,
    ];
    const definition = this.#state.storage.registry.lookup(group, version, resource);
    if (!definition) throw pathNotFound();
    if (!definition.namespaced && namespace !== undefined) {
      // A custom resource's handler passes such a path on to the mux: its plain-text 404.
      if (definition.custom) return undefined;
      throw pathNotFound();
    }
    if (definition.namespaced && namespace === undefined && name !== undefined)
      throw pathNotFound();
    if (subresource !== undefined) {
      const known =
        (subresource === 'status' && definition.status) ||
        (subresource === 'scale' && definition.scale) ||
        (subresource === 'log' && definition.log && name !== undefined) ||
        (subresource === 'finalize' && definition.resource === 'namespaces') ||
        (subresource === 'token' && isServiceAccounts(definition) && name !== undefined) ||
        (definition.log && POD_ACTIONS.has(subresource) && name !== undefined);
      if (!known) throw pathNotFound();
    }
    return { definition, version, namespace, name, subresource, watchPath };
  }

  #resource(
    ctx: RequestContext,
    group: string,
    version: string,
    segments: string[],
  ): void | Promise<void> {
    const state = this.#state;
    const route = this.#parseRoute(group, version, segments);
    if (!route) {
      sendText404(ctx.res);
      return;
    }
    const { req, res, query } = ctx;
    const target: Target = {
      definition: route.definition,
      version: route.version,
      namespace: route.namespace,
    };
    const method = req.method ?? 'GET';
    const def = route.definition;
    const params: WriteParams = {
      manager: () =>
        query.get('fieldManager') ||
        (req.headers['user-agent'] ?? 'unknown').split('/')[0] ||
        'unknown',
      dryRun: query.getAll('dryRun').includes('All'),
    };

    if (def.createOnly) {
      serveReview(ctx, target, route.name, params.manager());
      return;
    }
    const watch = route.watchPath || (method === 'GET' && isWatchQuery(query));
    if (method === 'GET' && route.subresource === undefined) {
      const table = negotiateTable(req.headers.accept);
      if (table) return serveTable(state, ctx, target, route.name, table, watch);
    }
    if (method === 'GET' && !watch && route.subresource === undefined) {
      checkAcceptable(req.headers.accept, route.definition, route.name);
    }
    if (watch) {
      if (method !== 'GET') throw methodNotAllowed(method, def.kind, def.custom);
      if (serveConvertedWatch(state, ctx, target, route.name)) return;
      serveWatch(state, ctx, target, route.name);
      return;
    }
    if (route.subresource === 'log') {
      if (method !== 'GET') throw methodNotAllowed(method, 'PodLogOptions');
      const name = route.name as string;
      state.podLogs.serve(query, res, name, () => state.storage.get(target, name));
      return;
    }
    if (route.subresource !== undefined && POD_ACTIONS.has(route.subresource)) {
      servePodAction(state, ctx, target, route.name as string, route.subresource, params.dryRun);
      return;
    }
    if (route.subresource === 'token') {
      serveServiceAccountToken(state, ctx, target, route.name as string);
      return;
    }
    if (route.subresource === 'scale') {
      serveScale(state, ctx, target, route.name as string, params.manager(), params.dryRun);
      return;
    }
    const subresource = route.subresource === 'status' ? 'status' : undefined;
    const serve = (): void => {
      if (route.name === undefined) serveCollection(state, ctx, target, params);
      else serveObject(state, ctx, target, route.name, subresource, params);
    };
    const hooked = async (): Promise<void> => {
      if (await serveConvertedRequest(state, ctx, target, route.name, subresource, params)) return;
      if (method !== 'GET') {
        if (await serveAdmittedWrite(state, ctx, target, route.name, subresource, params)) return;
      }
      serve();
    };
    if (method === 'GET' && !def.custom) return serve();
    return hooked();
  }
}

function isServiceAccounts(definition: ResourceDefinition): boolean {
  return definition.group === '' && definition.resource === 'serviceaccounts';
}

/**
 * Requests API priority and fairness leaves alone (kube-apiserver's long-running check): watches
 * and the streaming subresources.
 */
function isLongRunning(path: string, query: URLSearchParams): boolean {
  return (
    isWatchQuery(query) ||
    /^\/apis?\/(?:[^/]+\/)?[^/]+\/watch\//.test(path) ||
    /\/(?:pods|services|nodes)\/[^/]+\/(?:attach|exec|proxy|log|portforward)(?:\/|$)/.test(path)
  );
}

/** Media types a built-in resource's GET can answer in (go-restful's Produces). */
const PRODUCED = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * Refuses a GET whose Accept header names nothing the server produces (go-restful's terse 406
 * for built-in resources), or asks for a PartialObjectMetadataList of one object.
 */
function checkAcceptable(
  accept: string | undefined,
  definition: ResourceDefinition,
  name: string | undefined,
): void {
  if (!accept) return;
  const ranges = accept.split(',').map((range) => range.split(';')[0]?.trim() ?? '');
  if (name !== undefined && /as=PartialObjectMetadataList/.test(accept)) {
    // The Go type kube-apiserver decoded the object into, as `%T` prints it.
    const goType = definition.custom
      ? '*unstructured.Unstructured'
      : `*${definition.group === '' ? 'core' : definition.group.split('.')[0]}.${definition.kind}`;
    throw new ApiError(
      failure(
        406,
        'NotAcceptable',
        `you requested PartialObjectMetadataList, but the requested object is not a list (${goType})`,
      ),
    );
  }
  if (definition.custom) return;
  const acceptable = ranges.some(
    (range) => range === '' || range === '*/*' || PRODUCED.includes(range),
  );
  if (!acceptable) throw new ApiError(failure(406, 'NotAcceptable', '406: Not Acceptable', {}));
}

/** Answers the request from the first matching fault rule; false when none matches. */
function sendFaultRule(
  faults: FaultState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): boolean {
  const watch = isWatchQuery(query) || /^\/apis?\/(?:[^/]+\/)?[^/]+\/watch\//.test(path);
  const rule = faults.takeRule({ method: req.method ?? 'GET', path, query, watch });
  if (!rule) return false;
  const defaults = defaultFaultMessage(rule.status);
  const status = failure(rule.status, defaults.reason, rule.message ?? defaults.message, {
    ...(rule.retryAfterSeconds !== undefined ? { retryAfterSeconds: rule.retryAfterSeconds } : {}),
  });
  sendJson(
    res,
    rule.status,
    JSON.stringify(status),
    rule.retryAfterSeconds !== undefined ? { 'Retry-After': String(rule.retryAfterSeconds) } : {},
  );
  return true;
}
