import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { cronScheduleProblem } from './cron-schedule.js';
import { invalid, nonNegative, required } from './field-errors.js';
import { goLabelSelector, validateLabelSelector } from './label-selector.js';
import { type FieldError, notSupportedErrors } from './names.js';
import { podTemplateErrors, templateSpecOf } from './pod-template.js';

const objectOf = (value: JsonValue | undefined): JsonObject => (isObject(value) ? value : {});

/** The restart policies a Job's pods may have. */
const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];

/**
 * `validateJobSpec` on the Job spec at `at`: counts ≥ 0, the template, and its
 * `restartPolicy` (OnFailure or Never).
 */
function jobSpecErrors(spec: JsonObject, at: string): FieldError[] {
  const errors: FieldError[] = [];
  // `ttlSecondsAfterFinished` is not checked: 1.20 drops it (its feature gate is off).
  for (const count of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit']) {
    errors.push(...nonNegative(spec[count], `${at}.${count}`));
  }
  errors.push(...podTemplateErrors(spec, at));
  const policy = templateSpecOf(spec).restartPolicy;
  const field = `${at}.template.spec.restartPolicy`;
  if (policy === undefined || policy === '' || policy === 'Always') {
    errors.push(required(field, 'valid values: "OnFailure", "Never"'));
  } else {
    errors.push(...notSupportedErrors(policy, JOB_RESTART_POLICIES, field));
  }
  return errors;
}

/**
 * `ValidateJobSpec`'s rules that do not depend on the selector (kube-apiserver generates it
 * before validating a create, and it always selects the template then): see
 * {@link jobSpecErrors}, then the syntax of a selector given.
 */
export function validateJobSpec(specValue: JsonValue | undefined): FieldError[] {
  const spec = objectOf(specValue);
  return [...jobSpecErrors(spec, 'spec'), ...validateLabelSelector(spec.selector, 'spec.selector')];
}

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];

/**
 * `ValidateCronJobSpec` (batch/v1beta1): `schedule` required and parsable, then
 * `startingDeadlineSeconds` ≥ 0, `concurrencyPolicy`, the job template's spec (a selector
 * there is refused: it is generated), the history limits ≥ 0.
 */
export function validateCronJobSpec(specValue: JsonValue | undefined): FieldError[] {
  const spec = objectOf(specValue);
  const errors: FieldError[] = [];
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (schedule === '') errors.push(required('spec.schedule'));
  else {
    const problem = cronScheduleProblem(schedule);
    if (problem !== undefined) errors.push(invalid('spec.schedule', schedule, problem));
  }
  errors.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  errors.push(
    ...notSupportedErrors(spec.concurrencyPolicy, CONCURRENCY_POLICIES, 'spec.concurrencyPolicy'),
  );
  const jobSpec = objectOf(objectOf(spec.jobTemplate).spec);
  errors.push(...jobSpecErrors(jobSpec, 'spec.jobTemplate.spec'));
  if (isObject(jobSpec.selector)) {
    errors.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goLabelSelector(jobSpec.selector)}: \`selector\` will be auto-generated`,
      field: 'spec.jobTemplate.spec.selector',
    });
  }
  if (jobSpec.manualSelector === true) {
    errors.push({
      reason: 'FieldValueNotSupported',
      message: 'Unsupported value: true: supported values: "nil", "false"',
      field: 'spec.jobTemplate.spec.manualSelector',
    });
  }
  for (const limit of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    errors.push(...nonNegative(spec[limit], `spec.${limit}`));
  }
  return errors;
}

/** A CronJob's name leaves room for the 11 characters its Jobs' names add (create only). */
export function validateCronJobName(name: string): FieldError[] {
  return name.length > 52
    ? [invalid('metadata.name', name, 'must be no more than 52 characters')]
    : [];
}
