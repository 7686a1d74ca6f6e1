import { type RequestContext, sendJson } from './http.js';
import type { Entry } from './object-entry.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { parseObjectBody, parsePatch } from './request-body.js';
import type { ServerState } from './server-state.js';
import { badRequest, methodNotAllowed } from './status.js';
import type { Target } from './target.js';

/** The scale subresource: GET, PUT or PATCH a `Scale` that reads and writes spec.replicas. */
export function serveScale(
  state: ServerState,
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
  const current = state.storage.get(target, name);
  if (req.method === 'GET') {
    sendJson(res, 200, render(current));
    return;
  }
  let scale: JsonValue;
  if (req.method === 'PUT') scale = parseObjectBody(ctx, { ...target.definition, kind: 'Scale' });
  else if (req.method === 'PATCH') {
    const typed = parsePatch(ctx);
    const base = JSON.parse(render(current)) as JsonObject;
    scale = state.storage.applyPatchToValue(base, typed, target.definition);
  } else throw methodNotAllowed(req.method ?? '', 'Scale');
  if (!isObject(scale) || !isObject(scale.spec) || typeof scale.spec.replicas !== 'number') {
    throw badRequest('the Scale must set spec.replicas');
  }
  const rv = isObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
  if (typeof rv === 'string' && rv !== '' && rv !== String(current.rv)) {
    throw state.storage.conflictFor(target, name);
  }
  const setReplicas = {
    type: 'merge',
    patch: { spec: { replicas: scale.spec.replicas } },
  } as const;
  const entry = state.storage.patch(target, name, setReplicas, { manager, dryRun });
  sendJson(res, 200, render(entry));
}
