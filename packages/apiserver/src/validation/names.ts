import type { FieldError } from '@kubets/apiextensions';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from '@kubets/apimachinery';
import type { NameRule } from '../resources.js';

// The validation files take FieldError from here, beside the helpers that make them.
export type { FieldError };

/** Problems with `value` as a name under `rule`: messages without the field prefix. */
export function nameProblems(value: string, rule: NameRule): string[] {
  const problems: string[] = [];
  switch (rule) {
    case 'subdomain':
      problems.push(...isDNS1123Subdomain(value));
      break;
    case 'label':
      problems.push(...isDNS1123Label(value));
      break;
    case 'dns1035':
      problems.push(...isDNS1035Label(value));
      break;
    case 'path':
      if (value === '.' || value === '..') problems.push(`may not be '${value}'`);
      for (const bad of ['/', '%']) {
        if (value.includes(bad)) problems.push(`may not contain '${bad}'`);
      }
      break;
  }
  return problems;
}

/**
 * Validates `metadata.generateName` and `metadata.name` as kube-apiserver does on create
 * (`ValidateObjectMeta`): a generateName must be a valid name prefix (a trailing '-' is
 * allowed), then a name is required and must satisfy the resource's rule. The caller
 * generates the name from generateName first, as the real server does.
 */
export function validateObjectName(
  name: string | undefined,
  generateName: string | undefined,
  rule: NameRule,
): FieldError[] {
  const errors: FieldError[] = [];
  if (generateName) {
    // Go's maskTrailingDash (verbatim, it drops two characters): a prefix may end in '-'.
    const masked =
      rule !== 'path' && generateName.length > 1 && generateName.endsWith('-')
        ? `${generateName.slice(0, -2)}a`
        : generateName;
    for (const problem of nameProblems(masked, rule)) {
      errors.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(generateName)}: ${problem}`,
        field: 'metadata.generateName',
      });
    }
  }
  if (!name) {
    errors.push({
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
      field: 'metadata.name',
    });
    return errors;
  }
  return errors.concat(
    nameProblems(name, rule).map((problem) => ({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(name)}: ${problem}`,
      field: 'metadata.name',
    })),
  );
}

/** `ValidateDNS1123Label` on `name` at `field`. */
export function dnsLabelErrors(name: string, field: string): FieldError[] {
  return nameProblems(name, 'label').map((problem) => ({
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${JSON.stringify(name)}: ${problem}`,
    field,
  }));
}

/** A `Duplicate value` cause unless `name` is new to `seen` (which then records it). */
export function duplicateErrors(name: string, seen: Set<string>, field: string): FieldError[] {
  if (!seen.has(name)) {
    seen.add(name);
    return [];
  }
  return [
    { reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(name)}`, field },
  ];
}

/** An `Unsupported value` cause when a set `value` is not one of `supported` (Go's NotSupported). */
export function notSupportedErrors(
  value: unknown,
  supported: readonly string[],
  field: string,
): FieldError[] {
  if (value === undefined || value === '' || supported.includes(String(value))) return [];
  const list = supported.map((v) => JSON.stringify(v)).join(', ');
  return [
    {
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${list}`,
      field,
    },
  ];
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` plus five random characters from the alphabet Kubernetes uses. */
export function generateNameSuffix(prefix: string): string {
  const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  let suffix = '';
  for (let i = 0; i < 5; i++) {
    suffix += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  }
  return base + suffix;
}
