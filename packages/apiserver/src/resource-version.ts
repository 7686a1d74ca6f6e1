import { ApiError, badRequest } from './status.js';

const UINT64_MAX = 2n ** 64n - 1n;
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Parses a `resourceVersion` as kube-apiserver 1.20 does (Go's `strconv.ParseUint(v, 10, 64)`):
 * digits only, up to 2^64-1, exactly (a Number would round past 2^53). `''` and `'0'` are 0. A
 * value that does not parse throws the watch cache's answer, a 500 without a reason; reads
 * served by etcd use {@link parseEtcdResourceVersion}.
 */
export function parseResourceVersion(value: string): bigint {
  const parsed = parseUint64(value);
  if (typeof parsed === 'bigint') return parsed;
  throw new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: parsed,
    code: 500,
  });
}

/** {@link parseResourceVersion} for a list read from etcd, which refuses a bad value with a 400. */
export function parseEtcdResourceVersion(value: string): bigint {
  const parsed = parseUint64(value);
  if (typeof parsed === 'bigint') return parsed;
  throw badRequest(`invalid resource version: ${parsed}`);
}

/**
 * The revision etcd reads for a resourceVersion: Go converts the uint64 to int64, so one past
 * 2^63-1 wraps to a negative revision, which etcd takes as its current one (undefined here).
 */
export function etcdRevision(rv: bigint): bigint | undefined {
  return rv > INT64_MAX ? undefined : rv;
}

/** The value, or the field error text naming why it is not a uint64. */
function parseUint64(value: string): bigint | string {
  if (value === '' || value === '0') return 0n;
  let n = 0n;
  // Go checks character by character, so an overflow is reported before a later bad character.
  for (const c of value) {
    if (c < '0' || c > '9') return invalidValue(value, 'invalid syntax');
    n = n * 10n + BigInt(c.charCodeAt(0) - 48);
    if (n > UINT64_MAX) return invalidValue(value, 'value out of range');
  }
  return n;
}

function invalidValue(value: string, why: string): string {
  const quoted = goQuote(value);
  return `resourceVersion: Invalid value: ${quoted}: strconv.ParseUint: parsing ${quoted}: ${why}`;
}

/**
 * The resourceVersion of a continue token, which Go decodes as an int64 JSON number: the error
 * text of `encoding/json` when it is not one, 0 when it is absent or null.
 */
export function continueTokenRevision(source: string | undefined, value: unknown): bigint | string {
  const into = 'into Go struct field continueToken.rv of type int64';
  if (value === undefined || value === null) return 0n;
  if (typeof value !== 'number') {
    const kind =
      typeof value === 'boolean' ? 'bool' : Array.isArray(value) ? 'array' : typeof value;
    return `json: cannot unmarshal ${kind} ${into}`;
  }
  const text = source ?? String(value);
  if (!/^-?\d+$/.test(text)) return `json: cannot unmarshal number ${text} ${into}`;
  const n = BigInt(text);
  if (n > INT64_MAX || n < -INT64_MAX - 1n) return `json: cannot unmarshal number ${text} ${into}`;
  return n;
}

/** Go's `strconv.Quote` for the characters a query parameter can carry. */
export function goQuote(value: string): string {
  // JSON escapes control characters as \u00XX (but \b \f \n \r \t as Go does) and leaves DEL.
  return JSON.stringify(value)
    .replace(/\\u00([0-9a-f]{2})/g, (_, hex: string) =>
      hex === '07' ? '\\a' : hex === '0b' ? '\\v' : `\\x${hex}`,
    )
    .replace(/\u007f/g, '\\x7f');
}

/** Whether a resourceVersion asked for is ahead of the server's. */
export function isAhead(rv: bigint, current: number): boolean {
  return rv > BigInt(current);
}
