import { InvalidRequestError } from './errors.js';

// Characters RFC 3986 allows unescaped in a path segment (`pchar`): unreserved, sub-delims,
// ':' and '@'. Everything else is percent-encoded, so the URL parser has nothing left to
// reinterpret: it turns '\' into '/', drops TAB/CR/LF and resolves '..' and '%2e%2e', and
// a segment that reached it raw could name another object or climb out of the base path.
const segmentSafe = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]*$/;
const charSafe = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;
// A surrogate without its pair: encodeURIComponent cannot encode it (ES2023 has no isWellFormed).
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isWellFormed(text: string): boolean {
  return !loneSurrogate.test(text);
}

/**
 * Percent-encodes one path segment as Go's `url.URL.EscapedPath` does, leaving the
 * characters a path segment may hold as they are (`system:node` stays readable).
 * The segment must be well-formed Unicode.
 */
export function escapePathSegment(segment: string): string {
  if (segmentSafe.test(segment)) return segment;
  let escaped = '';
  for (const char of segment) escaped += charSafe.test(char) ? char : encodeURIComponent(char);
  return escaped;
}

/**
 * Why `segment` cannot name an object in a URL path: apimachinery's
 * `IsValidPathSegmentName` (not `.` or `..`, no `/` or `%`), plus well-formed Unicode,
 * which percent-encoding needs. Empty when it is fine.
 */
export function pathSegmentProblems(segment: string): string[] {
  if (segment === '.' || segment === '..') return [`may not be '${segment}'`];
  const problems: string[] = [];
  if (segment.includes('/')) problems.push("may not contain '/'");
  if (segment.includes('%')) problems.push("may not contain '%'");
  if (!isWellFormed(segment)) problems.push('may not contain unpaired surrogate characters');
  return problems;
}

/** Shortens a hostile value for an error message: control characters shown escaped, length capped. */
export function describeValue(value: string): string {
  const shown = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return value.length > 80 ? `${shown} (${value.length} characters)` : shown;
}

/**
 * Splits a caller's path (`/apis/apps/v1`, or several parts) into escaped segments.
 * Empty segments are dropped, as `path.Join` drops them; `.` and `..` are refused rather
 * than resolved, since resolving them could leave the server's base path.
 *
 * @throws {InvalidRequestError} naming `part` for a dot segment or malformed Unicode.
 */
export function escapedSegmentsOf(part: string, ...paths: string[]): string[] {
  const segments: string[] = [];
  for (const path of paths) {
    for (const segment of path.split('/')) {
      if (segment === '') continue;
      if (segment === '.' || segment === '..' || !isWellFormed(segment)) {
        throw new InvalidRequestError(
          part,
          path,
          `invalid ${part} ${describeValue(path)}: ${
            isWellFormed(segment)
              ? `may not contain the segment '${segment}'`
              : 'may not contain unpaired surrogate characters'
          }`,
        );
      }
      segments.push(escapePathSegment(segment));
    }
  }
  return segments;
}

// An API group is a DNS subdomain (the core group is ''); a version is a DNS label
// (`v1`, `v1beta1`): what kube-apiserver accepts for CRDs and APIServices alike.
const dnsLabel = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const groupPattern = new RegExp(`^${dnsLabel}(\\.${dnsLabel})*$`);
const versionPattern = new RegExp(`^${dnsLabel}$`);

/**
 * Checks an API group and version before they become path segments: the group must be
 * `''` or a DNS subdomain of at most 253 characters, the version a DNS label of at most 63.
 *
 * @throws {InvalidRequestError} with part `group` or `version`.
 */
export function assertValidGroupVersion(group: string, version: string): void {
  if (group !== '' && (group.length > 253 || !groupPattern.test(group))) {
    throw new InvalidRequestError(
      'group',
      group,
      `invalid API group ${describeValue(group)}: must be empty (the core group) or a DNS subdomain: lower-case alphanumeric characters, '-' or '.', at most 253 characters`,
    );
  }
  if (version.length > 63 || !versionPattern.test(version)) {
    throw new InvalidRequestError(
      'version',
      version,
      `invalid API version ${describeValue(version)}: must be a DNS label such as v1 or v1beta1: lower-case alphanumeric characters or '-', at most 63 characters`,
    );
  }
}

/**
 * The URL as it may appear in messages and logs: a password given in the server URL
 * (`https://user:password@host`) is replaced by `xxxxx`, as Go's `URL.Redacted`.
 */
export function redactedHref(url: URL): string {
  if (!url.password) return url.href;
  const copy = new URL(url.href);
  copy.password = 'xxxxx';
  return copy.href;
}
