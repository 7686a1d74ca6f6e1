import { isNotFound } from '@kubets/apimachinery';
import type { GenericLister } from '@kubets/listers';
import type { ReconcileRequest } from './request.js';

/** The object of `request` in the lister's cache, or `undefined` when it has none. */
export function cachedObject<T>(
  lister: GenericLister<T>,
  request: ReconcileRequest,
): T | undefined {
  try {
    return request.namespace
      ? lister.byNamespace(request.namespace).get(request.name)
      : lister.get(request.name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
