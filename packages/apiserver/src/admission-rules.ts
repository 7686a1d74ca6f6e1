import { type LabelSelector, labelSelectorAsSelector } from '@kubets/apimachinery';
import { isObject, type JsonObject, type JsonValue } from './patch.js';

/** The operations admission webhooks are called for (CONNECT is never served here). */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** Group, version and resource of a request, as admission sees it. */
export interface AdmissionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** What the admission webhooks match a request on (kube-apiserver's `admission.Attributes`). */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly resource: AdmissionResource;
  /** `''` for the main resource. */
  readonly subresource: string;
  /** `''` for cluster-scoped objects; a namespace's own name for requests on `namespaces`. */
  readonly namespace: string;
  /** The new object (create, update); null on delete. */
  readonly object: JsonObject | null;
  /** The existing object (update, delete); null on create. */
  readonly oldObject: JsonObject | null;
}

/** One webhook of a Validating/MutatingWebhookConfiguration, with the v1 defaults filled in. */
export interface AdmissionWebhook {
  /** `<configuration name>/<index>`: what reinvocation tracks a webhook by. */
  readonly uid: string;
  readonly name: string;
  readonly clientConfig: JsonObject;
  readonly rules: readonly JsonObject[];
  readonly failurePolicy: 'Ignore' | 'Fail';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly namespaceSelector: JsonObject;
  readonly objectSelector: JsonObject;
  readonly sideEffects: string;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
}

const strings = (value: JsonValue | undefined): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * The webhooks of the stored configurations in the order kube-apiserver calls them:
 * configurations sorted by name, webhooks in their listed order.
 */
export function webhooksOf(configurations: Iterable<JsonObject>): AdmissionWebhook[] {
  const sorted = [...configurations].sort((a, b) => {
    const an = String(isObject(a.metadata) ? a.metadata.name : '');
    const bn = String(isObject(b.metadata) ? b.metadata.name : '');
    return an < bn ? -1 : an > bn ? 1 : 0;
  });
  const out: AdmissionWebhook[] = [];
  for (const configuration of sorted) {
    const configName = String(isObject(configuration.metadata) ? configuration.metadata.name : '');
    const webhooks = Array.isArray(configuration.webhooks) ? configuration.webhooks : [];
    webhooks.forEach((hook, index) => {
      if (!isObject(hook)) return;
      out.push({
        uid: `${configName}/${index}`,
        name: String(hook.name ?? ''),
        clientConfig: isObject(hook.clientConfig) ? hook.clientConfig : {},
        rules: Array.isArray(hook.rules) ? hook.rules.filter(isObject) : [],
        failurePolicy: hook.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
        matchPolicy: hook.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
        namespaceSelector: isObject(hook.namespaceSelector) ? hook.namespaceSelector : {},
        objectSelector: isObject(hook.objectSelector) ? hook.objectSelector : {},
        sideEffects: typeof hook.sideEffects === 'string' ? hook.sideEffects : 'Unknown',
        timeoutSeconds: typeof hook.timeoutSeconds === 'number' ? hook.timeoutSeconds : 10,
        admissionReviewVersions: strings(hook.admissionReviewVersions),
        reinvocationPolicy: hook.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
      });
    });
  }
  return out;
}

const isNamespacesResource = (resource: AdmissionResource): boolean =>
  resource.group === '' && resource.resource === 'namespaces';

/**
 * Whether one rule of a webhook matches: operations, apiGroups, apiVersions, resources (`*`
 * is every main resource, `*\/*` everything, `pods/*` every subresource of pods, `*\/status`
 * every status) and scope (`Cluster` includes `namespaces` themselves).
 */
export function ruleMatches(
  rule: JsonObject,
  operation: AdmissionOperation,
  resource: AdmissionResource,
  subresource: string,
  namespace: string,
): boolean {
  const anyOf = (values: string[], value: string): boolean =>
    values.some((v) => v === '*' || v === value);
  if (!anyOf(strings(rule.operations), operation)) return false;
  if (!anyOf(strings(rule.apiGroups), resource.group)) return false;
  if (!anyOf(strings(rule.apiVersions), resource.version)) return false;
  const resourceMatches = strings(rule.resources).some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash === -1 ? entry : entry.slice(0, slash);
    const sub = slash === -1 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === subresource);
  });
  if (!resourceMatches) return false;
  switch (rule.scope ?? '*') {
    case 'Namespaced':
      return !isNamespacesResource(resource) && namespace !== '';
    case 'Cluster':
      return isNamespacesResource(resource) || namespace === '';
    default:
      return true;
  }
}

/**
 * The resource a webhook is called with for a request on `attributes.resource`: the
 * request's own when a rule matches it; with `matchPolicy: Equivalent`, the first of
 * `equivalents` (the same objects at other versions) a rule matches; undefined when none.
 */
export function matchedResource(
  hook: AdmissionWebhook,
  attributes: AdmissionAttributes,
  equivalents: readonly AdmissionResource[],
): AdmissionResource | undefined {
  const { operation, subresource, namespace } = attributes;
  const matches = (resource: AdmissionResource): boolean =>
    hook.rules.some((rule) => ruleMatches(rule, operation, resource, subresource, namespace));
  if (matches(attributes.resource)) return attributes.resource;
  if (hook.matchPolicy === 'Exact') return undefined;
  return equivalents.find(matches);
}

function labelsOf(obj: JsonObject | null): Record<string, string> | undefined {
  if (!obj || !isObject(obj.metadata) || !isObject(obj.metadata.labels)) return undefined;
  return obj.metadata.labels as Record<string, string>;
}

/**
 * Whether the webhook's `objectSelector` matches the new or the old object's labels (an empty
 * selector matches everything, including requests without objects).
 */
export function objectSelectorMatches(hook: AdmissionWebhook, attributes: AdmissionAttributes) {
  const selector = labelSelectorAsSelector(hook.objectSelector as LabelSelector);
  if (selector.empty()) return true;
  return [attributes.object, attributes.oldObject].some(
    (obj) => obj !== null && selector.matches(labelsOf(obj)),
  );
}

/**
 * Whether the webhook's `namespaceSelector` matches the request's namespace: always for
 * cluster-scoped objects other than namespaces; for a namespace, its own labels (the new ones
 * on create and update); else the labels of the namespace `namespaceLabels` finds (undefined:
 * no such namespace, which matches only an empty selector).
 */
export function namespaceSelectorMatches(
  hook: AdmissionWebhook,
  attributes: AdmissionAttributes,
  namespaceLabels: (name: string) => Record<string, string> | undefined,
): boolean {
  const namespaces = isNamespacesResource(attributes.resource);
  if (attributes.namespace === '' && !namespaces) return true;
  const selector = labelSelectorAsSelector(hook.namespaceSelector as LabelSelector);
  if (selector.empty()) return true;
  if (namespaces && attributes.subresource === '' && attributes.operation !== 'DELETE') {
    return selector.matches(labelsOf(attributes.object));
  }
  return selector.matches(namespaceLabels(attributes.namespace));
}
