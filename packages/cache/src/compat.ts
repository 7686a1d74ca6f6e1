// `@kubets/cache/compat`: what client-go keeps for code written against its older queue, and
// informers never use: the DeltaFIFO (deltas piled up per key), with its requeue and
// known-objects contracts. Informers deliver in order through the atomic RealFIFO instead.
export { type Deltas, type KnownObjects, newestDelta, oldestDelta } from './delta.js';
export {
  DeltaFIFO,
  type DeltaFIFOOptions,
  isRequeueError,
  type PopProcessFunc,
  RequeueError,
} from './delta-fifo.js';
export { processDeltaBatchInTransaction } from './process-deltas-in-transaction.js';
