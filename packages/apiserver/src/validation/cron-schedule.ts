/**
 * The error the cron parser kube-apiserver 1.20 uses for CronJob schedules (robfig/cron's
 * `ParseStandard`) gives for `schedule`, or undefined when it parses: five fields (minute,
 * hour, day of month, month, day of week) or a descriptor (`@daily`, `@every 5m`, …).
 */
export function cronScheduleProblem(schedule: string): string | undefined {
  if (schedule === '') return 'Empty spec string';
  if (schedule.startsWith('@')) return descriptorProblem(schedule);
  const fields = schedule.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) {
    return `Expected exactly 5 fields, found ${fields.length}: ${schedule}`;
  }
  for (const [i, field] of fields.entries()) {
    const bounds = FIELD_BOUNDS[i];
    if (bounds === undefined) break;
    for (const expr of field.split(',').filter((e) => e !== '')) {
      const problem = rangeProblem(expr, bounds);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

interface Bounds {
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FIELD_BOUNDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = [
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
];

class CronFailure extends Error {}

/** Go's `strconv.Atoi` and the parser's refusal of negative numbers. */
function atoi(expr: string): number {
  const quoted = JSON.stringify(expr);
  if (!/^[+-]?\d+$/.test(expr)) {
    throw new CronFailure(
      `Failed to parse int from ${expr}: strconv.Atoi: parsing ${quoted}: invalid syntax`,
    );
  }
  const big = BigInt(expr);
  if (big > 2n ** 63n - 1n || big < -(2n ** 63n)) {
    throw new CronFailure(
      `Failed to parse int from ${expr}: strconv.Atoi: parsing ${quoted}: value out of range`,
    );
  }
  if (big < 0n) throw new CronFailure(`Negative number (${big}) not allowed: ${expr}`);
  return Number(big);
}

function intOrName(expr: string, bounds: Bounds): number {
  const named = bounds.names?.indexOf(expr.toLowerCase()) ?? -1;
  // Months are named from 1, days of the week from 0.
  if (named >= 0) return named + bounds.min;
  return atoi(expr);
}

function rangeProblem(expr: string, bounds: Bounds): string | undefined {
  try {
    const rangeAndStep = expr.split('/');
    const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
    let start: number;
    let end: number;
    if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
      start = bounds.min;
      end = bounds.max;
    } else {
      start = intOrName(lowAndHigh[0] ?? '', bounds);
      if (lowAndHigh.length > 2) return `Too many hyphens: ${expr}`;
      end = lowAndHigh.length === 2 ? intOrName(lowAndHigh[1] ?? '', bounds) : start;
    }
    let step = 1;
    if (rangeAndStep.length > 2) return `Too many slashes: ${expr}`;
    if (rangeAndStep.length === 2) {
      step = atoi(rangeAndStep[1] ?? '');
      if (lowAndHigh.length === 1) end = bounds.max;
    }
    if (start < bounds.min)
      return `Beginning of range (${start}) below minimum (${bounds.min}): ${expr}`;
    if (end > bounds.max) return `End of range (${end}) above maximum (${bounds.max}): ${expr}`;
    if (start > end) return `Beginning of range (${start}) beyond end of range (${end}): ${expr}`;
    if (step === 0) return `Step of range should be a positive number: ${expr}`;
    return undefined;
  } catch (error) {
    if (error instanceof CronFailure) return error.message;
    throw error;
  }
}

const DURATION_PART = /^(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/** Go's `time.ParseDuration` errors for the common mistakes (missing or unknown unit). */
function durationProblem(text: string): string | undefined {
  const quoted = JSON.stringify(text);
  let rest = text.replace(/^[-+]/, '');
  if (rest === '0') return undefined;
  if (rest === '') return `time: invalid duration ${quoted}`;
  while (rest !== '') {
    const part = DURATION_PART.exec(rest);
    if (part) {
      rest = rest.slice(part[0].length);
      continue;
    }
    const number = /^(\d+(\.\d*)?|\.\d+)/.exec(rest);
    if (!number) return `time: invalid duration ${quoted}`;
    const unit = /^[^\d.]*/.exec(rest.slice(number[0].length))?.[0] ?? '';
    if (unit === '') return `time: missing unit in duration ${quoted}`;
    return `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`;
  }
  return undefined;
}

function descriptorProblem(descriptor: string): string | undefined {
  if (DESCRIPTORS.includes(descriptor)) return undefined;
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    const problem = durationProblem(descriptor.slice(every.length));
    return problem === undefined ? undefined : `Failed to parse duration ${descriptor}: ${problem}`;
  }
  return `Unrecognized descriptor: ${descriptor}`;
}
