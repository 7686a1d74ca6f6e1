/**
 * The name rules of `k8s.io/apimachinery/pkg/util/validation` that object names, API groups
 * and CRD names follow, with kube-apiserver's wording: each function lists what is wrong with
 * a value (empty when it is valid), as Go's `IsDNS1123Label` and friends do.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** The longest DNS-1123 or DNS-1035 label (a namespace's, a Service's name). */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** The longest DNS-1123 subdomain (most objects' names, an API group). */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

/** What makes `value` longer than `max` or unmatched by `pattern` (then `why`); empty when neither. */
function problems(value: string, max: number, pattern: RegExp, why: string): string[] {
  const errors: string[] = [];
  if (value.length > max) errors.push(`must be no more than ${max} characters`);
  if (!pattern.test(value)) errors.push(why);
  return errors;
}

/**
 * What makes `value` no RFC 1123 label (a namespace's name: lower-case letters, digits and
 * `-`, starting and ending with a letter or digit, at most 63 characters); empty when it is one.
 */
export function dns1123LabelErrors(value: string): string[] {
  return problems(
    value,
    DNS1123_LABEL_MAX_LENGTH,
    DNS1123_LABEL,
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  );
}

/**
 * What makes `value` no RFC 1123 subdomain (most objects' names, an API group: labels joined
 * by `.`, at most 253 characters); empty when it is one.
 */
export function dns1123SubdomainErrors(value: string): string[] {
  return problems(
    value,
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    DNS1123_SUBDOMAIN,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  );
}

/**
 * What makes `value` no DNS-1035 label (a Service's name, a CRD's plural, a version name: as an
 * RFC 1123 label, but starting with a letter); empty when it is one.
 */
export function dns1035LabelErrors(value: string): string[] {
  return problems(
    value,
    DNS1123_LABEL_MAX_LENGTH,
    DNS1035_LABEL,
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  );
}
