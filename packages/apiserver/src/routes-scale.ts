import { crdVersion } from './crd-lookup.js';
import { beforeFirstApplyConflict } from './fieldmanager.js';
import { type RequestContext, sendJson } from './http.js';
import type { Entry } from './object-entry.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { parseObjectBody, parsePatch, patchTypeOf } from './request-body.js';
import type { ServerState } from './server-state.js';
import {
  ApiError,
  badRequest,
  failure,
  internalError,
  invalid,
  methodNotAllowed,
  notFound,
  pathNotFound,
} from './status.js';
import { formatLabelSelector } from './table-format.js';
import type { Target } from './target.js';
import { applyConflictStatus } from './write-apply.js';

/**
 * Where a resource keeps what its Scale shows: the built-in workloads' `spec.replicas`,
 * `status.replicas` and `spec.selector`, or a CRD's `subresources.scale` paths.
 */
interface ScalePaths {
  specReplicas: string;
  statusReplicas: string;
  /** A CRD's path to a selector string; undefined for built-ins (they format `spec.selector`). */
  labelSelector: string | undefined;
}

const BUILTIN_PATHS: ScalePaths = {
  specReplicas: '.spec.replicas',
  statusReplicas: '.status.replicas',
  labelSelector: undefined,
};

function scalePaths(state: ServerState, target: Target): ScalePaths {
  if (!target.definition.custom) return BUILTIN_PATHS;
  const subresources = crdVersion(state, target.definition, target.version)?.subresources;
  const scale = isObject(subresources) ? subresources.scale : undefined;
  if (!isObject(scale) || typeof scale.specReplicasPath !== 'string') throw pathNotFound();
  return {
    specReplicas: scale.specReplicasPath,
    statusReplicas: typeof scale.statusReplicasPath === 'string' ? scale.statusReplicasPath : '',
    labelSelector:
      typeof scale.labelSelectorPath === 'string' ? scale.labelSelectorPath : undefined,
  };
}

function stepsOf(path: string): string[] {
  return path.split('.').filter((step) => step !== '');
}

function valueAt(obj: JsonObject, path: string): JsonValue | undefined {
  let at: JsonValue | undefined = obj;
  for (const step of stepsOf(path)) at = isObject(at) ? at[step] : undefined;
  return at;
}

/** The scale subresource: GET, PUT or PATCH an autoscaling/v1 `Scale` over the replica paths. */
export function serveScale(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string,
  manager: string,
  dryRun: boolean,
): void {
  const { req, res } = ctx;
  const paths = scalePaths(state, target);
  const render = (entry: Entry): string => {
    const obj = entry.obj;
    const md = isObject(obj.metadata) ? obj.metadata : {};
    const replicas = valueAt(obj, paths.specReplicas);
    if (target.definition.custom && replicas === undefined) {
      // 1.20 reads a custom resource's Scale with unstructured.NestedInt64: a 500 when absent.
      throw internalError(
        `the spec replicas field ${JSON.stringify(paths.specReplicas)} does not exist`,
      );
    }
    const statusReplicas = valueAt(obj, paths.statusReplicas);
    const selector =
      paths.labelSelector === undefined
        ? formatLabelSelector(valueAt(obj, '.spec.selector'))
        : valueAt(obj, paths.labelSelector);
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
      spec: { replicas: typeof replicas === 'number' ? replicas : 0 },
      status: {
        replicas: typeof statusReplicas === 'number' ? statusReplicas : 0,
        ...(typeof selector === 'string' && selector !== '' ? { selector } : {}),
      },
    });
  };
  const current =
    req.method === 'GET' ? scaledObject(state, target, name) : state.storage.get(target, name);
  if (req.method === 'GET') {
    sendJson(res, 200, render(current));
    return;
  }
  let scale: JsonValue;
  if (req.method === 'PUT') scale = parseObjectBody(ctx, { ...target.definition, kind: 'Scale' });
  else if (req.method === 'PATCH') {
    const typed = parsePatch(ctx, patchTypeOf(ctx, target.definition));
    const base = JSON.parse(render(current)) as JsonObject;
    if (typed.type === 'apply' && ctx.query.get('force') !== 'true') {
      checkScaleApply(base, typed.patch);
    }
    scale = state.storage.applyPatchToValue(base, typed, target.definition);
  } else throw methodNotAllowed(req.method ?? '', 'Scale');
  if (!isObject(scale) || !isObject(scale.spec) || typeof scale.spec.replicas !== 'number') {
    throw badRequest('the Scale must set spec.replicas');
  }
  const replicas = scale.spec.replicas;
  if (target.definition.custom && replicas < 0) {
    throw negativeReplicas(target, name, paths.specReplicas, replicas);
  }
  if (replicas < 0) {
    // A built-in's Scale is validated as a Scale first.
    const message = `Invalid value: ${replicas}: must be greater than or equal to 0`;
    throw invalid(
      'Scale',
      name,
      [{ reason: 'FieldValueInvalid', message, field: 'spec.replicas' }],
      'autoscaling',
    );
  }
  const rv = isObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
  if (typeof rv === 'string' && rv !== '' && rv !== String(current.rv)) {
    throw state.storage.conflictFor(target, name);
  }
  let patch: JsonValue = replicas;
  for (const step of stepsOf(paths.specReplicas).reverse()) patch = { [step]: patch };
  const entry = state.storage.patch(target, name, { type: 'merge', patch }, { manager, dryRun });
  sendJson(res, 200, render(entry));
}

/** The object a Scale GET shows; a built-in's missing object is named as its scale subresource. */
function scaledObject(state: ServerState, target: Target, name: string): Entry {
  try {
    return state.storage.get(target, name);
  } catch (error) {
    const { definition } = target;
    if (definition.custom || !(error instanceof ApiError) || error.status.code !== 404) throw error;
    throw notFound(`${definition.resource}/scale`, name, definition.group);
  }
}

/** The 422 kube-apiserver answers for a negative replica count on a custom resource's Scale. */
function negativeReplicas(target: Target, name: string, field: string, value: number): ApiError {
  const def = target.definition;
  const message = `Invalid value: ${value}: should be a non-negative integer`;
  return new ApiError(
    failure(422, 'Invalid', `${def.kind}.${def.group} "${name}" is invalid: ${field}: ${message}`, {
      name,
      group: def.group,
      kind: def.kind,
      causes: [{ reason: 'FieldValueInvalid', message, field }],
    }),
  );
}

/**
 * An apply through `/scale` without `force`: a Scale has no managedFields, so every replica count
 * it holds is `before-first-apply`'s, and applying another one conflicts (409).
 */
function checkScaleApply(current: JsonObject, config: JsonValue): void {
  const spec = isObject(config) && isObject(config.spec) ? config.spec : {};
  const currentSpec = isObject(current.spec) ? current.spec : {};
  if (spec.replicas === undefined || spec.replicas === currentSpec.replicas) return;
  throw applyConflictStatus(beforeFirstApplyConflict('autoscaling/v1', ['spec.replicas']));
}
