import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse as parseYaml } from 'yaml';
import { generateEnvtestCertificates } from '../certs.js';
import { renderKubeconfig } from '../kubeconfig.js';
import { trackTempDir, untrackTempDir } from '../process.js';
import { type ApiServerFaults, defaultFaultMessage, FaultState } from './faults.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { PodLogState, type PodLogs } from './podlogs.js';
import {
  apiGroupDocument,
  apiResourceList,
  apiVersionOf,
  openApiV3GroupVersion,
  openApiV3Root,
  type ResourceDefinition,
} from './resources.js';
import {
  ApiError,
  badRequest,
  failure,
  internalError,
  methodNotAllowed,
  pathNotFound,
  success,
  unsupportedMediaType,
} from './status.js';
import { ApiStorage, type ListQuery, type PatchType, parseRv, type Target } from './storage.js';
import type { Entry } from './store.js';
import { renderObject, type View, WatchStream } from './watch.js';

/** Options for {@link startApiServer}. */
export interface ApiServerOptions {
  /**
   * Serve HTTPS with a freshly generated CA and serving certificate for 127.0.0.1/localhost
   * (the kubeconfig then carries the CA and an admin client certificate). Default false:
   * plain HTTP, which every client accepts given the kubeconfig.
   */
  tls?: boolean;
  /** TCP port on 127.0.0.1. Default 0: a free port. */
  port?: number;
  /**
   * Events kept per resource for watches from an older resourceVersion and for consistent
   * paged lists. Default 10 000. A watch from before the oldest kept event gets 410 Expired.
   */
  historySize?: number;
  /** How often watches with `allowWatchBookmarks=true` get a BOOKMARK. Default 10 000 ms. */
  bookmarkIntervalMs?: number;
  /** Where to write the kubeconfig. Default: `kubeconfig` in a new temp dir removed by `stop()`. */
  kubeconfigPath?: string;
  /** Largest accepted request body in bytes. Default 3 MiB, as kube-apiserver. */
  maxRequestBytes?: number;
}

/** PEM strings of an HTTPS in-memory server's CA and admin client identity. */
export interface ApiServerTls {
  /** The CA that signed the serving certificate. */
  caData: string;
  /** An admin client certificate (the server accepts any client, with or without one). */
  certData: string;
  /** Its private key. */
  keyData: string;
}

/** A running in-memory Kubernetes API server. */
export interface InMemoryApiServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` (or `https://` with `tls: true`). */
  readonly host: string;
  /** The port the server listens on (on 127.0.0.1); chosen by the OS unless given. */
  readonly port: number;
  /** The kubeconfig (YAML): cluster, context and user `kubets-apiserver`, namespace `default`. */
  readonly kubeconfig: string;
  /** Path of {@link InMemoryApiServer.kubeconfig} on disk. */
  readonly kubeconfigPath: string;
  /** TLS material, when started with `tls: true`. */
  readonly tls: ApiServerTls | undefined;
  /** Fault injection. */
  readonly faults: ApiServerFaults;
  /**
   * The container logs served at `pods/{name}/log`, which tests write (there is no kubelet):
   * `server.podLogs.append('default', 'web', 'ready\n')`. See {@link PodLogs}.
   */
  readonly podLogs: PodLogs;
  /** The current (last written) resourceVersion. */
  resourceVersion(): string;
  /** Closes every connection and watch, stops listening and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
  /** Same as {@link InMemoryApiServer.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

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

interface Route {
  definition: ResourceDefinition;
  version: string;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  watchPath: boolean;
}

class RequestContext {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly url: URL,
    readonly body: Buffer,
  ) {}

  get query(): URLSearchParams {
    return this.url.searchParams;
  }

  get view(): View {
    return /as=PartialObjectMetadata/.test(this.req.headers.accept ?? '') ? 'metadata' : 'full';
  }
}

function sendJson(
  res: ServerResponse,
  code: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

function sendText404(res: ServerResponse): void {
  const body = '404 page not found\n';
  res.writeHead(404, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

function sendError(
  res: ServerResponse,
  error: ApiError,
  headers: Record<string, string> = {},
): void {
  sendJson(res, error.code, JSON.stringify(error.status), headers);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(
          new ApiError(
            failure(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'),
          ),
        );
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function isWatchQuery(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value === 'true' || value === '1';
}

/** The HTTP side of the in-memory API server. */
class ApiHandler {
  readonly storage: ApiStorage;
  readonly faults: FaultState;
  readonly streams = new Set<WatchStream>();
  readonly podLogs: PodLogState;
  readonly #bookmarkIntervalMs: number;
  readonly #maxRequestBytes: number;
  port = 0;

