import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { forbidden, invalid, nonNegative, required } from './field-errors.js';
import {
  goLabelSelector,
  goStringMap,
  isConvertibleSelector,
  isEmptySelector,
  selectorMatches,
  validateLabelSelector,
} from './label-selector.js';
import type { FieldError } from './names.js';
import { podTemplateErrors, templateSpecOf } from './pod-template.js';
import {
  validateDaemonSetUpdateStrategy,
  validateDeploymentStrategy,
} from './update-strategies.js';

const objectOf = (value: JsonValue | undefined): JsonObject => (isObject(value) ? value : {});
const templateOf = (spec: JsonObject): JsonObject => objectOf(spec.template);
const templateMetaOf = (spec: JsonObject): JsonObject => objectOf(templateOf(spec).metadata);

/** A raw `Invalid value` cause quoting a Go value (`%#v`), with `detail` when there is one. */
function invalidGo(field: string, goValue: string, detail: string): FieldError {
  const message = `Invalid value: ${goValue}${detail === '' ? '' : `: ${detail}`}`;
  return { reason: 'FieldValueInvalid', message, field };
}

/** `selector does not match template labels` unless the selector selects the template. */
function templateMatchErrors(selector: JsonObject | undefined, spec: JsonObject): FieldError[] {
  const labels = templateMetaOf(spec).labels;
  // A missing selector selects nothing; an empty one everything.
  if (selector && (isEmptySelector(selector) || selectorMatches(selector, objectOf(labels)))) {
    return [];
  }
  return [
    invalidGo(
      'spec.template.metadata.labels',
      goStringMap(labels),
      '`selector` does not match template `labels`',
    ),
  ];
}

