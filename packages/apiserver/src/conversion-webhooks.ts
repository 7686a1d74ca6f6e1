import { randomUUID } from 'node:crypto';
import { goSortedKeys } from './go-decode.js';
import { type Entry, makeEntry, storeKey } from './object-entry.js';
import { meta } from './object-meta.js';
import { isObject, type JsonObject } from './patch.js';
import { apiVersionOf, type ResourceDefinition } from './resources.js';
import type { ServerState } from './server-state.js';
import { ApiError, failure } from './status.js';
import { postJson, webhookResponseLimit } from './webhook-client.js';

/** How long kube-apiserver 1.20 waits for a conversion webhook. */
const CONVERSION_TIMEOUT_SECONDS = 30;

/** A CustomResourceDefinition's `conversion: {strategy: Webhook}`, and its storage version. */
export interface ConversionWebhook {
  readonly group: string;
  readonly kind: string;
  readonly storageVersion: string;
  readonly clientConfig: JsonObject;
  readonly reviewVersions: readonly string[];
  /** The server's request body limit, which bounds the webhook's answer per object. */
  readonly maxRequestBytes: number;
}

/** The conversion webhook of the CRD serving `definition`; undefined for any other strategy. */
export function conversionWebhookOf(
  state: ServerState,
  definition: ResourceDefinition,
): ConversionWebhook | undefined {
  if (!definition.custom) return undefined;
  const crds = state.storage.registry.find('apiextensions.k8s.io', 'customresourcedefinitions');
  const crd =
    crds &&
    state.storage.storeOf(crds).get(storeKey('', `${definition.resource}.${definition.group}`))
      ?.obj;
  const spec = isObject(crd?.spec) ? crd.spec : undefined;
  const conversion = isObject(spec?.conversion) ? spec.conversion : undefined;
  if (!spec || conversion?.strategy !== 'Webhook') return undefined;
  // apiextensions.k8s.io/v1 nests the client under `webhook`; v1beta1 has it beside `strategy`.
  const webhook = isObject(conversion.webhook) ? conversion.webhook : conversion;
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const storage = versions.find((v) => v.storage === true)?.name;
  const reviewVersions = webhook.conversionReviewVersions ?? conversion.conversionReviewVersions;
  return {
    group: definition.group,
    kind: definition.kind,
    storageVersion: typeof storage === 'string' ? storage : (definition.versions[0] ?? 'v1'),
    clientConfig: isObject(webhook.clientConfig) ? webhook.clientConfig : {},
    reviewVersions: Array.isArray(reviewVersions)
      ? reviewVersions.filter((v): v is string => typeof v === 'string')
      : [],
    maxRequestBytes: state.maxRequestBytes,
  };
}

/**
 * Converts `objects` to `version` through the webhook, as kube-apiserver 1.20 does: objects
 * already there are not sent; the answer must list one object per object sent, each at the
 * desired apiVersion; only labels and annotations of the metadata are taken from it. Failures
 * are bare 500s worded as kube-apiserver words them (`conversion webhook for <gvk> failed: …`).
 */
export async function convertObjects(
  webhook: ConversionWebhook,
  objects: readonly JsonObject[],
  version: string,
): Promise<JsonObject[]> {
  const desired = apiVersionOf(webhook.group, version);
  const pending = objects.filter((obj) => obj.apiVersion !== desired);
  if (pending.length === 0) return [...objects];
  const source = pending[0] as JsonObject;
  const gvk = `${String(source.apiVersion)}, Kind=${webhook.kind}`;
  const reviewVersion = webhook.reviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
  if (!reviewVersion) {
    throw conversionFailure(
      `conversion webhook for ${gvk} failed: webhook does not accept known ConversionReview versions (v1, v1beta1)`,
    );
  }
  const uid = randomUUID();
  const reviewApiVersion = `apiextensions.k8s.io/${reviewVersion}`;
  const review: JsonObject = {
    kind: 'ConversionReview',
    apiVersion: reviewApiVersion,
    request: { uid, desiredAPIVersion: desired, objects: [...pending] },
  };
  let answer: unknown;
  try {
    answer = await postJson(
      webhook.clientConfig,
      CONVERSION_TIMEOUT_SECONDS,
      review,
      webhookResponseLimit(webhook.maxRequestBytes, pending.length),
    );
  } catch (error) {
    throw conversionFailure(`conversion webhook for ${gvk} failed: ${(error as Error).message}`);
  }
  const converted = convertedObjectsOf(answer, reviewApiVersion, uid, gvk);
  if (converted.length !== pending.length) {
    throw conversionFailure(
      `conversion webhook for ${gvk} returned ${converted.length} objects, expected ${pending.length}`,
    );
  }
  let next = 0;
  return objects.map((original) => {
    if (original.apiVersion === desired) return original;
    const out = converted[next++];
    if (!isObject(out)) {
      throw conversionFailure(`conversion webhook for ${gvk} returned invalid converted object`);
    }
    if (out.apiVersion !== desired) {
      throw conversionFailure(
        `conversion webhook for ${gvk} returned invalid converted object: expected ${desired}, got ${String(out.apiVersion)}`,
      );
    }
    return withOriginalMetadata(original, out);
  });
}

/**
 * {@link convertObjects} for stored entries: each converted entry keeps its namespace, name and
 * resourceVersion, in the same order; an entry already at `version` is kept as it is.
 */
export async function convertEntries(
  webhook: ConversionWebhook,
  entries: readonly Entry[],
  version: string,
): Promise<Entry[]> {
  const converted = await convertObjects(
    webhook,
    entries.map((e) => e.obj),
    version,
  );
  return entries.map((e, i) => {
    const obj = converted[i] as JsonObject;
    return obj === e.obj ? e : makeEntry(obj, e.namespace, e.name, e.rv);
  });
}

function convertedObjectsOf(
  answer: unknown,
  reviewApiVersion: string,
  uid: string,
  gvk: string,
): unknown[] {
  const invalid = (why: string) =>
    conversionFailure(`conversion webhook for ${gvk} failed: ${why}`);
  if (
    !isObject(answer) ||
    answer.apiVersion !== reviewApiVersion ||
    answer.kind !== 'ConversionReview'
  ) {
    throw invalid(`expected webhook response of ${reviewApiVersion}, Kind=ConversionReview`);
  }
  const response = answer.response;
  if (!isObject(response)) throw invalid('no response provided');
  if (response.uid !== uid) {
    throw invalid(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
  }
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    const message =
      typeof result.message === 'string' && result.message !== ''
        ? result.message
        : `response.result.status was '${String(result.status ?? '')}', not 'Success'`;
    throw conversionFailure(`conversion webhook for ${gvk} failed: ${message}`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** kube-apiserver 1.20 answers a failed conversion with a bare 500: no reason, no details. */
function conversionFailure(message: string): ApiError {
  const { reason: _reason, ...status } = failure(500, '', message);
  return new ApiError(status);
}

/** The converted object with the original's metadata, but for its labels and annotations. */
function withOriginalMetadata(original: JsonObject, converted: JsonObject): JsonObject {
  const md: JsonObject = { ...meta(original) };
  const next = meta(converted);
  for (const key of ['labels', 'annotations']) {
    if (next[key] === undefined) delete md[key];
    else md[key] = next[key];
  }
  return goSortedKeys({ ...converted, metadata: md });
}
