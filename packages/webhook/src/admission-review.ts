import type { Status } from '@kubets/apimachinery';

/** The API versions of `AdmissionReview` a webhook answers in (the one it was asked in). */
export type AdmissionReviewVersion = 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1';

/** What the API server does: `operation` of an {@link AdmissionRequest}. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** Who asked the API server (`authentication/v1` UserInfo). */
export interface AdmissionUserInfo {
  /** The user's name. */
  username?: string;
  /** A unique value that tells users of the same name apart over time. */
  uid?: string;
  /** The groups the user belongs to. */
  groups?: string[];
  /** More information the authenticator provided. */
  extra?: Record<string, string[]>;
}

/** A group, version and kind as an admission request names it. */
export interface AdmissionKind {
  /** The API group (`''` for the core group). */
  group: string;
  /** The version. */
  version: string;
  /** The kind. */
  kind: string;
}

/** A group, version and resource as an admission request names it. */
export interface AdmissionResource {
  /** The API group (`''` for the core group). */
  group: string;
  /** The version. */
  version: string;
  /** The resource (plural). */
  resource: string;
}

/** `AdmissionReview.request`: what the API server asks a webhook about. */
export interface AdmissionRequest {
  /** Identifies this request; the response carries it back. */
  uid: string;
  /** The kind of `object`, as the webhook registered for it. */
  kind: AdmissionKind;
  /** The resource being written, as the webhook registered for it. */
  resource: AdmissionResource;
  /** The subresource being written (`status`, `scale`), if any. */
  subResource?: string;
  /** The kind the client asked for, when the API server converted it for the webhook. */
  requestKind?: AdmissionKind;
  /** The resource the client asked for, when the API server converted it. */
  requestResource?: AdmissionResource;
  /** The subresource the client asked for. */
  requestSubResource?: string;
  /** The object's name (empty on a create with `generateName`). */
  name?: string;
  /** The object's namespace (empty for cluster-scoped objects). */
  namespace?: string;
  /** What is being done. */
  operation: AdmissionOperation;
  /** Who is doing it. */
  userInfo: AdmissionUserInfo;
  /** The object being written (absent on DELETE). */
  object?: unknown;
  /** The object as it is stored (UPDATE and DELETE). */
  oldObject?: unknown;
  /** `true` when nothing will be persisted (`kubectl --dry-run=server`). */
  dryRun?: boolean;
  /** The operation's options (`CreateOptions`, `UpdateOptions`, `DeleteOptions`). */
  options?: unknown;
}

/** `AdmissionReview.response`: the webhook's answer. */
export interface AdmissionResponse {
  /** The request's `uid`. */
  uid: string;
  /** Whether the request may go on. */
  allowed: boolean;
  /** Why it may not (code, reason, message, field causes): Go's `Result`, `status` on the wire. */
  status?: Status;
  /** The JSON Patch to apply to the object, base64. */
  patch?: string;
  /** Always `JSONPatch` when `patch` is set. */
  patchType?: 'JSONPatch';
  /** Annotations the API server adds to the audit event. */
  auditAnnotations?: Record<string, string>;
  /** Warnings the API server passes on to the client. */
  warnings?: string[];
}

/** The `AdmissionReview` document a webhook reads and writes. */
export interface AdmissionReview {
  /** `admission.k8s.io/v1` or `admission.k8s.io/v1beta1`. */
  apiVersion: AdmissionReviewVersion;
  /** Always `AdmissionReview`. */
  kind: 'AdmissionReview';
  /** What is asked (in requests). */
  request?: AdmissionRequest;
  /** The answer (in responses). */
  response?: AdmissionResponse;
}
