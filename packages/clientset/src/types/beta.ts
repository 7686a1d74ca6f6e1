// Wire types of the beta group/versions a 1.20 server serves and that later servers removed
// (so they are not in kubernetes-types 1.30). Each has the shape of the GA version it was
// promoted to, with its own apiVersion; where the beta shape differs, the difference is
// spelled out here.

import type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import type * as discoveryv1 from 'kubernetes-types/discovery/v1.js';
import type * as nodev1 from 'kubernetes-types/node/v1.js';
import type * as policyv1 from 'kubernetes-types/policy/v1.js';

/** `T` with its `apiVersion` replaced by `A`. */
export type WithAPIVersion<T, A extends string> = Omit<T, 'apiVersion'> & {
  /** The object's `apiVersion`, narrowed to the older API version. */
  apiVersion?: A;
};

/** A list type whose items are `I`, with its `apiVersion` replaced by `A`. */
export type ListWithAPIVersion<L, I, A extends string> = Omit<L, 'apiVersion' | 'items'> & {
  /** The list's `apiVersion`, narrowed to the older API version. */
  apiVersion?: A;
  /** The listed objects. */
  items: I[];
};

/** batch/v1beta1 `CronJob` (1.8–1.24; GA as batch/v1 in 1.21). Same shape as batch/v1. */
export type CronJobV1beta1 = WithAPIVersion<batchv1.CronJob, 'batch/v1beta1'>;
/** batch/v1beta1 `CronJobList`. */
export type CronJobListV1beta1 = ListWithAPIVersion<
  batchv1.CronJobList,
  CronJobV1beta1,
  'batch/v1beta1'
>;

/** policy/v1beta1 `PodDisruptionBudget` (up to 1.24; GA as policy/v1 in 1.21). */
export type PodDisruptionBudgetV1beta1 = WithAPIVersion<
  policyv1.PodDisruptionBudget,
  'policy/v1beta1'
>;
/** policy/v1beta1 `PodDisruptionBudgetList`. */
export type PodDisruptionBudgetListV1beta1 = ListWithAPIVersion<
  policyv1.PodDisruptionBudgetList,
  PodDisruptionBudgetV1beta1,
  'policy/v1beta1'
>;

/** autoscaling/v2beta2 `HorizontalPodAutoscaler` (1.12–1.25; GA as autoscaling/v2 in 1.23). */
export type HorizontalPodAutoscalerV2beta2 = WithAPIVersion<
  autoscalingv2.HorizontalPodAutoscaler,
  'autoscaling/v2beta2'
>;
/** autoscaling/v2beta2 `HorizontalPodAutoscalerList`. */
export type HorizontalPodAutoscalerListV2beta2 = ListWithAPIVersion<
  autoscalingv2.HorizontalPodAutoscalerList,
  HorizontalPodAutoscalerV2beta2,
  'autoscaling/v2beta2'
>;

/** node.k8s.io/v1beta1 `RuntimeClass` (1.14–1.24). Same shape as node.k8s.io/v1. */
export type RuntimeClassV1beta1 = WithAPIVersion<nodev1.RuntimeClass, 'node.k8s.io/v1beta1'>;
/** node.k8s.io/v1beta1 `RuntimeClassList`. */
export type RuntimeClassListV1beta1 = ListWithAPIVersion<
  nodev1.RuntimeClassList,
  RuntimeClassV1beta1,
  'node.k8s.io/v1beta1'
>;

/**
 * discovery.k8s.io/v1beta1 `Endpoint` (1.17–1.24): like v1 but topology is the free-form
 * `topology` map instead of `zone`/`deprecatedTopology`.
 */
export type EndpointV1beta1 = Omit<discoveryv1.Endpoint, 'deprecatedTopology' | 'zone'> & {
  /** Arbitrary topology labels, e.g. `kubernetes.io/hostname`, `topology.kubernetes.io/zone`. */
  topology?: Record<string, string>;
};

/** discovery.k8s.io/v1beta1 `EndpointSlice`. */
export type EndpointSliceV1beta1 = Omit<discoveryv1.EndpointSlice, 'apiVersion' | 'endpoints'> & {
  /** Always `discovery.k8s.io/v1beta1`. */
  apiVersion?: 'discovery.k8s.io/v1beta1';
  /** The endpoints, in their v1beta1 shape (`topology` labels instead of `zone`). */
  endpoints: EndpointV1beta1[];
};
/** discovery.k8s.io/v1beta1 `EndpointSliceList`. */
export type EndpointSliceListV1beta1 = ListWithAPIVersion<
  discoveryv1.EndpointSliceList,
  EndpointSliceV1beta1,
  'discovery.k8s.io/v1beta1'
>;
