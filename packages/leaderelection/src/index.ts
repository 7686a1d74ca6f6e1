export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  JITTER_FACTOR,
  type LeaderCallbacks,
  type LeaderElectionConfig,
  type LeaderElectionDurations,
  LeaderElector,
  runLeaderElection,
  validateLeaderElectionConfig,
} from './elector.js';
export {
  type LeaderElectionEventRecorder,
  type LeaseClient,
  LeaseLock,
  type LeaseLockOptions,
  type LockCallOptions,
  type LockEventSubject,
  type LockRecord,
  type ResourceLock,
} from './lock.js';
export {
  formatMicroTime,
  type LeaderElectionRecord,
  leaseSpecToRecord,
  recordToLeaseSpec,
  serializeRecord,
} from './record.js';
