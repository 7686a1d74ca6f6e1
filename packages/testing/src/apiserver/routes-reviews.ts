import { fieldsTree } from './fieldmanager.js';
import { rawBodyOf } from './go-decode.js';
import { type RequestContext, sendJson } from './http.js';
import { timestamp } from './object-meta.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { parseObjectBody } from './request-body.js';
import { apiVersionOf } from './resources.js';
import { ApiError, badRequest, failure, invalid, pathNotFound } from './status.js';
import type { Target } from './target.js';
import { checkWireTypes } from './wire-decode.js';
import { checkKind } from './write-checks.js';

/**
 * What a user kube-apiserver 1.20 treats as `system:masters` may do, as a
 * SelfSubjectRulesReview lists it: everything, by cluster-admin and the bootstrap roles. The
 * in-memory server authorizes every request, so every caller gets this answer.
 */
const ALL_RULES: JsonObject = {
  resourceRules: [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    {
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    },
  ],
  nonResourceRules: [
    { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
    {
      verbs: ['get'],
      nonResourceURLs: [
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
        '/healthz',
        '/livez',
        '/openapi',
        '/openapi/*',
        '/readyz',
        '/version',
        '/version/',
      ],
    },
  ],
  incomplete: false,
};

/** True for what Go leaves at its zero value: absent, null, "", 0, false, {} or []. */
function isZero(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || value === '' || value === 0 || value === false)
    return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.values(value).every(isZero);
}

/** The causes of a review kube-apiserver refuses: metadata must be empty, and the spec's own. */
function reviewCauses(kind: string, body: JsonObject): { field: string; message: string }[] {
  const causes: { field: string; message: string }[] = [];
  const { managedFields: _managedFields, ...metadata } = isObject(body.metadata)
    ? body.metadata
    : {};
  if (!isZero(metadata))
    causes.push({
      field: 'metadata',
      message: `Invalid value: ${JSON.stringify(metadata)}: must be empty`,
    });
  if (kind !== 'SelfSubjectAccessReview') return causes;
  const spec = isObject(body.spec) ? body.spec : {};
  // Go decodes an absent or null attributes object to nil, and `{}` to an empty one.
  const hasResource = isObject(spec.resourceAttributes);
  const nonResource = spec.nonResourceAttributes;
  if (!hasResource && !isObject(nonResource))
    causes.push({
      field: 'spec.resourceAttributes',
      message:
        'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  else if (hasResource && isObject(nonResource))
    causes.push({
      field: 'spec.nonResourceAttributes',
      message: `Invalid value: authorization.NonResourceAttributes{Path:${JSON.stringify(nonResource.path ?? '')}, Verb:${JSON.stringify(nonResource.verb ?? '')}}: cannot be specified in combination with resourceAttributes`,
    });
  return causes;
}

/**
 * A review (authorization.k8s.io SelfSubjectAccessReview, SelfSubjectRulesReview): only POST
 * to the collection; nothing is stored. The answer allows everything, as the server does.
 */
export function serveReview(
  ctx: RequestContext,
  target: Target,
  name: string | undefined,
  manager: string,
): void {
  const def = target.definition;
  if (name !== undefined) throw pathNotFound();
  if (ctx.req.method !== 'POST')
    throw new ApiError(
      failure(
        405,
        'MethodNotAllowed',
        'the server does not allow this method on the requested resource',
        {},
      ),
    );
  const body = parseObjectBody(ctx, def);
  checkKind(target, body);
  checkWireTypes(target, rawBodyOf(body));
  const causes = reviewCauses(def.kind, body);
  if (causes.length > 0)
    throw invalid(
      '',
      '',
      causes.map((c) => ({ ...c, reason: 'FieldValueInvalid' })),
      def.group,
    );
  const apiVersion = apiVersionOf(def.group, target.version);
  const spec = isObject(body.spec) ? body.spec : {};
  let answer: JsonObject;
  if (def.kind === 'SelfSubjectRulesReview') {
    if (typeof spec.namespace !== 'string' || spec.namespace === '')
      throw badRequest('no namespace on request');
    // kube-apiserver answers with a new object: the spec is not echoed.
    answer = {
      kind: def.kind,
      apiVersion,
      metadata: { creationTimestamp: null },
      spec: {},
      status: ALL_RULES,
    };
  } else {
    const managedField = {
      manager,
      operation: 'Update',
      apiVersion,
      time: timestamp(),
      fieldsType: 'FieldsV1',
      fieldsV1: fieldsTree({ spec }, def.mergeKeys, 'main'),
    };
    answer = {
      kind: def.kind,
      apiVersion,
      metadata: { creationTimestamp: null, managedFields: [managedField] },
      spec,
      status: { allowed: true },
    };
  }
  sendJson(ctx.res, 201, JSON.stringify(answer));
}
