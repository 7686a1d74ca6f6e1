/**
 * Work queues for Kubernetes controllers, as client-go's `util/workqueue`: a deduplicating
 * FIFO that never hands one item to two workers, a delaying queue, a rate-limiting queue,
 * controller-runtime's priority queue, the rate limiters controllers use and metrics hooks.
 * Queues take the `Clock` of `@kubets/apimachinery` (a `FakeClock` from
 * `@kubets/apimachinery/testing` in tests).
 *
 * The Prometheus adapter lives in the `@kubets/workqueue/prometheus` subpath.
 * @packageDocumentation
 */
export {
  DelayingQueue,
  type DelayingWorkQueue,
  newDelayingQueue,
} from './delaying-queue.js';
export {
  type DepthMetricWithPriority,
  getMetricsProvider,
  type MetricsProvider,
  noopQueueMetricsProvider,
  type QueueOptions,
  setMetricsProvider,
  UNFINISHED_WORK_UPDATE_PERIOD_MS,
} from './metrics.js';
export {
  type AddOptions,
  newPriorityQueue,
  type PriorityGetResult,
  PriorityQueue,
  type PriorityQueueOptions,
  type PriorityWorkQueue,
} from './priority-queue.js';
export { type GetResult, newQueue, Queue, type WorkQueue } from './queue.js';
export {
  BucketRateLimiter,
  type BucketRateLimiterOptions,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
  WithMaxWaitRateLimiter,
} from './rate-limiters.js';
export {
  newRateLimitingQueue,
  RateLimitingQueue,
  type RateLimitingQueueOptions,
  type RateLimitingWorkQueue,
} from './rate-limiting-queue.js';
