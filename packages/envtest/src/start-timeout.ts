// How long envtest waits for etcd and kube-apiserver: the option, else controller-runtime's
// environment variable, so that a slow or shared CI machine can allow more time without
// changing every test that starts envtest.

/** controller-runtime's envtest variable for the control plane's start timeout (a Go duration). */
export const START_TIMEOUT_ENV = 'KUBEBUILDER_CONTROLPLANE_START_TIMEOUT';

const DEFAULT_START_TIMEOUT_MS = 60_000;

const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A Go duration of hours, minutes, seconds and milliseconds (`90s`, `2m`, `1m30s`, `1500ms`)
 * in milliseconds; `undefined` when `text` is not one.
 */
export function parseGoDurationMs(text: string): number | undefined {
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const match = part.exec(text);
    if (match === null) return undefined;
    total += Number(match[1]) * (unitMs[match[2] ?? ''] ?? Number.NaN);
    at = part.lastIndex;
  }
  return text.length > 0 && Number.isFinite(total) ? total : undefined;
}

/**
 * The start timeout to use: `optionMs` when given, else `$KUBEBUILDER_CONTROLPLANE_START_TIMEOUT`
 * when set, else 60 s.
 * @throws {RangeError} naming the variable when it is set to something that is not a positive
 *   Go duration.
 */
export function startTimeoutMs(
  optionMs: number | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): number {
  if (optionMs !== undefined) return optionMs;
  const text = env[START_TIMEOUT_ENV];
  if (text === undefined || text === '') return DEFAULT_START_TIMEOUT_MS;
  const ms = parseGoDurationMs(text.trim());
  if (ms === undefined || ms <= 0) {
    throw new RangeError(
      `${START_TIMEOUT_ENV}=${JSON.stringify(text)} is not a positive Go duration (e.g. 90s, 2m, 1m30s)`,
    );
  }
  return ms;
}
