// The operator's webhooks, as an operator author writes them with @kubets/webhook and the
// builder of @kubets/controller: a defaulter (a Mydemo without an image gets the operator's
// --image), a validator (the port range and the replicas, refused at admission rather than
// reported afterwards in the status) and the conversion between v1alpha1 (the address nested
// in spec.listen) and v1, the hub and storage version.

import type { Clientset } from '@kubets/clientset';
import { registerConversion, type WebhookHost, webhookFor } from '@kubets/controller';
import { PatchType } from '@kubets/rest';
import {
  AdmissionDenied,
  type AdmissionRegistration,
  type Converter,
  crdConversion,
  type Defaulter,
  hubSpokeConverter,
  type SpokeConversion,
  type Validator,
  webhookConfigurations,
} from '@kubets/webhook';
import { crddemoV1, type crddemoV1alpha1 } from './generated/index.ts';
import { defaultImage, specProblems } from './operator.ts';

type Mydemo = crddemoV1.Mydemo;

/** The webhooks' names, as kubebuilder names them (`m`/`v` + kind + group). */
export const webhookNames = {
  defaulting: 'mmydemo.crddemo.k8s.io',
  validating: 'vmydemo.crddemo.k8s.io',
} as const;

/** Gives a Mydemo without an image the operator's `image` (default {@link defaultImage}). */
export function mydemoDefaulter(image: string = defaultImage): Defaulter<Mydemo> {
  return {
    default(mydemo) {
      mydemo.spec ??= {};
      // An empty image is no image: the reconciler has always run those with the default.
      if (!mydemo.spec.image) mydemo.spec.image = image;
    },
  };
}

/**
 * The refusal of a Mydemo whose spec the operator cannot run, naming each wrong field. A
 * Forbidden denial, without field causes: kubectl shows an Invalid (422) status by its causes
 * alone, and would drop the webhook's message that a Forbidden one keeps whole.
 */
function refusal(mydemo: Mydemo): AdmissionDenied | undefined {
  const problems = specProblems(mydemo.spec);
  if (problems.length === 0) return undefined;
  const name = mydemo.metadata?.name ?? mydemo.metadata?.generateName ?? '';
  return new AdmissionDenied(
    `Mydemo.crddemo.k8s.io "${name}" is invalid: ${problems.map((p) => p.message).join(', ')}`,
  );
}

/**
 * Refuses a Mydemo whose port is outside 1-65535 or whose replicas are negative, on create
 * and on an update that changes the spec. An update that leaves the spec as it was (the
 * operator's finalizer, a label) is let through, so that a Mydemo stored before the webhook
 * existed can still be finalized and deleted; the reconciler reports such a spec in its
 * status.
 */
export function mydemoValidator(): Validator<Mydemo> {
  return {
    validateCreate(mydemo) {
      const denied = refusal(mydemo);
      if (denied) throw denied;
      return [];
    },
    validateUpdate(old, mydemo) {
      if (JSON.stringify(old.spec ?? {}) === JSON.stringify(mydemo.spec ?? {})) return [];
      const denied = refusal(mydemo);
      if (denied) throw denied;
      return [];
    },
  };
}

/** v1alpha1 ↔ v1: `spec.listen.{ip,port}` is v1's `spec.{ip,port}`; everything else is the same. */
export const v1alpha1Conversion: SpokeConversion<Mydemo, crddemoV1alpha1.Mydemo> = {
  toHub({ apiVersion: _spoke, spec, ...rest }) {
    const hub: Mydemo = { ...rest, apiVersion: 'crddemo.k8s.io/v1' };
    if (spec === undefined) return hub;
    const { listen, ...others } = spec;
    return {
      ...hub,
      spec: {
        ...(listen?.ip === undefined ? {} : { ip: listen.ip }),
        ...(listen?.port === undefined ? {} : { port: listen.port }),
        ...others,
      },
    };
  },
  fromHub({ apiVersion: _hub, spec, ...rest }) {
    const spoke: crddemoV1alpha1.Mydemo = { ...rest, apiVersion: 'crddemo.k8s.io/v1alpha1' };
    if (spec === undefined) return spoke;
    const { ip, port, ...others } = spec;
    const listen = {
      ...(ip === undefined ? {} : { ip }),
      ...(port === undefined ? {} : { port }),
    };
    return {
      ...spoke,
      spec: { ...(Object.keys(listen).length === 0 ? {} : { listen }), ...others },
    };
  },
};

/** The Mydemo converter: v1 is the hub, v1alpha1 its spoke. */
export const mydemoConverter: Converter = hubSpokeConverter<Mydemo>({
  group: crddemoV1.mydemosResource.group,
  kind: crddemoV1.mydemosResource.kind,
  hub: 'v1',
  spokes: { v1alpha1: v1alpha1Conversion },
});

/** Settings of {@link addMydemoWebhooks}. */
export interface WebhookSettings {
  /** The image a Mydemo without one gets; default {@link defaultImage}. */
  readonly image?: string | undefined;
}

/**
 * Registers the defaulting and validating webhooks of Mydemos (at v1) and their conversion on
 * the manager's webhook server; returns the admission registrations, for the configurations.
 */
export function addMydemoWebhooks(
  mgr: WebhookHost,
  settings: WebhookSettings = {},
): AdmissionRegistration[] {
  registerConversion(mgr, mydemoConverter);
  return webhookFor(mgr, crddemoV1.mydemosResource)
    .withDefaulter(mydemoDefaulter(settings.image))
    .withValidator(mydemoValidator())
    .complete();
}

/** Where the API server reaches the webhook server: its base URL and the CA it trusts. */
export interface LocalWebhookTarget {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** The PEM CA that signed the serving certificate. */
  readonly caPem: string;
}

/**
 * Points the API server at a webhook server reached by URL (a test's or the demo's): creates
 * the `mydemo-operator` mutating and validating configurations of `registrations` and sets
 * the Mydemo CRD's `spec.conversion` to the conversion webhook. In a cluster the deploy
 * manifests do this with a Service instead (src/manifests.ts).
 */
export async function installLocalWebhooks(
  clientset: Clientset,
  registrations: readonly AdmissionRegistration[],
  target: LocalWebhookTarget,
): Promise<void> {
  const at = { url: target.url, caBundlePem: target.caPem };
  const { mutating, validating } = webhookConfigurations('mydemo-operator', registrations, at);
  const admission = clientset.admissionregistrationV1();
  if (mutating) await admission.mutatingWebhookConfigurations().create(mutating);
  if (validating) await admission.validatingWebhookConfigurations().create(validating);
  await clientset
    .apiextensionsV1()
    .customResourceDefinitions()
    .patch(
      `${crddemoV1.mydemosResource.resource}.${crddemoV1.mydemosResource.group}`,
      PatchType.MergePatch,
      {
        spec: { conversion: crdConversion(at) },
      },
    );
}
