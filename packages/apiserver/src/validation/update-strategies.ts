import { isObject, type JsonValue } from '../patch.js';
import { forbidden, nonNegative, required } from './field-errors.js';
import type { FieldError } from './names.js';

const PERCENT = /^[0-9]+%$/;
const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** Go's `%#v` of an `intstr.IntOrString`, as kube-apiserver quotes one it refuses. */
function goIntOrString(value: JsonValue | undefined): string {
  if (typeof value === 'string') {
    return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(value)}}`;
  }
  const number = typeof value === 'number' ? value : 0;
  return `intstr.IntOrString{Type:0, IntVal:${number}, StrVal:""}`;
}

function invalidIntOrString(
  field: string,
  value: JsonValue | undefined,
  detail: string,
): FieldError {
  const message = `Invalid value: ${goIntOrString(value)}: ${detail}`;
  return { reason: 'FieldValueInvalid', message, field };
}

/** The number a count or percentage stands for (a percentage's number; else an integer or 0). */
function intOrPercentValue(value: JsonValue | undefined): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  const text = PERCENT.test(value) ? value.slice(0, -1) : value;
  return /^[+-]?\d+$/.test(text) ? Number(text) : 0;
}

function positiveIntOrPercent(value: JsonValue | undefined, field: string): FieldError[] {
  if (typeof value === 'string') {
    return PERCENT.test(value) ? [] : [invalidIntOrString(field, value, PERCENT_MSG)];
  }
  return nonNegative(value, field);
}

/**
 * `ValidateDeploymentStrategy`: `Recreate` without `rollingUpdate`; `RollingUpdate` with
 * `maxUnavailable` and `maxSurge` each a count ≥ 0 or a percentage, not both 0, and
 * `maxUnavailable` at most 100%; any other type unsupported (quoted as a Go struct).
 */
export function validateDeploymentStrategy(strategyValue: JsonValue | undefined): FieldError[] {
  const strategy = isObject(strategyValue) ? strategyValue : {};
  const path = 'spec.strategy';
  const rolling = strategy.rollingUpdate;
  if (strategy.type === 'Recreate') {
    if (rolling === undefined || rolling === null) return [];
    return [
      forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'"),
    ];
  }
  if (strategy.type === 'RollingUpdate') {
    if (!isObject(rolling)) {
      return [required(`${path}.rollingUpdate`, 'this should be defaulted and never be nil')];
    }
    const at = `${path}.rollingUpdate`;
    const { maxUnavailable, maxSurge } = rolling;
    const errors = [
      ...positiveIntOrPercent(maxUnavailable, `${at}.maxUnavailable`),
      ...positiveIntOrPercent(maxSurge, `${at}.maxSurge`),
    ];
    if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
      errors.push(
        invalidIntOrString(
          `${at}.maxUnavailable`,
          maxUnavailable,
          'may not be 0 when `maxSurge` is 0',
        ),
      );
    }
    return [...errors, ...over100Percent(maxUnavailable, `${at}.maxUnavailable`)];
  }
  return [
    unknownStrategy(path, 'DeploymentStrategy', 'Deployment', strategy.type, [
      'Recreate',
      'RollingUpdate',
    ]),
  ];
}

/**
 * An unknown strategy type, quoted as the Go struct kube-apiserver prints (its rolling
 * update is nil: the defaults only add one to a `RollingUpdate` strategy).
 */
function unknownStrategy(
  field: string,
  struct: string,
  owner: string,
  type: JsonValue | undefined,
  supported: string[],
): FieldError {
  const go = `apps.${struct}{Type:${JSON.stringify(String(type ?? ''))}, RollingUpdate:(*apps.RollingUpdate${owner})(nil)}`;
  const values = supported.map((v) => JSON.stringify(v)).join(', ');
  return {
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${go}: supported values: ${values}`,
    field,
  };
}

/** `maxUnavailable` above 100%. */
function over100Percent(value: JsonValue | undefined, field: string): FieldError[] {
  if (typeof value !== 'string' || !PERCENT.test(value) || intOrPercentValue(value) <= 100) {
    return [];
  }
  return [invalidIntOrString(field, value, 'must not be greater than 100%')];
}

/**
 * `ValidateDaemonSetUpdateStrategy`: `OnDelete`, or `RollingUpdate` whose `maxUnavailable`
 * is a count ≥ 0 or a percentage, not 0, at most 100%; any other type unsupported.
 */
export function validateDaemonSetUpdateStrategy(
  strategyValue: JsonValue | undefined,
): FieldError[] {
  const strategy = isObject(strategyValue) ? strategyValue : {};
  const path = 'spec.updateStrategy';
  if (strategy.type === 'OnDelete') return [];
  if (strategy.type !== 'RollingUpdate') {
    return [
      unknownStrategy(path, 'DaemonSetUpdateStrategy', 'DaemonSet', strategy.type, [
        'RollingUpdate',
        'OnDelete',
      ]),
    ];
  }
  if (!isObject(strategy.rollingUpdate)) return [required(`${path}.rollingUpdate`)];
  const field = `${path}.rollingUpdate.maxUnavailable`;
  const maxUnavailable = strategy.rollingUpdate.maxUnavailable;
  const errors = positiveIntOrPercent(maxUnavailable, field);
  if (intOrPercentValue(maxUnavailable) === 0) {
    errors.push(invalidIntOrString(field, maxUnavailable, 'cannot be 0'));
  }
  return [...errors, ...over100Percent(maxUnavailable, field)];
}
