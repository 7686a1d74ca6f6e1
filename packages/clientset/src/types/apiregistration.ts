// apiregistration.k8s.io/v1 wire types (kube-aggregator): not part of kubernetes-types, so
// written here from the API reference. Timestamps are RFC 3339 strings, as on the wire.

import type { ListMeta, ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** Where an aggregated API is served: a Service in the cluster. */
export interface ServiceReference {
  /** Namespace of the Service. */
  namespace?: string;
  /** Name of the Service. */
  name?: string;
  /** Defaults to 443. */
  port?: number;
}

/** apiregistration.k8s.io/v1 `APIServiceSpec`. */
export interface APIServiceSpec {
  /** The API group name this server hosts. */
  group?: string;
  /** The API version this server hosts, e.g. `v1`. */
  version?: string;
  /** The backing Service; unset for APIs the kube-apiserver serves itself. */
  service?: ServiceReference;
  /** PEM CA bundle (base64) used to verify the API server's serving certificate. */
  caBundle?: string;
  /** Skip verifying the backing server's certificate; strongly discouraged, use `caBundle`. */
  insecureSkipTLSVerify?: boolean;
  /** Priority of the group among all groups; higher first. */
  groupPriorityMinimum: number;
  /** Priority of this version within its group. */
  versionPriority: number;
}

/** One condition of an APIService (`Available`). */
export interface APIServiceCondition {
  /** The condition type; `Available` is the only one. */
  type: string;
  /** Whether the condition holds. */
  status: 'True' | 'False' | 'Unknown' | (string & {});
  /** RFC 3339 timestamp. */
  lastTransitionTime?: string;
  /** Machine-readable reason of the last transition, e.g. `Passed` or `MissingEndpoints`. */
  reason?: string;
  /** Human-readable details of the last transition. */
  message?: string;
}

/** apiregistration.k8s.io/v1 `APIServiceStatus`. */
export interface APIServiceStatus {
  /** The observed conditions; `Available=True` means requests are being served. */
  conditions?: APIServiceCondition[];
}

/** apiregistration.k8s.io/v1 `APIService`: registers a group/version with the aggregator. */
export interface APIService {
  /** Always `apiregistration.k8s.io/v1`. */
  apiVersion?: 'apiregistration.k8s.io/v1';
  /** Always `APIService`. */
  kind?: 'APIService';
  /** Standard object metadata; the name is `<version>.<group>`. */
  metadata?: ObjectMeta;
  /** Which group/version is registered and where it is served. */
  spec?: APIServiceSpec;
  /** Whether the aggregated API is available. */
  status?: APIServiceStatus;
}

/** apiregistration.k8s.io/v1 `APIServiceList`. */
export interface APIServiceList {
  /** Always `apiregistration.k8s.io/v1`. */
  apiVersion?: 'apiregistration.k8s.io/v1';
  /** Always `APIServiceList`. */
  kind?: 'APIServiceList';
  /** The list's version and paging information. */
  metadata?: ListMeta;
  /** The APIServices. */
  items: APIService[];
}
