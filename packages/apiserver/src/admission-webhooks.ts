import { randomUUID } from 'node:crypto';
import {
  type AdmissionAttributes,
  type AdmissionResource,
  type AdmissionWebhook,
  matchedResource,
  namespaceSelectorMatches,
  objectSelectorMatches,
} from './admission-rules.js';
import { clone, isObject, type JsonObject, type JsonValue, jsonEqual, jsonPatch } from './patch.js';
import { ApiError, badRequest, failure, internalError } from './status.js';
import { CallingWebhookError, postJson } from './webhook-client.js';

/** A kind as AdmissionReview names it. */
export interface AdmissionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** One admission request: what is matched on, plus what the AdmissionReview carries. */
export interface AdmissionRequestFacts extends AdmissionAttributes {
  readonly kind: AdmissionKind;
  /** `''` when the object has no name yet (generateName). */
  readonly name: string;
  readonly dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions as the review's `options`. */
  readonly options: JsonObject;
}

/** What the server lends admission: namespaces, equivalent resources, defaulting. */
export interface AdmissionEnvironment {
  /** The labels of namespace `name`; undefined when there is none. */
  namespaceLabels(name: string): Record<string, string> | undefined;
  /** The same objects at other versions (for `matchPolicy: Equivalent`). */
  equivalents(resource: AdmissionResource): AdmissionResource[];
  /** The kind served at `resource`. */
  kindAt(resource: AdmissionResource): AdmissionKind;
  /** `obj` as read at `resource`'s version (through a conversion webhook, for some CRDs). */
  convert(obj: JsonObject, resource: AdmissionResource): Promise<JsonObject>;
  /** Applies the kind's defaults in place, as kube-apiserver does after each webhook's patch. */
  defaults(obj: JsonObject): void;
  /** The largest webhook answer read (see `webhookResponseLimit`). */
  readonly maxResponseBytes: number;
}

/** The requesting user the in-memory server (which authenticates no one) reports. */
const USER_INFO = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

/** The webhooks that apply to a request, with the resource each is called at. */
function invocations(
  hooks: readonly AdmissionWebhook[],
  facts: AdmissionRequestFacts,
  env: AdmissionEnvironment,
): { hook: AdmissionWebhook; resource: AdmissionResource }[] {
  const out: { hook: AdmissionWebhook; resource: AdmissionResource }[] = [];
  for (const hook of hooks) {
    const resource = matchedResource(hook, facts, env.equivalents(facts.resource));
    if (!resource) continue;
    if (!namespaceSelectorMatches(hook, facts, env.namespaceLabels)) continue;
    if (!objectSelectorMatches(hook, facts)) continue;
    out.push({ hook, resource });
  }
  return out;
}

/** Whether any of `hooks` could apply to a request on `facts` (rules only, no selectors). */
export function anyWebhookMatches(
  hooks: readonly AdmissionWebhook[],
  facts: AdmissionAttributes,
  env: Pick<AdmissionEnvironment, 'equivalents'>,
): boolean {
  return hooks.some((hook) => matchedResource(hook, facts, env.equivalents(facts.resource)));
}

/**
 * Runs the mutating webhooks as kube-apiserver 1.20 does: in order, each patch applied (and the
 * kind's defaults after it); if a webhook changed the object, the `IfNeeded` webhooks called
 * before that change are called once more, in order. Answers the object and the warnings.
 */
