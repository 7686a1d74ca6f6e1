import type {
  MutatingWebhook,
  MutatingWebhookConfiguration,
  RuleWithOperations,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
  WebhookClientConfig,
} from 'kubernetes-types/admissionregistration/v1.js';
import type { CustomResourceConversion } from 'kubernetes-types/apiextensions/v1.js';
import type { AdmissionOperation } from './admission-review.js';

/**
 * One rule of a webhook: which operations on which resources call it (`kubernetes-types`
 * leaves out the `resources` and `scope` that Go embeds from `Rule`).
 */
export interface WebhookRule extends RuleWithOperations {
  /** The resources (plural names; `pods/status` for a subresource; `*` for all). */
  resources?: string[];
  /** `Cluster`, `Namespaced` or `*` (the default). */
  scope?: 'Cluster' | 'Namespaced' | '*';
}

/** The resource a webhook is for: what a CRD or built-in type declares. */
export interface WebhookResource {
  /** The API group (`''` for the core group). */
  readonly group: string;
  /** The version the webhook handles. */
  readonly version: string;
  /** The kind. */
  readonly kind: string;
  /** The plural resource name (`mydemos`); a `ResourceDescriptor` of `@kubets/clientset` is one. */
  readonly resource: string;
}

/** One admission webhook as the configurations list it (what `kubebuilder:webhook` markers say). */
export interface AdmissionRegistration {
  /** `validating` or `mutating`. */
  readonly type: 'validating' | 'mutating';
  /** The webhook's name, a qualified name (`vmydemo.demo.example.com`). */
  readonly name: string;
  /** The path it is served on. */
  readonly path: string;
  /** What it is called for. */
  readonly rules: readonly WebhookRule[];
  /** What the API server does when the call fails (default `Fail`). */
  readonly failurePolicy?: 'Fail' | 'Ignore' | undefined;
  /** `None` (default) or `NoneOnDryRun`. */
  readonly sideEffects?: 'None' | 'NoneOnDryRun' | undefined;
  /** Seconds the API server waits (1 to 30; the server's default 10 when absent). */
  readonly timeoutSeconds?: number | undefined;
  /** `Exact` or `Equivalent` (the server's default). */
  readonly matchPolicy?: 'Exact' | 'Equivalent' | undefined;
  /** Which namespaces' objects it is called for. */
  readonly namespaceSelector?: ValidatingWebhook['namespaceSelector'] | undefined;
  /** Which objects it is called for, by label. */
  readonly objectSelector?: ValidatingWebhook['objectSelector'] | undefined;
  /** Mutating only: `Never` (default) or `IfNeeded`. */
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded' | undefined;
}

/** The Service in front of the webhook server. */
export interface WebhookService {
  /** Its namespace. */
  readonly namespace: string;
  /** Its name. */
  readonly name: string;
  /** Its port (the API server's default: 443). */
  readonly port?: number;
}

/** Where the API server reaches the webhook server, and the CA it trusts for it. */
export interface WebhookTarget {
  /**
   * The PEM CA bundle that signed the serving certificate; left out, the API server trusts
   * its system roots (and envtest or cert-manager's CA injector fills it in).
   */
  readonly caBundlePem?: string | undefined;
  /** A Service in the cluster (the usual deployment)... */
  readonly service?: WebhookService | undefined;
  /** ...or a base URL (`https://127.0.0.1:9443`; envtest), the path appended. */
  readonly url?: string | undefined;
}

const lowercaseGroup = (group: string): string => group.replaceAll('.', '-');

/** controller-runtime's generated defaulting path: `/mutate-<group with dashes>-<version>-<kind lowercase>`. */
export function mutatingPath(
  resource: Pick<WebhookResource, 'group' | 'version' | 'kind'>,
): string {
  return `/mutate-${lowercaseGroup(resource.group)}-${resource.version}-${resource.kind.toLowerCase()}`;
}

/** controller-runtime's generated validating path: `/validate-<group with dashes>-<version>-<kind lowercase>`. */
export function validatingPath(
  resource: Pick<WebhookResource, 'group' | 'version' | 'kind'>,
): string {
  return `/validate-${lowercaseGroup(resource.group)}-${resource.version}-${resource.kind.toLowerCase()}`;
}

/** controller-runtime's conversion path. */
export const CONVERSION_PATH = '/convert';

