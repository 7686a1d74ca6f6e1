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

type Cause = { field: string; message: string };

/** Go's `%#v` of NonResourceAttributes, as the 422 messages print it. */
function goNonResource(attrs: JsonObject): string {
  return `authorization.NonResourceAttributes{Path:${JSON.stringify(attrs.path ?? '')}, Verb:${JSON.stringify(attrs.verb ?? '')}}`;
}

/** The spec causes shared by the access reviews: exactly one kind of attributes, and a subject. */
function accessSpecCauses(spec: JsonObject, needsSubject: boolean): Cause[] {
  const causes: Cause[] = [];
  // Go decodes an absent or null attributes object to nil, and `{}` to an empty one.
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (isObject(resource) && isObject(nonResource))
    causes.push({
      field: 'spec.nonResourceAttributes',
      message: `Invalid value: ${goNonResource(nonResource)}: cannot be specified in combination with resourceAttributes`,
    });
  if (!isObject(resource) && !isObject(nonResource))
    causes.push({
      field: 'spec.resourceAttributes',
      message:
        'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  const user = typeof spec.user === 'string' ? spec.user : '';
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  if (needsSubject && user === '' && groups.length === 0)
    causes.push({
      field: 'spec.user',
      message: `Invalid value: ${JSON.stringify(user)}: at least one of user or group must be specified`,
    });
  return causes;
}

/**
 * The causes of a review kube-apiserver 1.20 refuses, in its order: the spec's, then
 * metadata (which must be empty, but a local review's namespace), then a local review's own.
 */
function reviewCauses(kind: string, body: JsonObject): Cause[] {
  const spec = isObject(body.spec) ? body.spec : {};
  const local = kind === 'LocalSubjectAccessReview';
  const causes: Cause[] =
    kind === 'SelfSubjectRulesReview'
      ? []
      : accessSpecCauses(spec, kind !== 'SelfSubjectAccessReview');
  const {
    managedFields: _managedFields,
    namespace,
    ...metadata
  } = isObject(body.metadata) ? body.metadata : {};
  if (!isZero(local ? metadata : { ...metadata, namespace: namespace ?? null }))
    causes.push({
      field: 'metadata',
      message: `Invalid value: ${JSON.stringify(isObject(body.metadata) ? body.metadata : {})}: must be empty${local ? ' except for namespace' : ''}`,
    });
  if (!local) return causes;
  const ns = typeof namespace === 'string' ? namespace : '';
  if (isObject(spec.resourceAttributes)) {
    const attrNamespace = spec.resourceAttributes.namespace;
    const wanted = typeof attrNamespace === 'string' ? attrNamespace : '';
    if (wanted !== ns)
      causes.push({
        field: 'spec.resourceAttributes.namespace',
        message: `Invalid value: ${JSON.stringify(wanted)}: must match metadata.namespace`,
      });
  }
  if (isObject(spec.nonResourceAttributes))
    causes.push({
      field: 'spec.nonResourceAttributes',
      message: `Invalid value: ${goNonResource(spec.nonResourceAttributes)}: disallowed on this kind of request`,
    });
  return causes;
}

/**
 * A review (authorization.k8s.io SelfSubjectAccessReview, SelfSubjectRulesReview,
 * SubjectAccessReview, LocalSubjectAccessReview): only POST to the collection; nothing is
 * stored. The in-memory server authorizes every request, so every review is allowed: what
 * kube-apiserver answers for a subject in `system:masters`.
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
  if (def.kind === 'LocalSubjectAccessReview') {
    const metadata = isObject(body.metadata) ? body.metadata : {};
    if (metadata.namespace !== target.namespace)
      throw badRequest(
        `spec.resourceAttributes.namespace must match namespace: ${target.namespace ?? ''}`,
      );
  }
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
      metadata: {
        ...(def.namespaced ? { namespace: target.namespace ?? '' } : {}),
        creationTimestamp: null,
        managedFields: [managedField],
      },
      spec,
      status: { allowed: true },
    };
  }
  sendJson(ctx.res, 201, JSON.stringify(answer));
}
