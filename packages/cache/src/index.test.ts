import { describe, expect, it } from 'vitest';
import * as cache from './index.js';

describe('package entry', () => {
  it('exports the cache API and nothing internal', () => {
    expect(Object.keys(cache).sort()).toEqual([
      'CacheIndexer',
      'Controller',
      'DeltaFIFO',
      'FIFOClosedError',
      'FakeClock',
      'IndexNotFoundError',
      'Reflector',
      'RequeueError',
      'ThreadSafeStore',
      'defaultPageSize',
      'deletedFinalStateUnknown',
      'deletedObject',
      'deletionHandlingMetaNamespaceKeyFunc',
      'filteringResourceEventHandler',
      'isDeletedFinalStateUnknown',
      'isFIFOClosedError',
      'isRequeueError',
      'listAllPages',
      'metaNamespaceIndexFunc',
      'metaNamespaceKeyFunc',
      'minimumResyncPeriodMs',
      'namespaceIndex',
      'newIndexer',
      'newIndexerInformer',
      'newInformer',
      'newSharedIndexInformer',
      'newSharedInformer',
      'newSharedInformerFactory',
      'newStore',
      'newestDelta',
      'objectKey',
      'oldestDelta',
      'realClock',
      'silentLogger',
      'splitMetaNamespaceKey',
      'syncedPollPeriodMs',
      'tweakListerWatcher',
      'waitForCacheSync',
    ]);
  });
});
