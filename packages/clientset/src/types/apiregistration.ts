// apiregistration.k8s.io/v1 wire types (kube-aggregator): not part of kubernetes-types, so
// written here from the API reference. Timestamps are RFC 3339 strings, as on the wire.

import type { ListMeta, ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** Where an aggregated API is served: a Service in the cluster. */
export interface ServiceReference {
  namespace?: string;
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
  insecureSkipTLSVerify?: boolean;
  /** Priority of the group among all groups; higher first. */
  groupPriorityMinimum: number;
  /** Priority of this version within its group. */
  versionPriority: number;
}

/** One condition of an APIService (`Available`). */
export interface APIServiceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | (string & {});
  /** RFC 3339 timestamp. */
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** apiregistration.k8s.io/v1 `APIServiceStatus`. */
export interface APIServiceStatus {
  conditions?: APIServiceCondition[];
}

/** apiregistration.k8s.io/v1 `APIService`: registers a group/version with the aggregator. */
export interface APIService {
  apiVersion?: 'apiregistration.k8s.io/v1';
  kind?: 'APIService';
  metadata?: ObjectMeta;
  spec?: APIServiceSpec;
  status?: APIServiceStatus;
}

/** apiregistration.k8s.io/v1 `APIServiceList`. */
export interface APIServiceList {
  apiVersion?: 'apiregistration.k8s.io/v1';
  kind?: 'APIServiceList';
  metadata?: ListMeta;
  items: APIService[];
}
