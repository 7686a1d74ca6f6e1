import type { Logger } from '@kubets/apimachinery';
import { type AdmissionHandler, handleAdmission } from './admission.js';
import { errored, messageOf } from './admission-response.js';
import type { AdmissionReview, AdmissionReviewVersion } from './admission-review.js';
import type { WebhookEndpoint, WebhookReply, WebhookRequest } from './endpoint.js';

const reviewVersions: readonly string[] = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'];

/** Options of {@link admissionEndpoint}. */
export interface AdmissionEndpointOptions {
  /** Where denials and refused requests are logged (default: silent). */
  logger?: Logger | undefined;
  /** The path it is served on, named in log lines. */
  path?: string | undefined;
}

function review(
  apiVersion: AdmissionReviewVersion,
  response: NonNullable<AdmissionReview['response']>,
): AdmissionReview {
  return { apiVersion, kind: 'AdmissionReview', response };
}

/** The reply to a request that is not a well-formed AdmissionReview: HTTP `status`, the message in the review. */
function refused(status: number, message: string): WebhookReply {
  const answer = errored(status, new Error(message));
  return {
    status,
    body: review('admission.k8s.io/v1', { uid: '', allowed: false, status: answer.status ?? {} }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why `parsed` is not an AdmissionReview request kubets can answer, or its version. */
function reviewVersionOf(parsed: unknown): AdmissionReviewVersion | string {
  if (!isRecord(parsed))
    return `the body is not an AdmissionReview: a JSON ${Array.isArray(parsed) ? 'array' : typeof parsed}`;
  const { apiVersion, kind } = parsed;
  // As controller-runtime's decoder: a review naming neither is taken as admission.k8s.io/v1.
  if (apiVersion === undefined && kind === undefined) return 'admission.k8s.io/v1';
  if (
    kind !== 'AdmissionReview' ||
    typeof apiVersion !== 'string' ||
    !reviewVersions.includes(apiVersion)
  ) {
    return `the body is not an AdmissionReview of admission.k8s.io/v1 or v1beta1: apiVersion ${JSON.stringify(apiVersion)}, kind ${JSON.stringify(kind)}`;
  }
  return apiVersion;
}

/**
 * The endpoint serving admission `handler` (controller-runtime's `admission.Webhook`):
 * reads an `AdmissionReview` (`admission.k8s.io/v1` or `v1beta1`), runs the handler and
 * answers in the version it was asked in. A body that is empty, not JSON, not
 * `application/json`, not an AdmissionReview or without `request.uid` gets HTTP 400 with
 * the reason in the review's Status.
 */
export function admissionEndpoint(
  handler: AdmissionHandler,
  options: AdmissionEndpointOptions = {},
): WebhookEndpoint {
  const { logger, path } = options;
  const refuse = (status: number, message: string): WebhookReply => {
    logger?.warn('admission request refused', { webhook: path, code: status, message });
    return refused(status, message);
  };
  return {
    refuse,
    async handle(request: WebhookRequest): Promise<WebhookReply> {
      if (request.body === undefined) return refuse(400, 'request body is empty');
      const mediaType = request.contentType?.split(';')[0]?.trim().toLowerCase();
      if (mediaType !== 'application/json') {
        return refuse(400, `contentType=${request.contentType ?? ''}, expected application/json`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(request.body).toString('utf8'));
      } catch (error) {
        return refuse(400, `couldn't get version/kind; json parse error: ${messageOf(error)}`);
      }
      const version = reviewVersionOf(parsed);
      if (!reviewVersions.includes(version)) return refuse(400, version);
      const admissionRequest = (parsed as AdmissionReview).request;
      if (!isRecord(admissionRequest)) return refuse(400, 'the AdmissionReview has no request');
      if (typeof admissionRequest.uid !== 'string' || admissionRequest.uid === '') {
        return refuse(400, 'the AdmissionReview request has no uid');
      }
      const response = await handleAdmission(handler, admissionRequest, {
        logger,
        path,
        signal: request.signal,
      });
      return { status: 200, body: review(version as AdmissionReviewVersion, response) };
    },
  };
}
