import { isObject, type JsonObject, type JsonValue } from '../patch.js';

/** A rule in Go's field order, `scope` defaulted to `*`. */
function defaultRule(rule: JsonValue): JsonValue {
  if (!isObject(rule)) return rule;
  const { operations, apiGroups, apiVersions, resources, scope, ...rest } = rule;
  return {
    ...(operations !== undefined ? { operations } : {}),
    ...(apiGroups !== undefined ? { apiGroups } : {}),
    ...(apiVersions !== undefined ? { apiVersions } : {}),
    ...(resources !== undefined ? { resources } : {}),
    scope: scope ?? '*',
    ...rest,
  };
}

/** A webhook with admissionregistration.k8s.io/v1's defaults, in Go's field order. */
function defaultWebhook(hook: JsonValue, mutating: boolean): JsonValue {
  if (!isObject(hook)) return hook;
  const clientConfig = isObject(hook.clientConfig) ? { ...hook.clientConfig } : hook.clientConfig;
  if (isObject(clientConfig) && isObject(clientConfig.service)) {
    clientConfig.service = { ...clientConfig.service, port: clientConfig.service.port ?? 443 };
  }
  const out: JsonObject = {
    ...(hook.name !== undefined ? { name: hook.name } : {}),
    ...(clientConfig !== undefined ? { clientConfig } : {}),
    ...(Array.isArray(hook.rules) ? { rules: hook.rules.map(defaultRule) } : {}),
    failurePolicy: hook.failurePolicy ?? 'Fail',
    matchPolicy: hook.matchPolicy ?? 'Equivalent',
    namespaceSelector: hook.namespaceSelector ?? {},
    objectSelector: hook.objectSelector ?? {},
    ...(hook.sideEffects !== undefined ? { sideEffects: hook.sideEffects } : {}),
    timeoutSeconds: hook.timeoutSeconds ?? 10,
    ...(hook.admissionReviewVersions !== undefined
      ? { admissionReviewVersions: hook.admissionReviewVersions }
      : {}),
  };
  if (mutating) out.reinvocationPolicy = hook.reinvocationPolicy ?? 'Never';
  // Go's field order first, then any field the struct does not know (pruned later).
  for (const [key, value] of Object.entries(hook)) if (!(key in out)) out[key] = value;
  return out;
}

/** kube-apiserver 1.20's defaults of a v1 ValidatingWebhookConfiguration. */
export function defaultValidatingWebhookConfiguration(obj: JsonObject): void {
  if (Array.isArray(obj.webhooks)) obj.webhooks = obj.webhooks.map((h) => defaultWebhook(h, false));
}

/** kube-apiserver 1.20's defaults of a v1 MutatingWebhookConfiguration. */
export function defaultMutatingWebhookConfiguration(obj: JsonObject): void {
  if (Array.isArray(obj.webhooks)) obj.webhooks = obj.webhooks.map((h) => defaultWebhook(h, true));
}
