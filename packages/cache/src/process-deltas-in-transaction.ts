import type { Delta } from './delta.js';
import { type DeltaHandler, notify } from './process-deltas.js';
import type { Transaction, TransactionStore } from './store.js';

/**
 * Applies a batch of deltas of distinct keys to any {@link TransactionStore} as one
 * transaction (client-go `processDeltasInBatch` over a store of your own), then notifies
 * `handler` in order. When some writes fail, only those that succeeded are notified, then
 * it throws an error whose `cause` is the store's `TransactionError`. Informers apply batches to their indexer with `processDeltaBatch`.
 */
export function processDeltaBatchInTransaction<T>(
  handler: DeltaHandler<T>,
  store: TransactionStore<T>,
  deltas: readonly Delta<T>[],
  isInInitialList: boolean,
): void {
  const olds = new Array<T | undefined>(deltas.length);
  const txns = deltas.map((delta, i): Transaction<T> => {
    if (delta.type === 'Deleted') return { type: 'Delete', object: delta.object as T };
    const old = store.get(delta.object);
    olds[i] = old;
    return { type: old === undefined ? 'Add' : 'Update', object: delta.object as T };
  });
  const failed = store.transaction(...txns);
  const applied =
    failed === undefined
      ? deltas.keys()
      : failed.successfulIndices.filter((i) => i < deltas.length);
  for (const i of applied) notify(handler, deltas[i]!, olds[i], isInInitialList);
  if (failed !== undefined) {
    throw new Error(`not all items in the batch successfully processed: ${failed.message}`, {
      cause: failed,
    });
  }
}
