/**
 * Go's `time.Parse` with the layout of metav1.MicroTime (`2006-01-02T15:04:05.000000Z07:00`),
 * returning the text of the `*time.ParseError` kube-apiserver 1.20 (Go 1.15) reports, or
 * undefined when the value parses.
 */

const MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

type Element = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'fraction' | 'zone';

/** The layout as Go walks it: layout elements (see {@link ELEMENTS}) and the literals between. */
const MICRO_PARTS = [
  '2006',
  '-',
  '01',
  '-',
  '02',
  'T',
  '15',
  ':',
  '04',
  ':',
  '05',
  '.000000',
  'Z07:00',
];

/** What each layout element of {@link MICRO_PARTS} reads. */
const ELEMENTS: Readonly<Record<string, Element>> = Object.fromEntries(
  (['year', 'month', 'day', 'hour', 'minute', 'second', 'fraction', 'zone'] as const).map(
    (element, i) => [MICRO_PARTS.filter((p) => p.length > 1)[i], element],
  ),
);

const isDigit = (s: string, i: number): boolean => i < s.length && s[i]! >= '0' && s[i]! <= '9';

/** Go's `getnum`: one or two digits, exactly two when `fixed`. */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

/** Go's time `atoi`: an optional sign and decimal digits, all of the text. */
function atoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** Days in `month` (1–12) of `year`, leap years as the Gregorian calendar counts them. */
export function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const quote = (s: string): string => JSON.stringify(s);

/** The error text of Go's `time.Parse(RFC3339Micro, value)`, undefined when it parses. */
export function microTimeParseError(value: string): string | undefined {
  const cannotParse = (rest: string, elem: string): string =>
    `parsing time ${quote(value)} as ${quote(MICRO_LAYOUT)}: cannot parse ${quote(rest)} as ${quote(elem)}`;
  const outOfRange = (what: string): string => `parsing time ${quote(value)}: ${what} out of range`;
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (const text of MICRO_PARTS) {
    const element = ELEMENTS[text];
    if (element === undefined) {
      if (!rest.startsWith(text)) return cannotParse(rest, text);
      rest = rest.slice(text.length);
      continue;
    }
    const hold = rest;
    let range: string | undefined;
    let ok = true;
    switch (element) {
      case 'year': {
        const n = rest.length < 4 ? undefined : atoi(rest.slice(0, 4));
        if (n === undefined) ok = false;
        else [year, rest] = [n, rest.slice(4)];
        break;
      }
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second': {
        const got = getnum(rest, element !== 'hour');
        if (!got) {
          ok = false;
          break;
        }
        const [n, after] = got;
        rest = after;
        if (element === 'month') {
          month = n;
          if (n <= 0 || n > 12) range = 'month';
        } else if (element === 'day') {
          // Checked against the month once the whole value has parsed.
          day = n;
        } else if (element === 'hour' && n >= 24) range = 'hour';
        else if (element === 'minute' && n >= 60) range = 'minute';
        else if (element === 'second' && n >= 60) range = 'second';
        break;
      }
      case 'fraction':
        if (
          rest.length < 7 ||
          (rest[0] !== '.' && rest[0] !== ',') ||
          !/^\d{6}$/.test(rest.slice(1, 7))
        ) {
          ok = false;
        } else rest = rest.slice(7);
        break;
      case 'zone':
        if (rest.startsWith('Z')) rest = rest.slice(1);
        else if (
          rest.length < 6 ||
          rest[3] !== ':' ||
          (rest[0] !== '+' && rest[0] !== '-') ||
          atoi(rest.slice(1, 3)) === undefined ||
          atoi(rest.slice(4, 6)) === undefined
        ) {
          ok = false;
        } else rest = rest.slice(6);
        break;
    }
    if (!ok) return cannotParse(hold, text);
    if (range) return outOfRange(range);
  }
  if (rest !== '') return `parsing time ${quote(value)}: extra text: ${quote(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  return undefined;
}