/** A controller's pods restart `Always` and have no deadline (`owner` names it in the message). */
function alwaysRunningErrors(spec: JsonObject, owner: string): FieldError[] {
  const podSpec = templateSpecOf(spec);
  const errors: FieldError[] = [];
  if (podSpec.restartPolicy !== 'Always') {
    errors.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(String(podSpec.restartPolicy ?? ''))}: supported values: "Always"`,
      field: 'spec.template.spec.restartPolicy',
    });
  }
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errors.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        `activeDeadlineSeconds in ${owner} is not Supported`,
      ),
    );
  }
  return errors;
}

/**
 * A required selector's causes: `Required value` when missing, else its syntax and
 * `empty selector is invalid for <what>`. Returns the selector when it converts (the
 * template is only checked then), null when it does not, undefined when it is missing.
 */
function requiredSelector(
  spec: JsonObject,
  what: string,
  errors: FieldError[],
  invalidDetail: string,
) {
  const selector = isObject(spec.selector) ? spec.selector : undefined;
  if (!selector) {
    errors.push(required('spec.selector'));
    return undefined;
  }
  errors.push(...validateLabelSelector(selector, 'spec.selector'));
  if (isEmptySelector(selector)) {
    errors.push(
      invalidGo(
        'spec.selector',
        goLabelSelector(selector),
        `empty selector is invalid for ${what}`,
      ),
    );
  }
  if (isConvertibleSelector(selector)) return selector;
  errors.push(invalidGo('spec.selector', goLabelSelector(selector), invalidDetail));
  return null;
}

/** `ValidatePodTemplateSpecForReplicaSet`: match, template, `Always`, no deadline. */
function replicaSetTemplateErrors(selector: JsonObject | undefined, spec: JsonObject) {
  return [
    ...templateMatchErrors(selector, spec),
    ...podTemplateErrors(spec, 'spec'),
    ...alwaysRunningErrors(spec, 'ReplicaSet'),
  ];
}

/**
 * `ValidateDeploymentSpec`'s rules that kubets checks, in kube-apiserver 1.20's order:
 * `replicas` ≥ 0, the selector (required, valid, not empty), then, when it converts, the
 * template (selected by it; labels, annotations, pod spec; `restartPolicy: Always`, no
 * `activeDeadlineSeconds`), then `strategy`, `minReadySeconds`, `revisionHistoryLimit`,
 * `progressDeadlineSeconds` (≥ 0 and above `minReadySeconds`).
 */
export function validateDeploymentSpec(specValue: JsonValue | undefined): FieldError[] {
  const spec = objectOf(specValue);
  const errors = nonNegative(spec.replicas, 'spec.replicas');
  const selector = requiredSelector(spec, 'deployment', errors, 'invalid label selector');
  if (selector !== null) errors.push(...replicaSetTemplateErrors(selector, spec));
  errors.push(...validateDeploymentStrategy(spec.strategy));
  errors.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errors.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    errors.push(...nonNegative(deadline, 'spec.progressDeadlineSeconds'));
    const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
    if (deadline <= minReady) {
      errors.push(
        invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'),
      );
    }
  }
  return errors;
}

/**
 * `ValidateReplicaSetSpec`: `replicas` and `minReadySeconds` ≥ 0, the selector (its empty
 * case says `for deployment`, as 1.20 does), then the template as a Deployment's.
 */
export function validateReplicaSetSpec(specValue: JsonValue | undefined): FieldError[] {
  const spec = objectOf(specValue);
  const errors = [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
  ];
  const selector = requiredSelector(spec, 'deployment', errors, 'invalid label selector');
  if (selector !== null) errors.push(...replicaSetTemplateErrors(selector, spec));
  return errors;
}

/**
 * `ValidateDaemonSetSpec`: the selector's syntax, the template selected by it (a missing
 * selector selects nothing, and is not itself reported), not empty; the template; `Always`,
 * no deadline; `minReadySeconds`, `templateGeneration` ≥ 0, `updateStrategy`,
 * `revisionHistoryLimit` ≥ 0.
 */
export function validateDaemonSetSpec(specValue: JsonValue | undefined): FieldError[] {
  const spec = objectOf(specValue);
  const selector = isObject(spec.selector) ? spec.selector : undefined;
  const errors = validateLabelSelector(selector, 'spec.selector');
  if (!selector || isConvertibleSelector(selector)) {
    errors.push(...templateMatchErrors(selector, spec));
  }
  if (selector && isEmptySelector(selector)) {
    errors.push(
      invalidGo(
        'spec.selector',
        goLabelSelector(selector),
        'empty selector is invalid for daemonset',
      ),
    );
  }
  errors.push(...podTemplateErrors(spec, 'spec'));
  errors.push(...alwaysRunningErrors(spec, 'DaemonSet'));
  errors.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errors.push(...nonNegative(spec.templateGeneration, 'spec.templateGeneration'));
  errors.push(...validateDaemonSetUpdateStrategy(spec.updateStrategy));
  errors.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return errors;
}

function updateStrategyErrors(strategy: JsonObject): FieldError[] {
  const type = strategy.type;
  const rolling = strategy.rollingUpdate;
  if (type === 'RollingUpdate') {
    return nonNegative(objectOf(rolling).partition, 'spec.updateStrategy.rollingUpdate.partition');
  }
  if (type === 'OnDelete' || type === undefined || type === '') return [];
  // kube-apiserver quotes the strategy as a Go struct; with a rollingUpdate that holds a
  // pointer's address, which kubets cannot reproduce, so only the common case is exact.
  const goRolling = isObject(rolling)
    ? '&apps.RollingUpdateStatefulSetStrategy{…}'
    : '(*apps.RollingUpdateStatefulSetStrategy)(nil)';
  return [
    invalidGo(
      'spec.updateStrategy',
      `apps.StatefulSetUpdateStrategy{Type:${JSON.stringify(String(type))}, RollingUpdate:${goRolling}}`,
      "must be 'RollingUpdate' or 'OnDelete'",
    ),
  ];
}

/**
 * `ValidateStatefulSetSpec`: `podManagementPolicy`, `updateStrategy`, `replicas` ≥ 0, the
 * selector, then the template's match, labels and annotations (1.20 does not validate a
 * StatefulSet's pod spec), `Always`, no deadline.
 */
export function validateStatefulSetSpec(specValue: JsonValue | undefined): FieldError[] {
  const spec = objectOf(specValue);
  const errors: FieldError[] = [];
  const policy = spec.podManagementPolicy;
  if (
    typeof policy === 'string' &&
    policy !== '' &&
    policy !== 'OrderedReady' &&
    policy !== 'Parallel'
  ) {
    errors.push(
      invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"),
    );
  }
  errors.push(...updateStrategyErrors(objectOf(spec.updateStrategy)));
  errors.push(...nonNegative(spec.replicas, 'spec.replicas'));
  const selector = requiredSelector(spec, 'statefulset', errors, '');
  if (selector !== null) {
    errors.push(...templateMatchErrors(selector, spec), ...podTemplateErrors(spec, 'spec', false));
  }
  errors.push(...alwaysRunningErrors(spec, 'StatefulSet'));
  return errors;
}