export async function runMutatingWebhooks(
  hooks: readonly AdmissionWebhook[],
  facts: AdmissionRequestFacts,
  env: AdmissionEnvironment,
): Promise<{ object: JsonObject | null; warnings: string[] }> {
  let current = facts;
  const warnings: string[] = [];
  let previouslyInvoked = new Set<string>();
  const reinvoke = new Set<string>();
  let changedAny = false;
  const round = async (reinvocation: boolean): Promise<void> => {
    for (const { hook, resource } of invocations(hooks, current, env)) {
      if (reinvocation && !reinvoke.has(hook.uid)) continue;
      const object = await callMutatingWebhook(hook, resource, current, env, warnings);
      const changed = object !== undefined;
      if (changed) {
        current = { ...current, object };
        for (const uid of previouslyInvoked) reinvoke.add(uid);
        previouslyInvoked = new Set();
        changedAny = true;
      }
      if (hook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(hook.uid);
    }
  };
  await round(false);
  if (changedAny && reinvoke.size > 0) await round(true);
  return { object: current.object, warnings };
}

/** The patched object when the webhook changed it, undefined when it did not. */
async function callMutatingWebhook(
  hook: AdmissionWebhook,
  resource: AdmissionResource,
  facts: AdmissionRequestFacts,
  env: AdmissionEnvironment,
  warnings: string[],
): Promise<JsonObject | undefined> {
  const response = await callOrIgnore(hook, resource, facts, env, warnings);
  if (!response) return undefined;
  const patch = response.patch;
  if (typeof patch !== 'string' || patch === '' || facts.object === null) return undefined;
  const atVersion = await env.convert(facts.object, resource);
  let operations: JsonValue;
  let patched: JsonValue;
  try {
    operations = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as JsonValue;
    patched = jsonPatch(clone(atVersion), operations);
  } catch (error) {
    throw internalError(error instanceof Error ? error.message : String(error));
  }
  if (!isObject(patched)) throw internalError('the patched object is not an object');
  if (jsonEqual(patched, atVersion)) return undefined;
  const back = await env.convert(patched, facts.resource);
  env.defaults(back);
  return back;
}

/**
 * Runs the validating webhooks that apply (all of them, as kube-apiserver does in parallel)
 * and answers their warnings; throws the first refusal in webhook order.
 */
export async function runValidatingWebhooks(
  hooks: readonly AdmissionWebhook[],
  facts: AdmissionRequestFacts,
  env: AdmissionEnvironment,
): Promise<string[]> {
  const warnings: string[][] = [];
  const results = await Promise.allSettled(
    invocations(hooks, facts, env).map(async ({ hook, resource }, index) => {
      const own: string[] = [];
      warnings[index] = own;
      await callOrIgnore(hook, resource, facts, env, own);
    }),
  );
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return warnings.flat();
}

/**
 * Calls one webhook: refuses a dry run to a webhook with side effects, applies the failure
 * policy to transport and protocol failures, turns a denial into kube-apiserver's Status.
 * Answers the allowing response, or undefined when a failure was ignored.
 */
async function callOrIgnore(
  hook: AdmissionWebhook,
  resource: AdmissionResource,
  facts: AdmissionRequestFacts,
  env: AdmissionEnvironment,
  warnings: string[],
): Promise<JsonObject | undefined> {
  if (facts.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
    throw badRequest(`admission webhook "${hook.name}" does not support dry run`);
  }
  let response: JsonObject;
  try {
    response = await callWebhook(hook, resource, facts, env);
  } catch (error) {
    if (!(error instanceof CallingWebhookError)) throw error;
    if (hook.failurePolicy === 'Ignore') return undefined;
    throw internalError(`failed calling webhook "${hook.name}": ${error.message}`);
  }
  if (Array.isArray(response.warnings)) {
    for (const warning of response.warnings)
      if (typeof warning === 'string') warnings.push(warning);
  }
  if (response.allowed !== true) throw denial(hook.name, response.status);
  return response;
}

/** kube-apiserver's Status for a webhook's refusal (`admission webhook "x" denied the request: …`). */
export function denial(webhookName: string, result: JsonValue | undefined): ApiError {
  const status: JsonObject = isObject(result) ? { ...result } : {};
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const code = typeof status.code === 'number' && status.code >= 400 ? status.code : 400;
  const message =
    typeof status.message === 'string' && status.message !== ''
      ? `${deniedBy}: ${status.message}`
      : typeof status.reason === 'string' && status.reason !== ''
        ? `${deniedBy}: ${status.reason}`
        : `${deniedBy} without explanation`;
  const base = failure(code, typeof status.reason === 'string' ? status.reason : '', message);
  const out: JsonObject = { ...(base as unknown as JsonObject) };
  if (out.reason === '') delete out.reason;
  if (isObject(status.details)) out.details = status.details;
  return new ApiError(out as unknown as ApiError['status']);
}

/** The AdmissionReview version a webhook accepts (the first known one it lists). */
function reviewVersion(hook: AdmissionWebhook): string {
  const version = hook.admissionReviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
  if (!version) {
    throw new CallingWebhookError(
      'could not create admission objects: webhook does not accept known AdmissionReview versions',
    );
  }
  return version;
}

/** The AdmissionReview kube-apiserver sends, keys in its Go field order. */
export async function admissionReview(
  version: string,
  uid: string,
  resource: AdmissionResource,
  facts: AdmissionRequestFacts,
  env: AdmissionEnvironment,
): Promise<JsonObject> {
  const atVersion = async (obj: JsonObject | null): Promise<JsonObject | null> =>
    obj === null ? null : env.convert(obj, resource);
  const request: JsonObject = {
    uid,
    kind: { ...env.kindAt(resource) },
    resource: { ...resource },
    ...(facts.subresource ? { subResource: facts.subresource } : {}),
    requestKind: { ...facts.kind },
    requestResource: { ...facts.resource },
    ...(facts.subresource ? { requestSubResource: facts.subresource } : {}),
    ...(facts.name ? { name: facts.name } : {}),
    ...(facts.namespace ? { namespace: facts.namespace } : {}),
    operation: facts.operation,
    userInfo: { ...USER_INFO, groups: [...USER_INFO.groups] },
    object: await atVersion(facts.object),
    oldObject: await atVersion(facts.oldObject),
    dryRun: facts.dryRun,
    options: facts.options,
  };
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

/** POSTs the AdmissionReview and answers its checked `response`. */
async function callWebhook(
  hook: AdmissionWebhook,
  resource: AdmissionResource,
  facts: AdmissionRequestFacts,
  env: AdmissionEnvironment,
): Promise<JsonObject> {
  const version = reviewVersion(hook);
  const uid = randomUUID();
  const review = await admissionReview(version, uid, resource, facts, env);
  const body = await postJson(hook.clientConfig, hook.timeoutSeconds, review, env.maxResponseBytes);
  const response = isObject(body) ? body.response : undefined;
  const invalid = (why: string): CallingWebhookError => new CallingWebhookError(why);
  if (!isObject(body) || body.kind !== 'AdmissionReview' || body.apiVersion !== review.apiVersion) {
    const got = isObject(body)
      ? `${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`
      : '';
    throw invalid(
      `expected webhook response of admission.k8s.io/${version}, Kind=AdmissionReview, got ${got}`,
    );
  }
  if (!isObject(response)) throw invalid('webhook response was absent');
  if (response.uid !== uid) {
    throw invalid(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
  }
  const hasPatch = typeof response.patch === 'string' && response.patch !== '';
  const patchType = response.patchType;
  if (hasPatch && (patchType === undefined || patchType === null)) {
    throw invalid('webhook returned response.patch but not response.patchType');
  }
  if (!hasPatch && patchType !== undefined && patchType !== null) {
    throw invalid('webhook returned response.patchType but not response.patch');
  }
  if (hasPatch && patchType !== 'JSONPatch') {
    throw invalid(`webhook returned invalid response.patchType of "${String(patchType)}"`);
  }
  return response;
}
