// `@kubets/cache/compat`: what client-go keeps for code written against its older queues, and
// informers never use: the DeltaFIFO (deltas piled up per key), with its requeue and
// known-objects contracts, and the RealFIFO that queues a relist or resync one delta per
// object. Informers deliver in order through the atomic RealFIFO instead.
export { type Deltas, type KnownObjects, newestDelta, oldestDelta } from './delta.js';
export {
  DeltaFIFO,
  type DeltaFIFOOptions,
  isRequeueError,
  type PopProcessFunc,
  RequeueError,
} from './delta-fifo.js';
export {
  NonAtomicRealFIFO,
  type NonAtomicRealFIFOOptions,
} from './non-atomic-real-fifo.js';
export { processDeltaBatchInTransaction } from './process-deltas-in-transaction.js';
