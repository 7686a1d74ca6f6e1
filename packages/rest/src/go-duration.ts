const nanosPerMicro = 1_000n;
const nanosPerMilli = 1_000_000n;
const nanosPerSecond = 1_000_000_000n;
const nanosPerMinute = 60n * nanosPerSecond;
const nanosPerHour = 60n * nanosPerMinute;

/**
 * `value / 10^digits` in decimal, with the fraction's trailing zeros (and a bare point)
 * dropped: `fixedPoint(1_500n, 3)` is `1.5`.
 */
function fixedPoint(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const fraction = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  const whole = (value / scale).toString();
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/**
 * A duration of `nanos` nanoseconds the way Go's `time.Duration.String()` writes it, which
 * is what client-go puts in a request's `timeout` parameter: `0s`, `750ns`, `1.1µs`,
 * `2.2ms` below a second; `1.5s`, `1m0s`, `5h6m7.001s` from a second on.
 */
export function goDurationString(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const size = nanos < 0n ? -nanos : nanos;
  if (size < nanosPerMicro) return `${sign}${size}ns`;
  if (size < nanosPerMilli) return `${sign}${fixedPoint(size, 3)}µs`;
  if (size < nanosPerSecond) return `${sign}${fixedPoint(size, 6)}ms`;
  const hours = size / nanosPerHour;
  const minutes = (size % nanosPerHour) / nanosPerMinute;
  const seconds = `${fixedPoint(size % nanosPerMinute, 9)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

/** {@link goDurationString} of `ms` milliseconds, to the nearest nanosecond. */
export function goDurationStringOfMs(ms: number): string {
  return goDurationString(BigInt(Math.round(ms * 1e6)));
}
