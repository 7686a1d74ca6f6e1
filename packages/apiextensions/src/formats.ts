/**
 * The string formats kube-apiserver 1.20 checks in a custom resource (its validator drops every
 * other `format`, such as int32/int64/float/double, which are never checked). A format's name
 * is compared without dashes (`date-time` is `datetime`). A failing value gets
 * `<path> in body must be of type <format>: "<value>"`.
 */

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
// A label starts and ends with a letter, digit or symbol; the last of several is letters only.
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
// At least one quantum: an empty string is not base64 to 1.20.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const MAC =
  /^(?:[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){5}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){7}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){19}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){2}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){3}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){9})$/;
const DURATION_UNIT =
  /^(ns|nano|nanos?|nanoseconds?|us|µs|micro|micros?|microseconds?|ms|milli|millis?|milliseconds?|s|sec|secs?|seconds?|m|min|mins?|minutes?|h|hr|hrs?|hours?|d|day|days?|w|wk|wks?|weeks?)$/;
const GO_DURATION = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+$/;
const EMAIL_DOMAIN = /^[A-Za-z0-9.-]+$|^\[[^\]]*\]$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_COLOR =
  /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;

function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

function isDateTime(value: string): boolean {
  if (value.length < 4) return false;
  const parts = value.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] ?? '')) return false;
  const m = TIME_OF_DAY.exec(parts[1] ?? '');
  if (!m) return false;
  return (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

function isIPv4(value: string): boolean {
  const parts = value.split('.');
  // Leading zeros are refused (they once meant octal).
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/** An IPv6 address as Go's net.ParseIP reads it (with `:`; may end in a dotted IPv4). */
function isIPv6(value: string): boolean {
  if (!value.includes(':')) return false;
  let text = value;
  let groupsLeft = 8;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return false;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const all = halves.flatMap(groups);
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  if (halves.length === 2) return all.length < groupsLeft;
  groupsLeft -= all.length;
  return groupsLeft === 0;
}

function isCidr(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  const address = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (isIPv4(address)) return Number(bits) <= 32;
  return isIPv6(address) && Number(bits) <= 128;
}

function isEmail(value: string): boolean {
  const address = /<([^>]*)>\s*$/.exec(value)?.[1] ?? value.trim();
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return false;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  return EMAIL_LOCAL.test(local) && EMAIL_DOMAIN.test(domain);
}

/** A URI as Go's url.ParseRequestURI accepts it: absolute (with a scheme) or an absolute path. */
function isRequestUri(value: string): boolean {
  if (value.startsWith('/')) return !/\s/.test(value);
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(value);
  return m !== null && !/\s/.test(value);
}

function isDuration(value: string): boolean {
  if (GO_DURATION.test(value)) return true;
  const matches = [...value.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)];
  return matches.length > 0 && matches.every((m) => DURATION_UNIT.test(m[2] ?? ''));
}

function isHostname(value: string): boolean {
  if (!HOSTNAME.test(value) || value.length > 255) return false;
  return value.split('.').every((label) => label.length <= 63);
}

const CHECKS: Readonly<Record<string, (value: string) => boolean>> = {
  bsonobjectid: (v) => BSON_OBJECT_ID.test(v),
  uri: isRequestUri,
  email: isEmail,
  hostname: isHostname,
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCidr,
  mac: (v) => MAC.test(v),
  uuid: (v) => UUID.test(v),
  uuid3: (v) => UUID3.test(v),
  uuid4: (v) => UUID4.test(v),
  uuid5: (v) => UUID5.test(v),
  // Eleven characters: the separators are not optional after all.
  ssn: (v) => v.length === 11 && SSN.test(v),
  hexcolor: (v) => HEX_COLOR.test(v),
  rgbcolor: (v) => RGB_COLOR.test(v),
  byte: (v) => BASE64.test(v),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/**
 * Whether `value` is of string format `format`; true for formats 1.20 does not check
 * (including isbn and creditcard, which the embedded server does not check either).
 */
export function matchesFormat(format: string, value: string): boolean {
  const check = CHECKS[format.replaceAll('-', '')];
  return check ? check(value) : true;
}

/** Number formats OpenAPI names; kube-apiserver 1.20 accepts them on CRDs and checks nothing. */
const NUMBER_FORMATS = ['int32', 'int64', 'float', 'double'];

/**
 * Whether kube-apiserver 1.20 knows `format` (after dropping `-`, as it normalizes): the
 * string formats it checks (`supportedFormats`: those above, isbn and creditcard too) and the
 * number formats. It silently drops any other format from a CRD's schema.
 */
export function isKnownFormat(format: string): boolean {
  const name = format.replaceAll('-', '');
  return (
    name in CHECKS ||
    ['isbn', 'isbn10', 'isbn13', 'creditcard'].includes(name) ||
    NUMBER_FORMATS.includes(name)
  );
}
