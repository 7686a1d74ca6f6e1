import { type GroupVersionResource, parseGroupVersionResource } from '@kubets/apimachinery';

/**
 * `gvr` as a complete group/version/resource: a string (`deployments.v1.apps`, `pods.v1.`,
 * `apps/v1/deployments`, `v1/pods`) is parsed, and a missing group means the core group.
 * The dynamic client and the dynamic informers check it the same way, so both fail alike
 * on a resource they cannot address.
 *
 * @throws {TypeError} when the version or the resource is missing.
 */
export function resolveGVR(gvr: GroupVersionResource | string): GroupVersionResource {
  const parsed = typeof gvr === 'string' ? parseGroupVersionResource(gvr) : gvr;
  if (!parsed.version) throw new TypeError(`resource "${parsed.resource}" needs a version`);
  if (!parsed.resource) throw new TypeError('a GroupVersionResource needs a resource');
  return { group: parsed.group ?? '', version: parsed.version, resource: parsed.resource };
}
