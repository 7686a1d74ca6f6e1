/**
 * Work queues for Kubernetes controllers, as client-go's `util/workqueue`: a deduplicating
 * FIFO that never hands one item to two workers, a delaying queue, a rate-limiting queue,
 * controller-runtime's priority queue, the rate limiters controllers use, metrics hooks and
 * an injectable clock.
 *
 * The Prometheus adapter lives in the `@kubets/workqueue/prometheus` subpath.
 * @packageDocumentation
 */
export { type Clock, type ClockTimer, FakeClock, realClock } from './clock.js';
export {
  DelayingQueue,
  type DelayingWorkQueue,
  newDelayingQueue,
} from './delaying-queue.js';
export {
  type CounterMetric,
  type DepthMetricWithPriority,
  type GaugeMetric,
  getMetricsProvider,
  type HistogramMetric,
  type MetricsProvider,
  noopMetricsProvider,
  type QueueOptions,
  type SettableGaugeMetric,
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