/** The rule of a webhook for `resource` on `operations` (default CREATE and UPDATE). */
export function rulesFor(
  resource: WebhookResource,
  operations: readonly AdmissionOperation[] = ['CREATE', 'UPDATE'],
): WebhookRule[] {
  return [
    {
      apiGroups: [resource.group],
      apiVersions: [resource.version],
      resources: [resource.resource],
      operations: [...operations],
    },
  ];
}

function clientConfig(target: WebhookTarget, path: string): WebhookClientConfig {
  if (
    target.caBundlePem !== undefined &&
    (typeof target.caBundlePem !== 'string' || !target.caBundlePem.includes('BEGIN CERTIFICATE'))
  ) {
    throw new TypeError('webhook target caBundlePem must be a PEM certificate');
  }
  const ca =
    target.caBundlePem === undefined
      ? {}
      : { caBundle: Buffer.from(target.caBundlePem).toString('base64') };
  if (target.url !== undefined) {
    return { ...ca, url: `${target.url.replace(/\/+$/, '')}${path}` };
  }
  if (target.service === undefined) throw new TypeError('webhook target needs a service or a url');
  return {
    ...ca,
    service: {
      namespace: target.service.namespace,
      name: target.service.name,
      path,
      ...(target.service.port === undefined ? {} : { port: target.service.port }),
    },
  };
}

function webhookOf(registration: AdmissionRegistration, target: WebhookTarget): ValidatingWebhook {
  return {
    name: registration.name,
    clientConfig: clientConfig(target, registration.path),
    rules: registration.rules.map((rule) => structuredClone(rule)),
    failurePolicy: registration.failurePolicy ?? 'Fail',
    sideEffects: registration.sideEffects ?? 'None',
    admissionReviewVersions: ['v1', 'v1beta1'],
    ...(registration.timeoutSeconds === undefined
      ? {}
      : { timeoutSeconds: registration.timeoutSeconds }),
    ...(registration.matchPolicy === undefined ? {} : { matchPolicy: registration.matchPolicy }),
    ...(registration.namespaceSelector === undefined
      ? {}
      : { namespaceSelector: registration.namespaceSelector }),
    ...(registration.objectSelector === undefined
      ? {}
      : { objectSelector: registration.objectSelector }),
  };
}

/** The configurations registering `registrations` with the API server. */
export interface WebhookConfigurations {
  /** The validating webhooks (absent when there are none). */
  validating?: ValidatingWebhookConfiguration;
  /** The mutating webhooks (absent when there are none). */
  mutating?: MutatingWebhookConfiguration;
}

/**
 * The `ValidatingWebhookConfiguration` and `MutatingWebhookConfiguration` named `name` for
 * `registrations`, pointing at `target` with its CA bundle filled in (what controller-gen
 * writes from markers, and what envtest installs).
 */
export function webhookConfigurations(
  name: string,
  registrations: readonly AdmissionRegistration[],
  target: WebhookTarget,
): WebhookConfigurations {
  const seen = new Set<string>();
  for (const registration of registrations) {
    if (seen.has(`${registration.type}/${registration.name}`)) {
      throw new Error(`two ${registration.type} webhooks are named ${registration.name}`);
    }
    seen.add(`${registration.type}/${registration.name}`);
  }
  const validating = registrations
    .filter((r) => r.type === 'validating')
    .map((r) => webhookOf(r, target));
  const mutating = registrations
    .filter((r) => r.type === 'mutating')
    .map(
      (r): MutatingWebhook => ({
        ...webhookOf(r, target),
        reinvocationPolicy: r.reinvocationPolicy ?? 'Never',
      }),
    );
  const result: WebhookConfigurations = {};
  if (validating.length > 0) {
    result.validating = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: validating,
    };
  }
  if (mutating.length > 0) {
    result.mutating = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name },
      webhooks: mutating,
    };
  }
  return result;
}

/** A CRD's `spec.conversion` calling the conversion webhook at `target` (on {@link CONVERSION_PATH}). */
export function crdConversion(
  target: WebhookTarget,
  path: string = CONVERSION_PATH,
): CustomResourceConversion {
  return {
    strategy: 'Webhook',
    webhook: {
      clientConfig: clientConfig(target, path),
      conversionReviewVersions: ['v1', 'v1beta1'],
    },
  };
}
