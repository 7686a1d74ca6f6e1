/**
 * The name rules of Kubernetes objects and their fields (apimachinery's `util/validation`):
 * each check returns what is wrong with a value in kube-apiserver's words, empty when it
 * is valid, so that a caller can build a `Status` cause (`Invalid value: "x": ...`) the way
 * the API server does.
 */

const dns1123LabelMaxLength = 63;
const dns1123SubdomainMaxLength = 253;
const dns1035LabelMaxLength = 63;

const dns1123LabelFormat = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFormat = `${dns1123LabelFormat}(\\.${dns1123LabelFormat})*`;
const dns1035LabelFormat = '[a-z]([-a-z0-9]*[a-z0-9])?';

const dns1123LabelPattern = new RegExp(`^${dns1123LabelFormat}$`);
const dns1123SubdomainPattern = new RegExp(`^${dns1123SubdomainFormat}$`);
const dns1035LabelPattern = new RegExp(`^${dns1035LabelFormat}$`);

const dns1123LabelMessage = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${dns1123LabelFormat}')`;
const dns1123SubdomainMessage = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${dns1123SubdomainFormat}')`;
const dns1035LabelMessage = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${dns1035LabelFormat}')`;

function problems(value: string, maxLength: number, pattern: RegExp, message: string): string[] {
  const found: string[] = [];
  if (value.length > maxLength) found.push(`must be no more than ${maxLength} characters`);
  if (!pattern.test(value)) found.push(message);
  return found;
}

/**
 * What is wrong with `value` as an RFC 1123 label (apimachinery's `IsDNS1123Label`): at most
 * 63 lower-case alphanumeric characters or '-', starting and ending with an alphanumeric
 * one; the names of Namespaces, Services' ports, containers. Empty when valid.
 */
export function isDNS1123Label(value: string): string[] {
  return problems(value, dns1123LabelMaxLength, dns1123LabelPattern, dns1123LabelMessage);
}

/**
 * What is wrong with `value` as an RFC 1123 subdomain (apimachinery's `IsDNS1123Subdomain`):
 * at most 253 characters, RFC 1123 labels joined by '.'; the names of most objects and API
 * groups. Empty when valid.
 */
export function isDNS1123Subdomain(value: string): string[] {
  return problems(
    value,
    dns1123SubdomainMaxLength,
    dns1123SubdomainPattern,
    dns1123SubdomainMessage,
  );
}

/**
 * What is wrong with `value` as an RFC 1035 label (apimachinery's `IsDNS1035Label`): an RFC
 * 1123 label that starts with a letter; the names of Services, API versions and resource
 * names of custom resources. Empty when valid.
 */
export function isDNS1035Label(value: string): string[] {
  return problems(value, dns1035LabelMaxLength, dns1035LabelPattern, dns1035LabelMessage);
}