  constructor(options: ApiServerOptions) {
    this.storage = new ApiStorage({ historySize: options.historySize ?? 10_000 });
    this.#bookmarkIntervalMs = options.bookmarkIntervalMs ?? 10_000;
    this.#maxRequestBytes = options.maxRequestBytes ?? 3 * 1024 * 1024;
    this.faults = new FaultState({
      closeWatches: () => {
        for (const stream of [...this.streams]) stream.close();
      },
      compact: () => this.storage.compact(),
      resume: () => {
        for (const stream of this.streams) stream.flush();
      },
    });
    const pods = this.storage.registry.lookup('', 'v1', 'pods');
    if (!pods) throw new Error('the pods resource is not registered');
    this.podLogs = new PodLogState(this.storage.storeOf(pods));
    this.storage.hooks.resourceRemoved = (store) => {
      for (const sink of store.watchers()) if (sink instanceof WatchStream) sink.close();
    };
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const isApi =
      path === '/api' || path.startsWith('/api/') || path === '/apis' || path.startsWith('/apis/');
    try {
      const body =
        req.method === 'GET' || req.method === 'HEAD'
          ? Buffer.alloc(0)
          : await readBody(req, this.#maxRequestBytes);
      if (this.faults.latencyMs > 0) await sleep(this.faults.latencyMs);
      if (this.faults.stalled) await this.faults.waitUntilResumed();
      if (res.destroyed) return;
      if (isApi) {
        const watch =
          isWatchQuery(url.searchParams) || /^\/apis?\/(?:[^/]+\/)?[^/]+\/watch\//.test(path);
        const rule = this.faults.takeRule({
          method: req.method ?? 'GET',
          path,
          query: url.searchParams,
          watch,
        });
        if (rule) {
          const defaults = defaultFaultMessage(rule.status);
          const status = failure(rule.status, defaults.reason, rule.message ?? defaults.message, {
            ...(rule.retryAfterSeconds !== undefined
              ? { retryAfterSeconds: rule.retryAfterSeconds }
              : {}),
          });
          sendJson(
            res,
            rule.status,
            JSON.stringify(status),
            rule.retryAfterSeconds !== undefined
              ? { 'Retry-After': String(rule.retryAfterSeconds) }
              : {},
          );
          return;
        }
      }
      this.#route(new RequestContext(req, res, url, body), path);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof ApiError) sendError(res, error);
      else sendError(res, internalError(error instanceof Error ? error.message : String(error)));
    }
  }

  #route(ctx: RequestContext, path: string): void {
    const { res } = ctx;
    const registry = this.storage.registry;
    switch (path) {
      case '/version':
        sendJson(res, 200, JSON.stringify(VERSION, null, 2));
        return;
      case '/healthz':
      case '/readyz':
      case '/livez':
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('ok');
        return;
      case '/api':
        sendJson(
          res,
          200,
          JSON.stringify({
            kind: 'APIVersions',
            versions: ['v1'],
            serverAddressByClientCIDRs: [
              { clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${this.port}` },
            ],
          }),
        );
        return;
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
        return;
      case '/api/v1':
        sendJson(res, 200, JSON.stringify(apiResourceList(registry, '', 'v1')));
        return;
      case '/openapi/v3':
        sendJson(res, 200, JSON.stringify(openApiV3Root(registry, String(this.#registryHash()))));
        return;
    }
    if (path.startsWith('/openapi/v3/')) {
      const parts = path.slice('/openapi/v3/'.length).split('/');
      const [group, version] = parts[0] === 'api' ? ['', parts[1]] : [parts[1] ?? '', parts[2]];
      if (version !== undefined && registry.hasGroupVersion(group, version)) {
        sendJson(res, 200, JSON.stringify(openApiV3GroupVersion(registry, group, version)));
        return;
      }
    }
    const segments = path.split('/').slice(1);
    if (segments[0] === 'api' && segments[1] === 'v1' && segments.length > 2) {
      this.#resource(ctx, '', 'v1', segments.slice(2));
      return;
    }
    if (segments[0] === 'apis' && segments.length >= 2) {
      const group = segments[1] as string;
      if (segments.length === 2) {
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
        return;
      }
      const version = segments[2] as string;
      if (!registry.hasGroupVersion(group, version)) {
        sendText404(res);
        return;
      }
      if (segments.length === 3) {
        sendJson(res, 200, JSON.stringify(apiResourceList(registry, group, version)));
        return;
      }
      this.#resource(ctx, group, version, segments.slice(3));
      return;
    }
    sendText404(res);
  }

  /** Changes whenever the set of served resources does (CRDs), for OpenAPI cache keys. */
  #registryHash(): number {
    let hash = 0;
    for (const group of ['', ...this.storage.registry.groups()]) {
      for (const version of this.storage.registry.versionsOf(group)) {
        for (const d of this.storage.registry.resourcesOf(group, version)) {
          for (const ch of `${group}/${version}/${d.resource}`)
            hash = (hash * 31 + ch.charCodeAt(0)) | 0;
        }
      }
    }
    return hash >>> 0;
  }

  #parseRoute(group: string, version: string, input: string[]): Route {
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
    const definition = this.storage.registry.lookup(group, version, resource);
    if (!definition) throw pathNotFound();
    if (!definition.namespaced && namespace !== undefined) throw pathNotFound();
    if (definition.namespaced && namespace === undefined && name !== undefined)
      throw pathNotFound();
    if (subresource !== undefined) {
      const known =
        (subresource === 'status' && definition.status) ||
        (subresource === 'scale' && definition.scale && !definition.custom) ||
        (subresource === 'log' && definition.log && name !== undefined) ||
        (subresource === 'finalize' && definition.resource === 'namespaces');
      if (!known) throw pathNotFound();
    }
    return { definition, version, namespace, name, subresource, watchPath };
  }

  #resource(ctx: RequestContext, group: string, version: string, segments: string[]): void {
    const route = this.#parseRoute(group, version, segments);
    const { req, res, query } = ctx;
    const target: Target = {
      definition: route.definition,
      version: route.version,
      namespace: route.namespace,
    };
    const method = req.method ?? 'GET';
    const def = route.definition;
    const manager = (): string =>
      query.get('fieldManager') ||
      (req.headers['user-agent'] ?? 'unknown').split('/')[0] ||
      'unknown';
    const dryRun = query.getAll('dryRun').includes('All');
    const verbAllowed = (verb: string): void => {
      if (!def.verbs.includes(verb)) throw methodNotAllowed(verb, def.kind);
    };

    if (route.watchPath || (method === 'GET' && isWatchQuery(query))) {
      if (method !== 'GET') throw methodNotAllowed(method, def.kind);
      this.#watch(ctx, target, route.name);
      return;
    }
    if (route.subresource === 'log') {
      if (method !== 'GET') throw methodNotAllowed(method, 'PodLogOptions');
      const name = route.name as string;
      this.podLogs.serve(query, res, name, () => this.storage.get(target, name));
      return;
    }
    if (route.subresource === 'scale') {
      this.#scale(ctx, target, route.name as string, manager(), dryRun);
      return;
    }
    const subresource = route.subresource === 'status' ? 'status' : undefined;
    if (route.name === undefined) {
      switch (method) {
        case 'GET':
          this.#list(ctx, target);
          return;
        case 'POST': {
          if (def.namespaced && target.namespace === undefined) throw pathNotFound();
          const body = this.#parseObjectBody(ctx, def);
          const entry = this.storage.create(target, body, { manager: manager(), dryRun });
          sendJson(res, 201, renderObject(entry, apiVersionOf(def.group, route.version), ctx.view));
          return;
        }
        case 'DELETE': {
          verbAllowed('deletecollection');
          const deleted = this.storage.deleteCollection(target, this.#listQuery(query), dryRun);
          this.#sendList(ctx, target, deleted, { resourceVersion: this.storage.rv });
          return;
        }
        default:
          throw methodNotAllowed(method, def.kind);
      }
    }
    const name = route.name;
    switch (method) {
      case 'GET': {
        const entry = this.storage.get(target, name);
        sendJson(res, 200, renderObject(entry, apiVersionOf(def.group, route.version), ctx.view));
        return;
      }
      case 'PUT': {
        const body = this.#parseObjectBody(ctx, def);
        const entry = this.storage.update(target, name, body, {
          manager: manager(),
          dryRun,
          subresource,
        });
        sendJson(res, 200, renderObject(entry, apiVersionOf(def.group, route.version), ctx.view));
        return;
      }
      case 'PATCH': {
        const { type, patch } = this.#parsePatch(ctx);
        const existed =
          this.storage
            .storeOf(def)
            .get(target.namespace && def.namespaced ? `${target.namespace}/${name}` : name) !==
          undefined;
        const entry = this.storage.patch(target, name, type, patch, {
          manager:
            type === 'apply' && !query.get('fieldManager')
              ? this.#requireApplyManager()
              : manager(),
          dryRun,
          subresource,
          force: query.get('force') === 'true',
        });
        sendJson(
          res,
          existed ? 200 : 201,
          renderObject(entry, apiVersionOf(def.group, route.version), ctx.view),
        );
        return;
      }
      case 'DELETE': {
        if (subresource) throw methodNotAllowed('delete', def.kind);
        const options = this.#deleteOptions(ctx);
        const { entry, deleted } = this.storage.delete(target, name, {
          ...(options.preconditions ? { preconditions: options.preconditions } : {}),
          dryRun: dryRun || options.dryRun,
        });
        if (deleted && !def.returnDeletedObject) {
          const uid = isObject(entry.obj.metadata) ? entry.obj.metadata.uid : undefined;
          sendJson(
            res,
            200,
            JSON.stringify(
              success({
                name,
                ...(def.group ? { group: def.group } : {}),
                kind: def.resource,
                ...(typeof uid === 'string' ? { uid } : {}),
              }),
            ),
          );
          return;
        }
        sendJson(res, 200, renderObject(entry, apiVersionOf(def.group, route.version), ctx.view));
        return;
      }
      default:
        throw methodNotAllowed(method, def.kind);
    }
  }

  #requireApplyManager(): never {
    throw new ApiError(
      failure(
        422,
        'Invalid',
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        {
          group: 'meta.k8s.io',
          kind: 'PatchOptions',
          causes: [
            {
              reason: 'FieldValueRequired',
              message: 'Required value: is required for apply patch',
              field: 'fieldManager',
            },
          ],
        },
      ),
    );
  }

  #parseJson(ctx: RequestContext, kind: string): JsonValue {
    const contentType =
      (ctx.req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    const text = ctx.body.toString('utf8');
    if (contentType === 'application/yaml' || contentType === 'application/apply-patch+yaml') {
      try {
        return parseYaml(text) as JsonValue;
      } catch (error) {
        throw badRequest(`error converting YAML to JSON: ${(error as Error).message}`);
      }
    }
    try {
      return JSON.parse(text) as JsonValue;
    } catch (error) {
      const reason = goJsonError(text, (error as Error).message);
      throw badRequest(
        `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${reason} (${text.slice(0, 30)} ...)`,
      );
    }
  }

  #parseObjectBody(ctx: RequestContext, def: ResourceDefinition): JsonObject {
    const contentType =
      (ctx.req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    if (
      contentType !== 'application/json' &&
      contentType !== 'application/yaml' &&
      contentType !== '*/*'
    ) {
      throw new ApiError(
        failure(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
        ),
      );
    }
    const value = this.#parseJson(ctx, def.kind);
    if (!isObject(value)) {
      throw badRequest(
        `the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      );
    }
    return value;
  }

  #parsePatch(ctx: RequestContext): { type: PatchType; patch: JsonValue } {
    const contentType = (ctx.req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    const types: Record<string, PatchType> = {
      'application/json-patch+json': 'json',
      'application/merge-patch+json': 'merge',
      'application/strategic-merge-patch+json': 'strategic',
      'application/apply-patch+yaml': 'apply',
    };
    const type = types[contentType];
    if (!type) throw unsupportedMediaType(contentType);
    let patch: JsonValue;
    try {
      patch = this.#parseJson(ctx, 'Patch');
    } catch {
      throw badRequest(
        type === 'apply'
          ? 'error decoding YAML: the apply configuration is not valid YAML'
          : `json: invalid ${type} patch body (${ctx.body.toString('utf8').slice(0, 30)} ...)`,
      );
    }
    return { type, patch };
  }

  #deleteOptions(ctx: RequestContext): {
    preconditions?: { uid?: string; resourceVersion?: string };
    dryRun: boolean;
  } {
    if (ctx.body.length === 0) return { dryRun: false };
    const value = this.#parseJson(ctx, 'DeleteOptions');
    if (!isObject(value)) throw badRequest('DeleteOptions must be an object');
    const pre = isObject(value.preconditions) ? value.preconditions : undefined;
    const preconditions = pre
      ? {
          ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
          ...(typeof pre.resourceVersion === 'string'
            ? { resourceVersion: pre.resourceVersion }
            : {}),
        }
      : undefined;
    const dryRun = Array.isArray(value.dryRun) && value.dryRun.includes('All');
    return { ...(preconditions ? { preconditions } : {}), dryRun };
  }

  #listQuery(query: URLSearchParams): ListQuery {
    const limit = query.get('limit');
    let parsedLimit: number | undefined;
    if (limit !== null && limit !== '') {
      parsedLimit = Number(limit);
      if (!Number.isInteger(parsedLimit)) {
        throw badRequest(
          `limit: Invalid value: "${limit}": strconv.ParseInt: parsing "${limit}": invalid syntax`,
        );
      }
    }
    return {
      labelSelector: query.get('labelSelector') ?? undefined,
      fieldSelector: query.get('fieldSelector') ?? undefined,
      limit: parsedLimit,
      continue: query.get('continue') ?? undefined,
      resourceVersion: query.get('resourceVersion') ?? undefined,
      resourceVersionMatch: query.get('resourceVersionMatch') ?? undefined,
    };
  }

  #list(ctx: RequestContext, target: Target): void {
    if (!target.definition.verbs.includes('list'))
      throw methodNotAllowed('list', target.definition.kind);
    const result = this.storage.list(target, this.#listQuery(ctx.query));
    this.#sendList(ctx, target, result.items, result);
  }

  #sendList(
    ctx: RequestContext,
    target: Target,
    items: readonly Entry[],
    meta: { resourceVersion: number; continue?: string; remainingItemCount?: number },
  ): void {
    const { res } = ctx;
    const def = target.definition;
    const apiVersion = apiVersionOf(def.group, target.version);
    const metadata: JsonObject = { resourceVersion: String(meta.resourceVersion) };
    if (meta.continue) metadata.continue = meta.continue;
    if (meta.remainingItemCount !== undefined)
      metadata.remainingItemCount = meta.remainingItemCount;
    const head =
      ctx.view === 'metadata'
        ? `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(metadata)},"items":[`
        : `{"kind":${JSON.stringify(def.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    let chunk = head;
    for (let i = 0; i < items.length; i++) {
      chunk += (i === 0 ? '' : ',') + renderObject(items[i] as Entry, apiVersion, ctx.view);
      if (chunk.length > 1 << 20) {
        res.write(chunk);
        chunk = '';
      }
    }
    res.end(`${chunk}]}`);
  }

  #watch(ctx: RequestContext, target: Target, name: string | undefined): void {
    const { query, res } = ctx;
    const def = target.definition;
    if (!def.verbs.includes('watch')) throw methodNotAllowed('watch', def.kind);
    let fieldSelector = query.get('fieldSelector') ?? '';
    if (name !== undefined)
      fieldSelector = fieldSelector
        ? `${fieldSelector},metadata.name=${name}`
        : `metadata.name=${name}`;
    const selection = this.storage.selection(target, {
      labelSelector: query.get('labelSelector') ?? undefined,
      fieldSelector,
    });
    const sendInitialEvents = query.get('sendInitialEvents');
    const match = query.get('resourceVersionMatch') ?? '';
    const bookmarks = query.get('allowWatchBookmarks') === 'true';
    const rvParam = query.get('resourceVersion') ?? '';
    if (sendInitialEvents === 'true' || sendInitialEvents === 'false') {
      if (match !== 'NotOlderThan') {
        throw invalidWatchOptions(
          'resourceVersionMatch',
          `Unsupported value: "${match}": supported values: "NotOlderThan"`,
          'FieldValueNotSupported',
        );
      }
      if (sendInitialEvents === 'true' && !bookmarks) {
        throw invalidWatchOptions(
          'allowWatchBookmarks',
          'Forbidden: allowWatchBookmarks must be true when sendInitialEvents is true',
          'FieldValueForbidden',
        );
      }
    } else if (match !== '') {
      // kube-apiserver 1.20's answer; newer servers accept it together with sendInitialEvents.
      throw invalidWatchOptions(
        'resourceVersionMatch',
        'Forbidden: resourceVersionMatch is forbidden for watch',
        'FieldValueForbidden',
      );
    }
    const fromRv = rvParam === '' ? 0 : parseRv(rvParam);
    const timeoutParam = query.get('timeoutSeconds');
    const timeoutSeconds = timeoutParam === null ? undefined : Number(timeoutParam);
    const store = this.storage.storeOf(def);
    const namespace = def.namespaced ? target.namespace : undefined;
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    res.flushHeaders();
    const stream = new WatchStream(res, {
      store,
      namespace,
      version: target.version,
      selection,
      view: ctx.view,
      bookmarks,
      bookmarkIntervalMs: this.#bookmarkIntervalMs,
      timeoutMs:
        timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
      faults: this.faults,
      currentRv: () => this.storage.rv,
      onClose: (s) => {
        this.streams.delete(s);
        store.removeWatcher(s);
      },
    });
    const initialState =
      sendInitialEvents === 'true' || (sendInitialEvents === null && fromRv === 0);
    if (initialState) {
      for (const key of store.sortedKeys(namespace)) {
        const entry = store.get(key);
        if (entry) stream.added(entry);
      }
      if (sendInitialEvents === 'true') stream.bookmark(true);
    } else if (sendInitialEvents === 'false') {
      // Start at the most recent state: nothing to replay.
    } else {
      if (fromRv < store.floor) {
        stream.error(
          failure(410, 'Expired', `too old resource version: ${fromRv} (${store.floor})`),
        );
        return;
      }
      for (const event of store.eventsSince(fromRv)) stream.deliver(event);
    }
    if (stream.closed) return;
    store.addWatcher(stream);
    this.streams.add(stream);
    stream.start();
  }

  #scale(
    ctx: RequestContext,
    target: Target,
    name: string,
    manager: string,
    dryRun: boolean,
  ): void {
    const { req, res } = ctx;
    const render = (entry: Entry): string => {
      const obj = entry.obj;
      const md = isObject(obj.metadata) ? obj.metadata : {};
      const spec = isObject(obj.spec) ? obj.spec : {};
      const status = isObject(obj.status) ? obj.status : {};
      const selector =
        isObject(spec.selector) && isObject(spec.selector.matchLabels)
          ? Object.entries(spec.selector.matchLabels)
              .map(([k, v]) => `${k}=${String(v)}`)
              .join(',')
          : '';
      return JSON.stringify({
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: {
          name: md.name,
          namespace: md.namespace,
          uid: md.uid,
          resourceVersion: md.resourceVersion,
          creationTimestamp: md.creationTimestamp,
        },
        spec: { replicas: spec.replicas ?? 0 },
        status: { replicas: status.replicas ?? 0, ...(selector ? { selector } : {}) },
      });
    };
    const current = this.storage.get(target, name);
    if (req.method === 'GET') {
      sendJson(res, 200, render(current));
      return;
    }
    let scale: JsonValue;
    if (req.method === 'PUT')
      scale = this.#parseObjectBody(ctx, { ...target.definition, kind: 'Scale' });
    else if (req.method === 'PATCH') {
      const { type, patch } = this.#parsePatch(ctx);
      const base = JSON.parse(render(current)) as JsonObject;
      scale = this.storage.applyPatchToValue(base, type, patch, target.definition);
    } else throw methodNotAllowed(req.method ?? '', 'Scale');
    if (!isObject(scale) || !isObject(scale.spec) || typeof scale.spec.replicas !== 'number') {
      throw badRequest('the Scale must set spec.replicas');
    }
    const rv = isObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
    if (typeof rv === 'string' && rv !== '' && rv !== String(current.rv)) {
      throw this.storage.conflictFor(target, name);
    }
    const entry = this.storage.patch(
      target,
      name,
      'merge',
      { spec: { replicas: scale.spec.replicas } },
      { manager, dryRun },
    );
    sendJson(res, 200, render(entry));
  }
}

/** Describes a JSON syntax error the way Go's encoding/json does. */
function goJsonError(text: string, message: string): string {
  const at = /position (\d+)/.exec(message);
  const position = at ? Number(at[1]) : text.length;
  if (text.trim() === '' || position >= text.length || /end of JSON|Unterminated/i.test(message)) {
    return 'unexpected end of JSON input';
  }
  return `invalid character ${JSON.stringify(text[position]).replace(/^"|"$/g, "'")} looking for beginning of value`;
}

function invalidWatchOptions(field: string, message: string, reason: string): ApiError {
  return new ApiError(
    failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: ${message}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: [{ reason, message, field }],
    }),
  );
}

/** `localhost`, `127.x.x.x` or `[::1]`, each with an optional port: names of this machine. */
const loopbackHost =
  /^(?:localhost|127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}|\[::1\])(?::\d{1,5})?$/i;

/**
 * Why a request must be refused because it may come from a web page, or `undefined`. The
 * server listens on 127.0.0.1 only and asks for no credentials, so the browser is the way in:
 * a page whose own host name resolves to 127.0.0.1 (DNS rebinding) sends its name as `Host`,
 * and a page calling from another origin sends `Origin`. Clients (kubectl, client-go, kubets)
 * send the loopback address they connected to and no `Origin`.
 */
function foreignRequest(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (host !== undefined && !loopbackHost.test(host)) {
    return `Host ${JSON.stringify(host)} is not a loopback name or address: the in-memory API server answers requests for localhost, 127.0.0.1 or [::1] only`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = undefined; // "null" (sandboxed pages, file: URLs) or garbage
    }
    if (originHost === undefined || originHost === '' || !loopbackHost.test(originHost)) {
      return `Origin ${JSON.stringify(origin)} is not a loopback origin: the in-memory API server refuses cross-origin requests from web pages`;
    }
  }
  return undefined;
}

/**
 * Starts an in-memory Kubernetes API server on 127.0.0.1: discovery, CRUD, patch (JSON,
 * merge, strategic merge, server-side apply), list and watch with kube-apiserver 1.20's
 * semantics for the built-in resources it knows and for CustomResourceDefinitions created
 * at run time, plus fault injection. Starts in milliseconds (plain HTTP) and keeps
 * everything in memory.
 *
 * It has no authentication, so it refuses what a web page could send it (DNS rebinding,
 * cross-origin requests): a request whose `Host` is not `localhost`, `127.x.x.x` or `[::1]`
 * (with any port), or that carries an `Origin` of another host, gets 403 with a `Status`
 * naming the rejected value.
 *
 * @example
 * ```ts
 * await using server = await startApiServer();
 * // server.kubeconfigPath for kubectl / any client; server.faults to inject failures
 * ```
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<InMemoryApiServer> {
  const handler = new ApiHandler(options);
  let tls: ApiServerTls | undefined;
  let server: Server;
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const refusal = foreignRequest(req);
    if (refusal !== undefined) {
      req.resume();
      sendJson(res, 403, JSON.stringify(failure(403, 'Forbidden', refusal)));
      return;
    }
    void handler.handle(req, res);
  };
  let serving: { certPem: string; keyPem: string } | undefined;
  if (options.tls) {
    const certs = await generateEnvtestCertificates();
    tls = { caData: certs.ca.certPem, certData: certs.admin.certPem, keyData: certs.admin.keyPem };
    serving = certs.serving;
    server = createHttpsServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: certs.ca.certPem,
        requestCert: true,
        rejectUnauthorized: false,
      },
      onRequest,
    );
  } else {
    server = createHttpServer(onRequest);
  }
  server.keepAliveTimeout = 60_000;
  const sockets = new Set<Socket>();
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: options.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  handler.port = port;
  const host = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const kubeconfig = renderKubeconfig({
    server: host,
    ...(tls
      ? { caPem: tls.caData, certPem: tls.certData, keyPem: tls.keyData }
      : { insecureSkipTlsVerify: true }),
    context: 'kubets-apiserver',
    user: 'kubets-apiserver',
  });
  let dir: string | undefined;
  let kubeconfigPath = options.kubeconfigPath;
  if (kubeconfigPath === undefined) {
    dir = await mkdtemp(join(tmpdir(), 'kubets-apiserver-'));
    trackTempDir(dir);
    kubeconfigPath = join(dir, 'kubeconfig');
  }
  await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      for (const stream of [...handler.streams]) stream.close();
      handler.podLogs.closeAll();
      handler.faults.reset();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      for (const socket of sockets) socket.destroy();
      await closed;
      if (dir) {
        await rm(dir, { recursive: true, force: true });
        untrackTempDir(dir);
      }
    })();
    return stopping;
  };
  return {
    host,
    port,
    kubeconfig,
    kubeconfigPath,
    tls,
    faults: handler.faults,
    podLogs: handler.podLogs,
    resourceVersion: () => String(handler.storage.rv),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
