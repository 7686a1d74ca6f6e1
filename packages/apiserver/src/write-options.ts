import type { StatusCause } from '@kubets/apimachinery';
import { invalid } from './status.js';

/** The longest `fieldManager` kube-apiserver accepts, in bytes. */
const FIELD_MANAGER_MAX_BYTES = 128;

/** Which options a write's query parameters decode into. */
export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/**
 * Checks a write's query options as kube-apiserver does before it reads the body: for a patch,
 * `force` only on apply and `fieldManager` required for it; `fieldManager` at most 128 bytes;
 * `dryRun` only `All`. Throws the `422 <Kind>.meta.k8s.io "" is invalid` it answers.
 */
export function checkWriteOptions(
  kind: WriteOptionsKind,
  query: URLSearchParams,
  patchType?: string,
): void {
  const causes: Required<StatusCause>[] = [];
  const manager = query.get('fieldManager') ?? '';
  if (kind === 'PatchOptions') {
    if (patchType !== 'apply') {
      if (query.has('force')) {
        causes.push({
          reason: 'FieldValueForbidden',
          message: 'Forbidden: may not be specified for non-apply patch',
          field: 'force',
        });
      }
    } else if (manager === '') {
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      });
    }
  }
  if (kind !== 'DeleteOptions' && Buffer.byteLength(manager) > FIELD_MANAGER_MAX_BYTES) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${FIELD_MANAGER_MAX_BYTES} bytes`,
      field: 'fieldManager',
    });
  }
  const dryRun = query.getAll('dryRun');
  if (dryRun.some((value) => value !== 'All')) {
    // Go's %#v of the []string.
    const quoted = `[]string{${dryRun.map((v) => JSON.stringify(v)).join(', ')}}`;
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${quoted}: supported values: "All"`,
      field: 'dryRun',
    });
  }
  if (causes.length > 0) throw invalid(kind, '', causes, 'meta.k8s.io');
}
