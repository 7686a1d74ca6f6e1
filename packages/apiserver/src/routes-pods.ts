import { type RequestContext, sendJson } from './http.js';
import { isObject } from './patch.js';
import { parseObjectBody } from './request-body.js';
import type { ServerState } from './server-state.js';
import { badRequest, methodNotAllowed, notFound } from './status.js';
import type { Target } from './target.js';

/** The pod subresources answered here besides `log` and `status`. */
export const POD_ACTIONS = new Set(['binding', 'eviction', 'exec', 'attach']);

/** A `201` Status of success, as kube-apiserver answers a binding or an eviction. */
const CREATED = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  code: 201,
});

/**
 * `pods/<name>/binding` (the scheduler's write), `eviction` (deletes the pod: no
 * PodDisruptionBudget is ever in the way) and `exec`/`attach`, which need a kubelet: a pod on
 * no node is a 400, and no node has a kubelet to reach.
 */
export function servePodAction(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string,
  action: string,
  dryRun: boolean,
): void {
  const method = ctx.req.method ?? 'GET';
  if (action === 'exec' || action === 'attach') {
    if (method !== 'GET' && method !== 'POST') throw methodNotAllowed(method, 'Pod');
    const spec = state.storage.get(target, name).obj.spec;
    const node = isObject(spec) && typeof spec.nodeName === 'string' ? spec.nodeName : '';
    if (node === '') throw badRequest(`pod ${name} does not have a host assigned`);
    // kube-apiserver looks the node up to reach its kubelet; it names the failure as a pod's.
    throw notFound('pods', node);
  }
  if (method !== 'POST') throw methodNotAllowed(method, 'Pod');
  if (action === 'binding') {
    state.storage.bind(
      target,
      name,
      parseObjectBody(ctx, { ...target.definition, kind: 'Binding' }),
      dryRun,
    );
    sendJson(ctx.res, 201, CREATED);
    return;
  }
  const eviction = parseObjectBody(ctx, { ...target.definition, kind: 'Eviction' });
  const options = isObject(eviction.deleteOptions) ? eviction.deleteOptions : {};
  const grace = options.gracePeriodSeconds;
  state.storage.delete(target, name, {
    dryRun,
    ...(typeof grace === 'number' ? { gracePeriodSeconds: grace } : {}),
  });
  sendJson(ctx.res, 201, CREATED);
}
