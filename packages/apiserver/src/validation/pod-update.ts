import { isObject, type JsonObject, jsonEqual } from '../patch.js';
import { forbidden, invalid, required } from './field-errors.js';
import type { FieldError } from './names.js';
import { validatePodSpec } from './pod.js';

const MAX_DEADLINE = 2147483647;

const containersOf = (spec: JsonObject, key: string): JsonObject[] =>
  Array.isArray(spec[key]) ? spec[key].filter(isObject) : [];
const imageOf = (container: JsonObject): string =>
  typeof container.image === 'string' ? container.image : '';

/** `validateContainersOnlyForPod`: a pod's images (not a template's) have no outer spaces. */
function imageSpaceErrors(spec: JsonObject, key: string): FieldError[] {
  return containersOf(spec, key).flatMap((container, i) => {
    const image = imageOf(container);
    if (image.trim() === image) return [];
    return [
      invalid(`spec.${key}[${i}].image`, image, 'must not have leading or trailing whitespace'),
    ];
  });
}

/** `validatePodMetadataAndSpec`'s spec rules: the pod spec, then the pod-only image rule. */
export function validatePodCreate(specValue: unknown): FieldError[] {
  const spec = isObject(specValue) ? specValue : {};
  return [
    ...validatePodSpec(spec, 'spec'),
    ...imageSpaceErrors(spec, 'containers'),
    ...imageSpaceErrors(spec, 'initContainers'),
  ];
}

/** `ValidateContainerUpdates`: the same containers; each image set, without outer spaces. */
function containerUpdateErrors(next: JsonObject, old: JsonObject, key: string) {
  const after = containersOf(next, key);
  if (after.length !== containersOf(old, key).length) {
    return {
      errors: [forbidden(`spec.${key}`, 'pod updates may not add or remove containers')],
      stop: true,
    };
  }
  const errors: FieldError[] = [];
  after.forEach((container, i) => {
    const image = imageOf(container);
    if (image === '') errors.push(required(`spec.${key}[${i}].image`));
    if (image.trim() !== image) {
      errors.push(
        invalid(`spec.${key}[${i}].image`, image, 'must not have leading or trailing whitespace'),
      );
    }
  });
  return { errors, stop: false };
}

/** An `activeDeadlineSeconds` may be set, or lowered, but not raised or removed. */
function deadlineUpdateErrors(next: JsonObject, old: JsonObject) {
  const after = next.activeDeadlineSeconds;
  const before = old.activeDeadlineSeconds;
  const field = 'spec.activeDeadlineSeconds';
  if (typeof after === 'number') {
    if (after < 0 || after > MAX_DEADLINE) {
      return {
        errors: [invalid(field, after, `must be between 0 and ${MAX_DEADLINE}, inclusive`)],
        stop: true,
      };
    }
    if (typeof before === 'number' && before < after) {
      return {
        errors: [invalid(field, after, 'must be less than or equal to previous value')],
        stop: true,
      };
    }
  } else if (typeof before === 'number') {
    // kube-apiserver quotes the missing value as the string "null".
    return {
      errors: [invalid(field, 'null', 'must not update from a positive integer to nil value')],
      stop: false,
    };
  }
  return { errors: [], stop: false };
}

/**
 * `ValidatePodUpdate`'s spec rules, in kube-apiserver 1.20's order: the new pod as on create,
 * then containers and init containers (not added or removed — that ends the checks — images
 * set), the deadline (set or lowered only), then nothing else may change.
 */
export function validatePodUpdate(newSpec: unknown, oldSpec: unknown): FieldError[] {
  const next = isObject(newSpec) ? newSpec : {};
  const old = isObject(oldSpec) ? oldSpec : {};
  const errors = validatePodCreate(next);
  for (const step of [
    () => containerUpdateErrors(next, old, 'containers'),
    () => containerUpdateErrors(next, old, 'initContainers'),
    () => deadlineUpdateErrors(next, old),
  ]) {
    const { errors: found, stop } = step();
    errors.push(...found);
    if (stop) return errors;
  }
  return [...errors, ...immutableSpecErrors(next, old)];
}

const POD_UPDATE_FORBIDDEN =
  'Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)';

/** A pod spec with the fields an update may change taken out (images, deadline, tolerations). */
function fixedPart(spec: unknown): JsonObject {
  const copy: JsonObject = isObject(spec) ? { ...spec } : {};
  for (const key of ['containers', 'initContainers']) {
    const list = copy[key];
    if (Array.isArray(list)) {
      copy[key] = list.map((c) => {
        if (!isObject(c)) return c;
        const { image: _image, ...rest } = c;
        return rest;
      });
    }
  }
  delete copy.activeDeadlineSeconds;
  delete copy.tolerations;
  return copy;
}

/** Existing tolerations must all be kept: only additions are allowed. */
function tolerationsKept(oldSpec: unknown, newSpec: unknown): boolean {
  const before = isObject(oldSpec) && Array.isArray(oldSpec.tolerations) ? oldSpec.tolerations : [];
  const after = isObject(newSpec) && Array.isArray(newSpec.tolerations) ? newSpec.tolerations : [];
  return before.every((t) => after.some((u) => jsonEqual(t, u)));
}

/**
 * `ValidatePodUpdate`'s immutability rule. kube-apiserver appends a go-cmp diff of its
 * internal PodSpec to the message; kubets gives the same first line, then a newline, and no diff.
 */
function immutableSpecErrors(newSpec: unknown, oldSpec: unknown): FieldError[] {
  if (jsonEqual(fixedPart(newSpec), fixedPart(oldSpec)) && tolerationsKept(oldSpec, newSpec)) {
    return [];
  }
  return [{ reason: 'FieldValueForbidden', message: `${POD_UPDATE_FORBIDDEN}\n`, field: 'spec' }];
}
