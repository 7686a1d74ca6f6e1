import { parse as parseYaml, type Tags } from 'yaml';
import { rememberRawBody } from './go-decode.js';
import type { RequestContext } from './http.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { decodeProtobufObject } from './protobuf.js';
import type { ResourceDefinition } from './resources.js';
import { ApiError, badRequest, failure } from './status.js';
import type { PatchType, TypedPatch } from './target.js';
import type { DeleteOptions } from './write-delete.js';

/**
 * YAML read as kube-apiserver's go-yaml v2 reads it into JSON: YAML 1.1 scalars (`y`, `yes`,
 * `on` are `true`, `0777` octal, `1_000` a number), a repeated key's last value winning, but
 * timestamps, base-60 numbers and `!!binary` kept as the strings they are.
 */
const GO_YAML = {
  version: '1.1',
  uniqueKeys: false,
  customTags: (tags: Tags): Tags =>
    tags.filter(
      (tag) =>
        typeof tag === 'string' ||
        (tag.tag !== 'tag:yaml.org,2002:timestamp' &&
          tag.tag !== 'tag:yaml.org,2002:binary' &&
          !('format' in tag && tag.format === 'TIME')),
    ),
} as const;

/** The media type of the request body, without parameters; `fallback` when none is sent. */
function contentTypeOf(ctx: RequestContext, fallback: string): string {
  return (ctx.req.headers['content-type'] ?? fallback).split(';')[0]?.trim() ?? '';
}

/** Parses the body as JSON or YAML, failing as kube-apiserver's decoder does for `kind`. */
function parseJson(ctx: RequestContext, kind: string): JsonValue {
  const contentType = contentTypeOf(ctx, 'application/json');
  const text = ctx.body.toString('utf8');
  if (contentType === 'application/yaml' || contentType === 'application/apply-patch+yaml') {
    try {
      return parseYaml(text, GO_YAML) as JsonValue;
    } catch (error) {
      throw badRequest(`error converting YAML to JSON: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    const reason = goJsonError(text, (error as Error).message);
    throw badRequest(
      `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${reason} (${summariseBody(ctx.body)})`,
    );
  }
}

/** The object of a POST or PUT (JSON or YAML). */
export function parseObjectBody(ctx: RequestContext, def: ResourceDefinition): JsonObject {
  const contentType = contentTypeOf(ctx, 'application/json');
  // Typed Go clients (kubectl's `create configmap`, …) send built-in kinds as protobuf.
  if (contentType === 'application/vnd.kubernetes.protobuf') {
    return decodeProtobufObject(ctx.body, def);
  }
  if (
    contentType !== 'application/json' &&
    contentType !== 'application/yaml' &&
    contentType !== '*/*'
  ) {
    throw new ApiError(
      failure(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      ),
    );
  }
  const value = parseJson(ctx, def.kind);
  if (!isObject(value)) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  if (contentType !== 'application/yaml') rememberRawBody(value, ctx.body.toString('utf8'));
  return value;
}

/**
 * A PATCH's type, from its Content-Type. Built-in resources are served through go-restful,
 * which refuses a type it does not list with its own terse 415; custom resources list the
 * types they take (strategic merge is not one of them).
 */
export function patchTypeOf(ctx: RequestContext, def: ResourceDefinition): PatchType {
  const contentType = contentTypeOf(ctx, '');
  const type = PATCH_TYPES[contentType];
  if (def.custom && (type === undefined || type === 'strategic')) {
    throw new ApiError(
      failure(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      ),
    );
  }
  if (type === undefined) {
    throw new ApiError(failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}));
  }
  return type;
}

const PATCH_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** The patch of a PATCH of the given type (see {@link patchTypeOf}). */
export function parsePatch(ctx: RequestContext, type: PatchType): TypedPatch {
  let patch: JsonValue;
  try {
    patch = parseJson(ctx, 'Patch');
  } catch {
    // A merge patch that is not JSON: 1.20 answers 500 `Invalid JSON Patch` without a reason;
    // later releases a 400, as here.
    throw badRequest(
      type === 'apply'
        ? 'error decoding YAML: the apply configuration is not valid YAML'
        : type === 'merge'
          ? 'Invalid JSON Patch'
          : `json: invalid ${type} patch body (${ctx.body.toString('utf8').slice(0, 30)} ...)`,
    );
  }
  return { type, patch };
}

/** The DeleteOptions of a DELETE, from its body and query: preconditions, dryRun, policy, grace. */
export function parseDeleteOptions(ctx: RequestContext): DeleteOptions & { dryRun: boolean } {
  const value: JsonObject = {};
  if (ctx.body.length > 0) {
    const body = parseJson(ctx, 'DeleteOptions');
    if (!isObject(body)) throw badRequest('DeleteOptions must be an object');
    Object.assign(value, body);
  }
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
  const { query } = ctx;
  const graceText = query.get('gracePeriodSeconds');
  const grace =
    typeof value.gracePeriodSeconds === 'number'
      ? value.gracePeriodSeconds
      : graceText !== null
        ? Number(graceText)
        : undefined;
  const policy = value.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const orphan = value.orphanDependents === true || query.get('orphanDependents') === 'true';
  if (policy !== undefined && policy !== null && !PROPAGATION_POLICIES.includes(policy as never)) {
    const message = `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`;
    throw new ApiError(
      failure(
        422,
        'Invalid',
        `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: ${message}`,
        {
          group: 'meta.k8s.io',
          kind: 'DeleteOptions',
          causes: [{ reason: 'FieldValueNotSupported', message, field: 'propagationPolicy' }],
        },
      ),
    );
  }
  const propagationPolicy = (policy ?? (orphan ? 'Orphan' : undefined)) as
    | DeleteOptions['propagationPolicy']
    | null;
  return {
    ...(preconditions ? { preconditions } : {}),
    dryRun,
    ...(propagationPolicy ? { propagationPolicy } : {}),
    ...(grace !== undefined && Number.isFinite(grace) ? { gracePeriodSeconds: grace } : {}),
  };
}

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'] as const;

/** Describes a JSON syntax error the way Go's encoding/json does. */
function goJsonError(text: string, message: string): string {
  const at = /position (\d+)/.exec(message);
  const position = at ? Number(at[1]) : text.length;
  if (text.trim() === '' || position >= text.length || /end of JSON|Unterminated/i.test(message)) {
    return 'unexpected end of JSON input';
  }
  return `invalid character ${JSON.stringify(text[position]).replace(/^"|"$/g, "'")} looking for beginning of value`;
}

/**
 * The start of a body that did not decode, as kube-apiserver quotes it: `<empty>`, up to 30
 * bytes of text when it starts with `{`, else up to 30 bytes in hex; ` ...` when cut.
 */
function summariseBody(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const shown = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${shown} ...` : shown;
}
