import type { JsonObject } from '../patch.js';
import { invalid, invalidEach } from './field-errors.js';
import { validateLabels } from './metadata.js';
import { dnsLabelErrors, type FieldError, nameProblems } from './names.js';
import { validatePodSecurityContext } from './security-context.js';

/**
 * The pod-level fields `ValidatePodSpec` checks after `dnsPolicy` that kubets checks, in
 * kube-apiserver 1.20's order: `nodeSelector` (labels), the pod's security context (ids),
 * `serviceAccountName` and `nodeName` (DNS subdomains), `activeDeadlineSeconds` (1–2³¹−1),
 * `hostname` and `subdomain` (DNS labels).
 */
export function validatePodFields(podSpec: JsonObject, path: string): FieldError[] {
  const errors = [
    ...validateLabels(podSpec.nodeSelector, `${path}.nodeSelector`),
    ...validatePodSecurityContext(podSpec.securityContext, `${path}.securityContext`),
  ];
  const text = (key: string): string =>
    typeof podSpec[key] === 'string' ? (podSpec[key] as string) : '';
  for (const key of ['serviceAccountName', 'nodeName']) {
    const name = text(key);
    if (name !== '') errors.push(...invalidEach(`${path}.${key}`, name, subdomainProblems));
  }
  const deadline = podSpec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && (deadline < 1 || deadline > 2147483647)) {
    errors.push(
      invalid(
        `${path}.activeDeadlineSeconds`,
        deadline,
        'must be between 1 and 2147483647, inclusive',
      ),
    );
  }
  for (const key of ['hostname', 'subdomain']) {
    if (text(key) !== '') errors.push(...dnsLabelErrors(text(key), `${path}.${key}`));
  }
  return errors;
}

const subdomainProblems = (name: string): string[] => nameProblems(name, 'subdomain');
