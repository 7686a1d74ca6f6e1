// The logger interface lives in @kubets/apimachinery, shared by every package; re-exported
// here so `import { type Logger, silentLogger } from '@kubets/cache'` keeps working.
export { type LogFields, type Logger, silentLogger } from '@kubets/apimachinery';
export {
  type IndexerInformer,
  InformerController,
  type InformerControllerConfig,
  type InformerControllerQueue,
  type InformerOptions,
  newIndexerInformer,
  newInformer,
  type ProcessFunc,
  type StoreInformer,
} from './controller.js';
export {
  type CheckDataConsistencyOptions,
  checkDataConsistency,
  DataInconsistencyError,
  isDataConsistencyDetectionForWatchListEnabled,
  watchListInconsistencyDetectorEnvVar,
} from './data-consistency-detector.js';
export type { Delta, DeltaType, KnownObjects } from './delta.js';
export {
  type FilteredInformerFactoryArgs,
  filteredInformerFactoryOptions,
  type InformerFactoryContext,
  type InformerMetricsOptions,
  informerKey,
  type KeyedInformerFactory,
  KeyedInformerFactoryBase,
  type KeyedInformerFactoryOptions,
  type NewInformerFunc,
  newKeyedInformerFactory,
} from './factory.js';
export { FIFOClosedError, isFIFOClosedError } from './fifo-lifecycle.js';
export {
  deletedObject,
  filteringResourceEventHandler,
  type HandlerEvent,
  type ResourceEventHandler,
} from './handler.js';
export {
  anonymousInformerIdentity,
  InformerName,
  InformerNameAndResource,
  newInformerName,
} from './identity.js';
export {
  type FIFOMetrics,
  getInformerMetricsProvider,
  type InformerMetricsProvider,
  newFIFOMetrics,
  newStoreResourceVersionMetric,
  noopInformerMetricsProvider,
  setInformerMetricsProvider,
} from './informer-metrics.js';
export {
  type DeletedFinalStateUnknown,
  deletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  type KeyFunc,
  metaNamespaceKeyFunc,
  type NamespacedName,
  objectKey,
  splitMetaNamespaceKey,
} from './keys.js';
export {
  doesClientNotSupportWatchListSemantics,
  type ListerWatcher,
  type ListHints,
  reusingCachedItems,
  tweakListerWatcher,
  type WatchHints,
} from './listwatch.js';
export {
  type ListOptionsTweak,
  listWatchFromClient,
  metadataListWatchFromClient,
  newFilteredListWatchFromClient,
  newFilteredMetadataListWatchFromClient,
  partialObjectMetadataAccept,
  partialObjectMetadataListAccept,
  type RESTGetter,
} from './listwatch-client.js';
export {
  defaultFieldsV1Pool,
  dropManagedFields,
  FieldsV1Pool,
  shareManagedFields,
} from './managed-fields.js';
export {
  cacheMutationDetectorEnv,
  isCacheMutationDetectorEnabled,
} from './mutation-detector.js';
export {
  defaultPageSize,
  type ListPagerOptions,
  listAllPages,
  type PagedList,
} from './pager.js';
export { Reflector } from './reflector.js';
export {
  getReflectorMetricsProvider,
  noopReflectorMetricsProvider,
  type ReflectorMetricsProvider,
  setReflectorMetricsProvider,
} from './reflector-metrics.js';
export type {
  BackoffManager,
  ReflectorInfo,
  ReflectorOptions,
  ReflectorStore,
  WatchErrorHandler,
} from './reflector-options.js';
export {
  nextReflectorAction,
  type ReflectorAction,
  type ReflectorActionKind,
  type ReflectorOutcome,
  type ReflectorReport,
  type ReflectorStep,
} from './reflector-policy.js';
export {
  type AddEventHandlerOptions,
  minimumResyncPeriodMs,
  newSharedIndexInformer,
  newSharedInformer,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformer,
  shutDownEventHandler,
} from './shared-informer.js';
export type {
  HandlerErrorInfo,
  SharedIndexInformerOptions,
} from './shared-informer-options.js';
export {
  CacheIndexer,
  type Indexer,
  isTransactionStore,
  newIndexer,
  newStore,
  type Store,
  type StoreOptions,
  type Transaction,
  TransactionError,
  type TransactionStore,
} from './store.js';
export {
  type BookmarkDelta,
  type BookmarkInfo,
  defaultBatchSize,
  type FIFODelta,
  type ProcessBatchFunc,
  RealFIFO,
  type RealFIFOOptions,
  type RealFIFOProcessFunc,
  type ReplacedAllDelta,
  type ReplacedAllInfo,
  type SyncAllDelta,
} from './the-real-fifo.js';
export {
  type Indexers,
  type IndexFunc,
  IndexNotFoundError,
  metaNamespaceIndexFunc,
  namespaceIndex,
  ThreadSafeStore,
  type ThreadSafeStoreOptions,
  type ThreadSafeStoreTransaction,
  type TransactionType,
} from './thread-safe-store.js';
export type { ReflectorTuning } from './tuning.js';
export {
  syncedPollPeriodMs,
  waitForCacheSync,
} from './wait.js';
