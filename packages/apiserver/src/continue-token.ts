import { isObject } from './patch.js';
import { continueTokenRevision, goQuote } from './resource-version.js';
import { badRequest } from './status.js';
import { goJsonSyntaxError } from './validation/go-json.js';

/** The continue token of a paged list at revision `rv`, going on after the key `start`. */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

const INCORRECT_START_RV = 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)';

/** The fields of 1.20's continue token and their Go types. */
const TOKEN_FIELDS: Readonly<Record<string, 'string' | 'int64'>> = {
  v: 'string',
  rv: 'int64',
  start: 'string',
};

/**
 * A continue token as kube-apiserver 1.20 decodes it (`base64.RawURLEncoding`, then
 * `json.Unmarshal` into its token struct, each failure with Go's text); `rv` is negative for a
 * token that asks for the current state (what an expired list hands out).
 */
export function decodeContinue(token: string): { rv: bigint; start: string } {
  const invalid = (why: string) =>
    badRequest(`invalid continue token: continue key is not valid: ${why}`);
  const badByte = /[^A-Za-z0-9_-]/.exec(token);
  if (badByte) throw invalid(`illegal base64 data at input byte ${badByte.index}`);
  // Unpadded base64 cannot end with a single character of a quantum.
  if (token.length % 4 === 1) {
    throw invalid(`illegal base64 data at input byte ${token.length - 1}`);
  }
  const bytes = Buffer.from(token, 'base64url');
  const syntax = goJsonSyntaxError(bytes.toString('latin1'));
  if (syntax !== undefined) throw invalid(syntax);
  const fields = unmarshalToken(bytes.toString('utf8'));
  if (typeof fields === 'string') throw invalid(fields);
  const version = fields.v ?? '';
  if (version !== 'meta.k8s.io/v1') {
    throw invalid(`server does not recognize this encoded version ${goQuote(version)}`);
  }
  const rv = fields.rv ?? 0n;
  if (rv === 0n) throw invalid(INCORRECT_START_RV);
  const start = fields.start ?? '';
  if (start === '') throw invalid('encoded start key empty (version meta.k8s.io/v1)');
  return { rv, start };
}

/**
 * Go's `json.Unmarshal` of valid JSON into the token struct: its fields (keys matched as Go
 * does, exactly or else ignoring case; null leaves a field alone), or the first type error.
 */
function unmarshalToken(json: string): { v?: string; rv?: bigint; start?: string } | string {
  // Number sources by the object holding them: an rv's digits must be read as written.
  const sources = new Map<object, Map<string, string>>();
  const parsed: unknown = JSON.parse(
    json,
    function (this: object, key: string, value: unknown, context?: { source?: string }) {
      if (context?.source !== undefined) {
        const byKey = sources.get(this) ?? new Map<string, string>();
        sources.set(this, byKey);
        byKey.set(key, context.source);
      }
      return value;
    },
  );
  if (parsed === null) return {};
  if (!isObject(parsed)) {
    return `json: cannot unmarshal ${goKind(parsed)} into Go value of type etcd3.continueToken`;
  }
  const out: { v?: string; rv?: bigint; start?: string } = {};
  let firstError: string | undefined;
  for (const [key, value] of Object.entries(parsed)) {
    const field =
      key in TOKEN_FIELDS
        ? key
        : Object.keys(TOKEN_FIELDS).find((name) => name === key.toLowerCase());
    if (field === undefined || value === null) continue;
    const into = `into Go struct field continueToken.${field} of type ${TOKEN_FIELDS[field]}`;
    if (field === 'rv') {
      const rv = continueTokenRevision(sources.get(parsed)?.get(key), value);
      if (typeof rv === 'string') firstError ??= rv;
      else out.rv = rv;
    } else if (typeof value === 'string') {
      out[field as 'v' | 'start'] = value;
    } else {
      firstError ??= `json: cannot unmarshal ${goKind(value)} ${into}`;
    }
  }
  return firstError ?? out;
}

/** The name `encoding/json` gives a JSON value's kind in its errors. */
function goKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}
