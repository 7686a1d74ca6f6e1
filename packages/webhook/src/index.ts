/**
 * Admission and conversion webhooks for Kubernetes (controller-runtime's `pkg/webhook`):
 * an HTTPS {@link WebhookServer} with certificate reload, typed validators and defaulters,
 * hub-and-spoke conversion, and the webhook configurations that register them.
 * @packageDocumentation
 */
export {
  type AdmissionContext,
  type AdmissionHandler,
  type Defaulter,
  defaultingHandler,
  type HandleAdmissionOptions,
  handleAdmission,
  multiMutatingHandler,
  multiValidatingHandler,
  type ValidationResult,
  type Validator,
  validatingHandler,
  type Warnings,
} from './admission.js';
export { type AdmissionEndpointOptions, admissionEndpoint } from './admission-http.js';
export {
  type AdmissionAnswer,
  AdmissionDenied,
  allowed,
  completeAnswer,
  decodePatch,
  denied,
  errored,
  type JsonPatchOperation,
  messageOf,
  patched,
  patchResponseFromRaw,
  responseFromStatus,
  validationResponse,
  withWarnings,
} from './admission-response.js';
export type {
  AdmissionKind,
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResource,
  AdmissionResponse,
  AdmissionReview,
  AdmissionReviewVersion,
  AdmissionUserInfo,
} from './admission-review.js';
export {
  type CertificatePair,
  type CertificateReads,
  CertWatcher,
  type CertWatcherOptions,
} from './certwatcher.js';
export {
  type AdmissionRegistration,
  CONVERSION_PATH,
  crdConversion,
  mutatingPath,
  rulesFor,
  validatingPath,
  type WebhookConfigurations,
  type WebhookResource,
  type WebhookRule,
  type WebhookService,
  type WebhookTarget,
  webhookConfigurations,
} from './configurations.js';
export {
  type ConversionEndpointOptions,
  type ConversionRequest,
  type ConversionResponse,
  type ConversionReview,
  type Converter,
  type ConvertibleObject,
  conversionEndpoint,
  type HubSpokeConversion,
  hubSpokeConverter,
  type SpokeConversion,
} from './conversion.js';
export type { WebhookEndpoint, WebhookReply, WebhookRequest } from './endpoint.js';
export { setWebhookMetricsProvider, type WebhookMetricsProvider } from './metrics.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_WEBHOOK_PORT,
  WebhookServer,
  type WebhookServerOptions,
} from './server.js';
